package llm

import (
	"strings"

	"github.com/clanker-desktop/clanker/app/engine"
	"testing"
	"unicode/utf8"
)

func TestRateLimitWordingIsNotQuota(t *testing.T) {
	for _, msg := range []string{
		"Number of request tokens has exceeded your per-minute rate limit",
		"You have exceeded the rate limit",
	} {
		body := []byte(`{"type":"error","error":{"type":"rate_limit_error","message":"` + msg + `"}}`)
		if got := ClassifyHTTP(429, nil, body).Class; got != engine.ErrRateLimit {
			t.Errorf("429 %q classified %v, want rate limit (a rate limit must not deactivate)", msg, got)
		}
	}
	quota := []byte(`{"error":{"message":"You have reached your monthly usage limit","type":"invalid_request_error"}}`)
	if got := ClassifyHTTP(429, nil, quota).Class; got != engine.ErrQuota {
		t.Errorf("usage-limit 429 classified %v, want quota", got)
	}
}

func TestErrorMessageIsCutAtACharacterBoundary(t *testing.T) {
	body := []byte(`{"error":"a` + strings.Repeat("é", 400) + `"}`)
	msg := ClassifyHTTP(500, nil, body).Err.Error()
	if !utf8.ValidString(msg) {
		t.Fatalf("capped message is not valid UTF-8: %q", msg)
	}
	if len(msg) > maxErrorMessage+len("…") {
		t.Fatalf("capped message has %d bytes, want at most %d", len(msg), maxErrorMessage+len("…"))
	}
}

func TestScrubRemovesTheKeyFromAnErrorThatQuotesIt(t *testing.T) {
	const key = "sk-test-0123456789abcdef"
	e := classify(400, nil, []byte(`{"error":{"message":"Key `+key+` is bad","code":"`+key+`"}}`), key)
	for _, s := range []string{e.Err.Error(), e.Code, e.Error(), e.UserText} {
		if strings.Contains(s, key) {
			t.Fatalf("the key survived scrubbing: %q", s)
		}
	}
}
