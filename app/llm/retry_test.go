package llm

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// scripted is an in-memory transport: each request gets the next response
// and the time it arrived is recorded. No sockets, so synctest's fake clock
// drives every wait.
type scripted struct {
	mu    sync.Mutex
	resps []func() *http.Response
	times []time.Time
}

func (s *scripted) RoundTrip(req *http.Request) (*http.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.times = append(s.times, time.Now())
	if len(s.resps) == 0 {
		return nil, errors.New("no scripted response left")
	}
	f := s.resps[0]
	s.resps = s.resps[1:]
	r := f()
	r.Request = req
	return r, nil
}

func status(code int, header http.Header, body string) func() *http.Response {
	return func() *http.Response {
		if header == nil {
			header = http.Header{}
		}
		header.Set("Content-Type", "application/json")
		return &http.Response{StatusCode: code, Header: header, Body: io.NopCloser(strings.NewReader(body))}
	}
}

const okBody = `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"{\"response\":\"ok\"}"}}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`

const rateBody = `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`

func scriptedClient(tr *scripted) *Client {
	return New(Config{Endpoint: "http://127.0.0.1/v1", APIKey: "k", Model: "m",
		HTTPClient: &http.Client{Transport: tr},
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil))})
}

func TestRateLimitHonoursRetryAfterThenSucceeds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := &scripted{resps: []func() *http.Response{
			status(429, http.Header{"Retry-After": {"5"}}, rateBody),
			status(429, http.Header{"Retry-After-Ms": {"1500"}}, rateBody),
			status(200, nil, okBody),
		}}
		start := time.Now()
		res, err := scriptedClient(tr).Complete(context.Background(), sampleRequest())
		if err != nil || res.Reply.Text != "ok" {
			t.Fatalf("want the reply after two rate limits, got %+v err %v", res.Reply, err)
		}
		if len(tr.times) != 3 {
			t.Fatalf("want 3 attempts, got %d", len(tr.times))
		}
		if d := tr.times[1].Sub(start); d != 5*time.Second {
			t.Errorf("second attempt after %v, want exactly the 5 s Retry-After", d)
		}
		if d := tr.times[2].Sub(tr.times[1]); d != 1500*time.Millisecond {
			t.Errorf("third attempt after %v, want the 1.5 s retry-after-ms", d)
		}
	})
}

func TestRateLimitWithoutHeaderBacksOffThenGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := &scripted{resps: []func() *http.Response{
			status(429, nil, rateBody), status(429, nil, rateBody), status(429, nil, rateBody),
		}}
		start := time.Now()
		_, err := scriptedClient(tr).Complete(context.Background(), sampleRequest())
		var e *engine.LLMError
		if !errors.As(err, &e) || e.Class != engine.ErrRateLimit {
			t.Fatalf("want a rate-limit error after retries, got %v", err)
		}
		if len(tr.times) != 1+DefaultRateLimitRetries {
			t.Fatalf("want %d attempts, got %d", 1+DefaultRateLimitRetries, len(tr.times))
		}
		first, second := tr.times[1].Sub(start), tr.times[2].Sub(tr.times[1])
		if first < time.Second || first >= 1250*time.Millisecond || second < 2*time.Second || second >= 2500*time.Millisecond {
			t.Errorf("want backoff of 1-1.25 s then 2-2.5 s, got %v then %v", first, second)
		}
	})
}

func TestRetryAfterLongerThanTheCapIsNotWaitedFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := &scripted{resps: []func() *http.Response{status(429, http.Header{"Retry-After": {"3600"}}, rateBody)}}
		start := time.Now()
		_, err := scriptedClient(tr).Complete(context.Background(), sampleRequest())
		var e *engine.LLMError
		if !errors.As(err, &e) || e.Class != engine.ErrRateLimit || e.RetryAfter != time.Hour {
			t.Fatalf("want a rate-limit error carrying the 1 h Retry-After, got %v", err)
		}
		if time.Since(start) != 0 || len(tr.times) != 1 {
			t.Fatalf("want an immediate give-up, waited %v over %d attempts", time.Since(start), len(tr.times))
		}
	})
}

