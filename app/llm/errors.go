package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/clanker-desktop/clanker/app/engine"
)

// httpUserText is the sentence the toast or banner shows for a classified failure. msg is the
// provider's own (capped, scrubbed) message; it is shown only when nothing more specific fits.
func httpUserText(class engine.ErrorClass, status int, msg string) string {
	switch class {
	case engine.ErrAuth:
		if status == http.StatusForbidden {
			return "Access denied. Check your API key's permissions."
		}
		return "Invalid API key. Check your configuration."
	case engine.ErrQuota:
		if status == http.StatusPaymentRequired {
			return "Payment required. Your API billing may need attention."
		}
		return "API quota exceeded. Check your billing or usage limits."
	case engine.ErrRateLimit:
		return "Rate limited by the AI service. Clanker will try again on the next message."
	case engine.ErrServer:
		return fmt.Sprintf("AI service error (%d). This is usually temporary.", status)
	case engine.ErrModel:
		return "Model or endpoint not found. Check your configuration."
	default:
		if msg != "" {
			return "AI service error: " + msg
		}
		return fmt.Sprintf("AI service error (HTTP %d).", status)
	}
}

var errTimeout = errors.New("request timed out")

// networkError is a request that got no answer: a refused or dropped connection, or no reply
// within the timeout.
func networkError(err error) *engine.LLMError {
	text := "Cannot reach the AI service. Check your connection."
	if errors.Is(err, errTimeout) {
		text = "The AI service did not answer in time."
	}
	return &engine.LLMError{Class: engine.ErrNetwork, UserText: text, Err: err}
}

// badOutputError is a 200 response whose body is not a usable completion.
func badOutputError(err error) *engine.LLMError {
	return &engine.LLMError{Class: engine.ErrModel, Status: http.StatusOK,
		UserText: "The AI service sent a response Clanker could not read.", Err: err}
}

// quotaWords matches quota and billing wording in a message; quotaCode the
// same in a type or code field. A spending or usage limit is quota; a rate
// limit ("exceeded your per-minute rate limit") is not, which is why the
// extension's broad "exceeded ... limit" is narrowed here: a passing rate
// limit must never switch Clanker off.
var (
	quotaWords = regexp.MustCompile(`(?i)quota|billing|budget|insufficient.funds|(usage|spend|spending|monthly|hard) limit|payment.*required|credit`)
	quotaCode  = regexp.MustCompile(`(?i)quota|billing|budget|insufficient|credit`)
)

const maxErrorMessage = 300

// ClassifyHTTP classifies an error response from its status, headers and
// body into the engine's error classes. It understands OpenAI-shaped bodies
// ({"error": {"message", "type", "code"}}, code a string, number or null),
// xAI's ({"code": ..., "error": "..."}), Anthropic's ({"type": "error",
// "error": {"type", "message"}}), {"detail": ...} and {"message": ...}
// bodies, and plain text.
func ClassifyHTTP(status int, header http.Header, body []byte) *engine.LLMError {
	return classify(status, header, body, "")
}

