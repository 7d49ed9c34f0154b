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
)

// Category groups failures by what the app does about them.
type Category int

// Categories.
const (
	CatUnknown   Category = iota // anything unlisted: notify every time
	CatAuth                      // 401, 403: deactivate
	CatQuota                     // 402, quota/billing wording: deactivate
	CatRateLimit                 // 429 after retries: notify once per streak
	CatServer                    // 5xx: notify once per streak
	CatNetwork                   // connection failure or timeout: notify once per streak
	CatNotFound                  // 404: notify every time
	CatBadOutput                 // 200 whose body is not a usable completion: notify every time
)

func (c Category) String() string {
	return [...]string{"unknown", "auth", "quota", "rate_limit", "server", "network", "not_found", "bad_output"}[c]
}

// Action is what the app does with a failure.
type Action int

// Actions.
const (
	// NotifyAlways shows a toast for every occurrence.
	NotifyAlways Action = iota
	// NotifyOncePerStreak shows a toast for the first failure of a run of
	// failures; a success ends the run (the engine counts the run).
	NotifyOncePerStreak
	// Deactivate switches the conversation to Deactivated without posting
	// anything into the chat, and shows a banner.
	Deactivate
)

// Action returns what the app should do for this category.
func (c Category) Action() Action {
	switch c {
	case CatAuth, CatQuota:
		return Deactivate
	case CatRateLimit, CatServer, CatNetwork:
		return NotifyOncePerStreak
	default:
		return NotifyAlways
	}
}

// Error is a classified request failure. It never contains the API key or
// message bodies; Message is the provider's own error message (which may
// be shown to the user), capped in length.
type Error struct {
	Category   Category
	Status     int    // HTTP status, 0 for network errors
	Code       string // provider error code, numeric codes as decimal text
	Type       string // provider error type
	Message    string
	RetryAfter time.Duration // from Retry-After / retry-after-ms, if sent
	Err        error         // the underlying transport error, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "llm %s error", e.Category)
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Code != "" {
		fmt.Fprintf(&b, " code=%s", e.Code)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	} else if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Action is shorthand for e.Category.Action().
func (e *Error) Action() Action { return e.Category.Action() }

// UserText is the sentence shown in the toast or banner.
func (e *Error) UserText() string {
	switch e.Category {
	case CatAuth:
		if e.Status == http.StatusForbidden {
			return "Access denied. Check your API key's permissions."
		}
		return "Invalid API key. Check your configuration."
	case CatQuota:
		if e.Status == http.StatusPaymentRequired {
			return "Payment required. Your API billing may need attention."
		}
		return "API quota exceeded. Check your billing or usage limits."
	case CatRateLimit:
		return "Rate limited by the AI service. Clanker will try again on the next message."
	case CatServer:
		return fmt.Sprintf("AI service error (%d). This is usually temporary.", e.Status)
	case CatNetwork:
		if errors.Is(e.Err, errTimeout) {
			return "The AI service did not answer in time."
		}
		return "Cannot reach the AI service. Check your connection."
	case CatNotFound:
		return "Model or endpoint not found. Check your configuration."
	case CatBadOutput:
		return "The AI service sent a response Clanker could not read."
	default:
		if e.Message != "" {
			return "AI service error: " + e.Message
		}
		return fmt.Sprintf("AI service error (HTTP %d).", e.Status)
	}
}

var errTimeout = errors.New("request timed out")

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
// body. It understands OpenAI-shaped bodies ({"error": {"message", "type",
// "code"}}, code a string, number or null), xAI's ({"code": ..., "error":
// "..."}), Anthropic's ({"type": "error", "error": {"type", "message"}}),
// {"detail": ...} and {"message": ...} bodies, and plain text.
func ClassifyHTTP(status int, header http.Header, body []byte) *Error {
	e := &Error{Status: status}
	e.Code, e.Type, e.Message = errorFields(body)
	e.RetryAfter = retryAfter(header)

	quotaLike := quotaWords.MatchString(e.Message) || quotaCode.MatchString(e.Type) || quotaCode.MatchString(e.Code)
	switch {
	case status == http.StatusUnauthorized:
		e.Category = CatAuth
	case status == http.StatusPaymentRequired:
		e.Category = CatQuota
	case status == http.StatusForbidden && quotaLike:
		e.Category = CatQuota
	case status == http.StatusForbidden:
		e.Category = CatAuth
	case status == http.StatusTooManyRequests && quotaLike:
		e.Category = CatQuota
	case status == http.StatusTooManyRequests:
		e.Category = CatRateLimit
	case status == http.StatusBadRequest && quotaLike:
		// Anthropic reports an empty credit balance as a 400.
		e.Category = CatQuota
	case status == http.StatusNotFound:
		e.Category = CatNotFound
	case status >= 500 && status <= 599:
		e.Category = CatServer
	default:
		e.Category = CatUnknown
	}
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

// Scrub removes every occurrence of secret from the error's texts. The client calls it
// with the API key, because a misbehaving proxy may quote the key back in its error body
// and that text is shown to the user.
func (e *Error) Scrub(secret string) {
	if e == nil || len(secret) < 4 {
		return
	}
	e.Message = strings.ReplaceAll(e.Message, secret, "[key removed]")
	e.Code = strings.ReplaceAll(e.Code, secret, "[key removed]")
	e.Type = strings.ReplaceAll(e.Type, secret, "[key removed]")
}

// retryAfter reads retry-after-ms, then Retry-After as seconds or an HTTP
// date.
func retryAfter(h http.Header) time.Duration {
	if h == nil {
		return 0
	}
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}