// Found by FuzzClassifyHTTP: Retry-After: 1e10 seconds overflowed time.Duration into a
// negative wait, read as "no wait given", so the client retried after about a second. Absurd
// values (and ones too large for a float) are capped, which is still too long to wait: the
// client gives up at once, as for any Retry-After over its limit.
func TestAbsurdRetryAfterIsTooLongToWaitAndGivenUpOn(t *testing.T) {
	for _, h := range []http.Header{
		{"Retry-After": {"1e10"}},
		{"Retry-After": {"1e400"}},
		{"Retry-After": {"+Inf"}},
		{"Retry-After": {"9223372037"}}, // the first whole second past time.Duration's range
		{"Retry-After-Ms": {"1e300"}},
	} {
		synctest.Test(t, func(t *testing.T) {
			tr := &scripted{resps: []func() *http.Response{status(429, h, rateBody), status(200, nil, okBody)}}
			start := time.Now()
			_, err := scriptedClient(tr).Complete(context.Background(), sampleRequest())
			var e *engine.LLMError
			if !errors.As(err, &e) || e.RetryAfter != maxRetryAfter {
				t.Fatalf("%v: want the rate-limit error with the wait capped at %v, got %v", h, maxRetryAfter, err)
			}
			if time.Since(start) != 0 || len(tr.times) != 1 {
				t.Fatalf("%v: want an immediate give-up, waited %v over %d attempts", h, time.Since(start), len(tr.times))
			}
		})
	}
}

// TestRetryAfterIsCappedBeforeItIsConverted checks retryAfter itself: every value at or past the
// cap comes back as exactly the cap (never negative, never wrapped), values below it unchanged,
// and unreadable or non-positive values as "no wait given".
func TestRetryAfterIsCappedBeforeItIsConverted(t *testing.T) {
	for _, c := range []struct {
		name string
		h    http.Header
		want time.Duration
	}{
		{"no header", nil, 0},
		{"seconds", http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{"fractional seconds", http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond},
		{"milliseconds win", http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond},
		{"just under the cap", http.Header{"Retry-After": {"86399"}}, 86399 * time.Second},
		{"exactly the cap", http.Header{"Retry-After": {"86400"}}, maxRetryAfter},
		{"the fuzz crasher 1e10", http.Header{"Retry-After": {"1e10"}}, maxRetryAfter},
		{"past time.Duration's range", http.Header{"Retry-After": {"9223372037"}}, maxRetryAfter},
		{"too large for a float", http.Header{"Retry-After": {"1e400"}}, maxRetryAfter},
		{"infinity", http.Header{"Retry-After": {"+Inf"}}, maxRetryAfter},
		{"huge milliseconds", http.Header{"Retry-After-Ms": {"1e300"}}, maxRetryAfter},
		{"zero", http.Header{"Retry-After": {"0"}}, 0},
		{"negative", http.Header{"Retry-After": {"-5"}}, 0},
		{"NaN", http.Header{"Retry-After": {"NaN"}}, 0},
		{"words", http.Header{"Retry-After": {"soon"}}, 0},
		{"a date in the past", http.Header{"Retry-After": {"Mon, 02 Jan 2006 15:04:05 GMT"}}, 0},
		{"a date years ahead", http.Header{"Retry-After": {time.Now().AddDate(30, 0, 0).UTC().Format(http.TimeFormat)}}, maxRetryAfter},
	} {
		if got := retryAfter(c.h); got != c.want {
			t.Errorf("%s: retryAfter(%v) = %v, want %v", c.name, c.h, got, c.want)
		}
	}
}

func TestCancelledContextStopsARetryWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := &scripted{resps: []func() *http.Response{status(429, http.Header{"Retry-After": {"20"}}, rateBody)}}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		start := time.Now()
		_, err := scriptedClient(tr).Complete(ctx, sampleRequest())
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 3*time.Second {
			t.Fatalf("want the caller's deadline to end the wait at 3 s, got %v after %v", err, time.Since(start))
		}
	})
}

func TestClassifyHTTPUserTextsAndRetryAfterDate(t *testing.T) {
	h := http.Header{"Retry-After": {time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)}}
	e := ClassifyHTTP(429, h, []byte(`{"error":{"message":"slow down","code":null}}`))
	if e.Class != engine.ErrRateLimit || e.RetryAfter < 80*time.Second || e.RetryAfter > 91*time.Second {
		t.Fatalf("want rate limit with ~90 s from an HTTP-date Retry-After, got %v %v", e.Class, e.RetryAfter)
	}
	for status, want := range map[int]string{401: "Invalid API key", 402: "Payment required", 403: "Access denied", 404: "not found", 503: "(503)"} {
		if got := ClassifyHTTP(status, nil, nil).UserText; !strings.Contains(got, want) {
			t.Errorf("status %d: want text containing %q, got %q", status, want, got)
		}
	}
	if got := ClassifyHTTP(418, nil, []byte(`{"message":"I'm a teapot"}`)).UserText; !strings.Contains(got, "teapot") {
		t.Errorf("unknown errors must show the provider's message, got %q", got)
	}
}
