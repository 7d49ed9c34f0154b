package llm

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/clanker-desktop/clanker/app/engine"
)

// FuzzClassifyHTTP feeds arbitrary statuses, Retry-After values and error bodies to the error
// classifier, which reads whatever an endpoint (or a proxy in front of it) sends back. It must
// never panic; the class must follow from the status alone where the status decides (401
// auth, 402 quota, 404 model, 5xx server); the message shown to the user stays capped; a
// retry wait is never negative nor over its cap, and one too long to wait for is never read
// as a short one; and the user text is never empty.
func FuzzClassifyHTTP(f *testing.F) {
	seeds := []struct {
		status int
		retry  string
		body   string
	}{
		{401, "", `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`},
		{429, "7", `{"error":{"message":"Rate limit reached","type":"requests","code":429}}`},
		{429, "Wed, 21 Oct 2015 07:28:00 GMT", `{"code":"Too many requests","error":"slow down"}`},
		{429, "-3", `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":null}}`},
		{400, "", `{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low"}}`},
		{403, "", `{"code":"Forbidden","error":"Your team has run out of credits"}`},
		{404, "", `<html><body>Not Found</body></html>`},
		{500, "1e400", `{"detail":"internal"}`},
		{529, "", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
		{502, "NaN", "upstream \xff\xfe broken"},
		{418, "", `{"message": ` + strings.Repeat(`"`, 3) + `}`},
		{400, "", `{"error":"` + strings.Repeat("é", 400) + `"}`},
		{400, "", `{"error":"a` + strings.Repeat("é", 400) + `"}`}, // odd offset: the cap must not split a character
		{0, "", ""}, {-1, "", "null"}, {999, "", "[]"},
	}
	for _, s := range seeds {
		f.Add(s.status, s.retry, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, status int, retry string, body []byte) {
		h := http.Header{}
		h.Set("Retry-After", retry)
		e := ClassifyHTTP(status, h, body)
		if e == nil {
			t.Fatal("ClassifyHTTP returned nil")
		}
		want := map[int]engine.ErrorClass{401: engine.ErrAuth, 402: engine.ErrQuota, 404: engine.ErrModel}
		if c, ok := want[status]; ok && e.Class != c {
			t.Fatalf("status %d classified %v, want %v", status, e.Class, c)
		}
		if status >= 500 && status <= 599 && e.Class != engine.ErrServer {
			t.Fatalf("status %d classified %v, want server", status, e.Class)
		}
		if e.RetryAfter < 0 || e.RetryAfter > maxRetryAfter {
			t.Fatalf("retry wait %v from Retry-After %q is outside 0..%v", e.RetryAfter, retry, maxRetryAfter)
		}
		// A wait the client would not sit through must stay one it would not sit through:
		// huge values may be capped, never wrapped into a short (or negative) one.
		if s, err := strconv.ParseFloat(strings.TrimSpace(retry), 64); (err == nil || errors.Is(err, strconv.ErrRange)) &&
			s >= DefaultMaxRetryWait.Seconds() && e.RetryAfter < DefaultMaxRetryWait {
			t.Fatalf("Retry-After %q (too long to wait) read as %v, which the client would wait for", retry, e.RetryAfter)
		}
		msg := ""
		if e.Err != nil {
			msg = e.Err.Error()
		}
		if n := len(msg); n > maxErrorMessage+len("…") {
			t.Fatalf("message of %d bytes, over the cap of %d", n, maxErrorMessage)
		}
		if strings.TrimSpace(e.UserText) == "" || e.Error() == "" {
			t.Fatalf("empty user text or error for status %d", status)
		}
		if utf8.Valid(body) && !utf8.ValidString(msg) {
			t.Fatalf("a valid UTF-8 body gave an invalid UTF-8 message %q (cut inside a character)", msg)
		}
	})
}