// classify is ClassifyHTTP that also removes secret (the API key) from everything the
// provider sent, because a misbehaving proxy may quote the key back in its error body and
// that text is shown to the user.
func classify(status int, header http.Header, body []byte, secret string) *engine.LLMError {
	code, typ, msg := errorFields(body)
	if len(secret) >= 4 {
		code = strings.ReplaceAll(code, secret, "[key removed]")
		typ = strings.ReplaceAll(typ, secret, "[key removed]")
		msg = strings.ReplaceAll(msg, secret, "[key removed]")
	}
	e := &engine.LLMError{Status: status, Code: code, RetryAfter: retryAfter(header)}
	if msg != "" {
		e.Err = errors.New(msg)
	}
	quotaLike := quotaWords.MatchString(msg) || quotaCode.MatchString(typ) || quotaCode.MatchString(code)
	switch {
	case status == http.StatusUnauthorized:
		e.Class = engine.ErrAuth
	case status == http.StatusPaymentRequired:
		e.Class = engine.ErrQuota
	case status == http.StatusForbidden && quotaLike:
		e.Class = engine.ErrQuota
	case status == http.StatusForbidden:
		e.Class = engine.ErrAuth
	case status == http.StatusTooManyRequests && quotaLike:
		e.Class = engine.ErrQuota
	case status == http.StatusTooManyRequests:
		e.Class = engine.ErrRateLimit
	case status == http.StatusBadRequest && quotaLike:
		// Anthropic reports an empty credit balance as a 400.
		e.Class = engine.ErrQuota
	case status == http.StatusNotFound:
		// A missing model or a wrong endpoint path: toasted every time, like other model errors.
		e.Class = engine.ErrModel
	case status >= 500 && status <= 599:
		e.Class = engine.ErrServer
	default:
		e.Class = engine.ErrUnknown
	}
	e.UserText = httpUserText(e.Class, status, msg)
	return e
}

// errorFields digs code, type and message out of any known error body.
func errorFields(body []byte) (code, typ, msg string) {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		text := strings.TrimSpace(string(body))
		if strings.HasPrefix(text, "<") { // an HTML error page says nothing useful
			text = ""
		}
		return "", "", capMessage(text)
	}
	code = scalar(top["code"])
	typ = scalar(top["type"])
	if typ == "error" { // Anthropic's envelope type
		typ = ""
	}
	msg = scalar(top["message"])
	if d := scalar(top["detail"]); msg == "" {
		msg = d
	}
	if raw, ok := top["error"]; ok {
		var inner map[string]json.RawMessage
		if json.Unmarshal(raw, &inner) == nil {
			if c := scalar(inner["code"]); c != "" {
				code = c
			}
			if t := scalar(inner["type"]); t != "" {
				typ = t
			}
			if m := scalar(inner["message"]); m != "" {
				msg = m
			}
		} else if s := scalar(raw); s != "" {
			msg = s // xAI: "error" is the message string
		}
	}
	return code, typ, capMessage(msg)
}

// scalar renders a JSON string or number as text; anything else is "".
func scalar(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// capMessage folds white space and cuts the message to maxErrorMessage bytes at a
// character boundary, so a toast never shows half a character or invalid UTF-8.
func capMessage(s string) string {
	s = strings.ToValidUTF8(strings.Join(strings.Fields(s), " "), "\uFFFD")
	if len(s) > maxErrorMessage {
		cut := maxErrorMessage
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// maxRetryAfter caps the wait read from a response. A server (or a proxy) may send any number;
// one past the cap, including one too large for a time.Duration, is read as the cap, which is
// far longer than the client ever waits, so the request is given up on as "too long to wait".
// Converting such a number unchecked overflows into a negative wait that looks like "no wait
// given" and was retried after about a second.
const maxRetryAfter = 24 * time.Hour

// retryAfter reads retry-after-ms, then Retry-After as seconds or an HTTP
// date, capped at maxRetryAfter.
func retryAfter(h http.Header) time.Duration {
	if h == nil {
		return 0
	}
	// positive parses a wait; a number too large for a float64 (ErrRange, +Inf) counts as huge.
	positive := func(v string) (float64, bool) {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, false
		}
		return n, n > 0 // false for NaN too
	}
	// wait converts n units, comparing with the cap before converting so nothing overflows.
	wait := func(n float64, unit time.Duration) time.Duration {
		if d := n * float64(unit); d < float64(maxRetryAfter) {
			return time.Duration(d)
		}
		return maxRetryAfter
	}
	if ms, ok := positive(h.Get("Retry-After-Ms")); ok {
		return wait(ms, time.Millisecond)
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, ok := positive(v); ok {
		return wait(s, time.Second)
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return min(d, maxRetryAfter)
		}
	}
	return 0
}
