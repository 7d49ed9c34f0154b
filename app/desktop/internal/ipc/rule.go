package ipc

import (
	"encoding/json"
	"log/slog"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// Message is what the platform knows about one message posted to Wails' handler.
type Message struct {
	// IsString says the body is a string. Wails and go-webview2 read every body as one;
	// anything else makes WKWebView's Wails handler raise an exception and go-webview2
	// end the process.
	IsString bool
	// Body is the string posted.
	Body string
	// FromMainView says it came from the main window's web view, not from a popup.
	FromMainView bool
	// MainFrame says it came from the top document, not from a frame inside it.
	MainFrame bool
	// Origin is the origin (or URL) of the document that posted it; "" when the
	// platform does not report the sender, and TopOrigin stands for it.
	Origin string
	// TopOrigin is the origin (or URL) of the document the view shows.
	TopOrigin string
}

// Rule says who may post what.
type Rule struct {
	// Remote is the Messages page's origin: it may post only the bridge's events.
	Remote string
	// Local are the origins of the app's own pages (Wails' bootstrap page: wails://wails
	// on Linux and macOS, http://wails.localhost on Windows): anything Wails understands.
	Local []string
	// Event is the Wails event name the bridge emits under.
	Event string
}

// Check returns "" when m may go on to Wails, or the reason it is dropped. The reason
// never carries the body or a path (a URL can name a conversation).
func (r Rule) Check(m Message) string {
	switch {
	case !m.IsString:
		return "the message is not a string"
	case !m.FromMainView:
		return "the message comes from a popup window"
	case !m.MainFrame:
		return "the message comes from a frame inside the page"
	}
	top := OriginOf(m.TopOrigin)
	sender := top
	if m.Origin != "" {
		sender = OriginOf(m.Origin)
		if top != "" && sender != top {
			return "the sender is not the document the window shows"
		}
	}
	if sender == "" {
		return "the sender has no usable origin"
	}
	for _, l := range r.Local {
		if sender == OriginOf(l) {
			return ""
		}
	}
	if sender != OriginOf(r.Remote) {
		return "the sender is neither the Messages page nor Clanker's own page"
	}
	if !r.isBridgeEvent(m.Body) {
		return "the Messages page may only send the bridge's events"
	}
	return ""
}

// isBridgeEvent reports whether body is exactly what the bridge posts: "EE" and a JSON
// object naming the bridge's event, whose data is one string (the event's JSON text).
// It decodes with encoding/json, as Wails' dispatcher does, so both read the same name.
func (r Rule) isBridgeEvent(body string) bool {
	rest, ok := strings.CutPrefix(body, "EE")
	if !ok || r.Event == "" {
		return false
	}
	var env struct {
		Name string            `json:"name"`
		Data []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal([]byte(rest), &env); err != nil || env.Name != r.Event || len(env.Data) != 1 {
		return false
	}
	var s string
	return json.Unmarshal(env.Data[0], &s) == nil
}

// Kind names what a Wails message would do, for the log: never its content.
func Kind(body string) string {
	switch {
	case body == "":
		return "empty"
	case strings.HasPrefix(body, "EE"):
		return "event"
	case strings.HasPrefix(body, "EX"):
		return "event-off"
	case strings.HasPrefix(body, "BO:"):
		return "open-url"
	case body == "drag", strings.HasPrefix(body, "resize:"):
		return "window-drag"
	case body == "runtime:ready", body == "DomReady", strings.HasPrefix(body, "wails:"):
		return "runtime"
	}
	switch body[0] {
	case 'Q':
		return "quit"
	case 'H':
		return "hide"
	case 'S':
		return "show"
	case 'W':
		return "window"
	case 'C', 'c':
		return "call"
	case 'L':
		return "log"
	case 'D':
		return "drag-and-drop"
	case 'B':
		return "browser"
	}
	return "unknown"
}

// OriginOf is scheme://host[:port] of a URL or an origin string, lower-cased, with
// http's and https' default ports left out; "" for anything without a host (about:,
// data:, garbage) or with credentials.
func OriginOf(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || u.Opaque != "" {
		return ""
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		return scheme + "://" + host + ":" + port
	}
	return scheme + "://" + host
}

// Guard applies a Rule and keeps count of what it dropped, logging each reason at most
// once per interval with the number held back in between: a hostile page can post
// thousands of messages.
type Guard struct {
	rule     Rule
	log      *slog.Logger
	dropped  atomic.Uint64
	throttle *Throttle
}

// NewGuard returns a guard for rule logging to log (nil: slog.Default()).
func NewGuard(rule Rule, log *slog.Logger) *Guard {
	if log == nil {
		log = slog.Default()
	}
	return &Guard{rule: rule, log: log, throttle: NewThrottle(30 * time.Second)}
}

// Allow reports whether m may go on to Wails; a dropped message is counted and logged.
func (g *Guard) Allow(m Message) bool {
	reason := g.rule.Check(m)
	if reason == "" {
		return true
	}
	g.dropped.Add(1)
	kind := "not a string"
	if m.IsString {
		kind = Kind(m.Body)
	}
	sender := OriginOf(m.Origin)
	if sender == "" {
		sender = OriginOf(m.TopOrigin)
	}
	if ok, held := g.throttle.Allow(reason, time.Now()); ok {
		g.log.Warn("page message dropped before Wails", "reason", reason, "kind", kind, "origin", sender,
			"dropped_total", g.dropped.Load(), "held_back_since_last", held)
	}
	return false
}

// Dropped is how many messages the guard has dropped.
func (g *Guard) Dropped() uint64 { return g.dropped.Load() }
