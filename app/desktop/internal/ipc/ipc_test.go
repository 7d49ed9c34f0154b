package ipc

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

const messages = "https://messages.google.com"

var rule = Rule{Remote: messages, Local: []string{"wails://wails", "http://wails.localhost"}, Event: "clanker:event"}

// bridgeEvent is a message exactly as the bridge posts it (inject/src/transport.js).
const bridgeEvent = `EE{"name":"clanker:event","data":["{\"v\":1,\"type\":\"ready\"}"]}`

// fromPage is the bridge's event as each platform reports it: WKWebView with the frame's
// origin, WebView2 with the posting document and the one shown, WebKitGTK with only the
// document shown.
var fromPage = map[string]Message{
	"macOS":   {IsString: true, Body: bridgeEvent, FromMainView: true, MainFrame: true, Origin: messages},
	"Windows": {IsString: true, Body: bridgeEvent, FromMainView: true, MainFrame: true, Origin: messages + "/web/conversations/1", TopOrigin: messages + "/web/conversations/1"},
	"Linux":   {IsString: true, Body: bridgeEvent, FromMainView: true, MainFrame: true, TopOrigin: messages + "/web/conversations/1"},
}

func TestTheBridgesEventsAndClankersOwnPagePass(t *testing.T) {
	for system, m := range fromPage {
		if r := rule.Check(m); r != "" {
			t.Errorf("%s: the bridge's event was dropped: %s", system, r)
		}
	}
	explicitPort := fromPage["macOS"]
	explicitPort.Origin = "https://messages.google.com:443"
	if r := rule.Check(explicitPort); r != "" {
		t.Errorf("the Messages origin with its default port written out was dropped: %s", r)
	}
	// The bootstrap page is Clanker's own: Wails' runtime messages and its boot event.
	for _, body := range []string{"runtime:ready", `EE{"name":"clanker:boot","data":["{}"]}`, "drag", "Q", "BO:https://x.test"} {
		for _, top := range []string{"wails://wails/", "wails://wails/?offline=x", "http://wails.localhost/"} {
			m := Message{IsString: true, Body: body, FromMainView: true, MainFrame: true, TopOrigin: top}
			if r := rule.Check(m); r != "" {
				t.Errorf("the bootstrap page's %q at %s was dropped: %s", body, top, r)
			}
		}
	}
}

// The Messages page, and anything else, cannot command the app through Wails: quit,
// hide, show, open URLs, move the window, switch a Go listener off, call methods, or
// post events under another name or shape than the bridge's.
func TestEverythingElseFromTheRemotePageIsDropped(t *testing.T) {
	bodies := map[string]string{
		"quit":                             "Q",
		"hide":                             "H",
		"show":                             "S",
		"open a URL in the browser":        "BO:https://evil.example",
		"window operation":                 "WC",
		"call a bound method":              `C{"name":"x"}`,
		"secure call":                      `c{"name":"x"}`,
		"log":                              "Linfo",
		"drag the window":                  "drag",
		"resize the window":                "resize:se-resize",
		"fake DOM ready":                   "DomReady",
		"runtime ready":                    "runtime:ready",
		"switch the bridge's listener off": "EXclanker:event",
		"the bootstrap page's event":       `EE{"name":"clanker:boot","data":["{}"]}`,
		"another event name":               `EE{"name":"clanker:event2","data":["{}"]}`,
		"data that is not one string":      `EE{"name":"clanker:event","data":[{"v":1}]}`,
		"two data items":                   `EE{"name":"clanker:event","data":["a","b"]}`,
		"no data":                          `EE{"name":"clanker:event"}`,
		"not JSON":                         `EE{"name":"clanker:event",`,
		"trailing text":                    bridgeEvent + "Q",
		"empty string":                     "",
	}
	for system, ok := range fromPage {
		for name, body := range bodies {
			m := ok
			m.Body = body
			if r := rule.Check(m); r == "" {
				t.Errorf("%s: %s (%q) passed to Wails; want it dropped", system, name, body)
			} else if strings.Contains(r, body) && body != "" {
				t.Errorf("%s: the reason %q repeats the message", system, r)
			}
		}
	}
}

func TestSendersOtherThanTheMessagesPageAndClankerAreDropped(t *testing.T) {
	ok := fromPage["Windows"]
	cases := map[string]func(m *Message){
		"an object body (crashes Wails)": func(m *Message) { m.IsString = false },
		"a popup":                        func(m *Message) { m.FromMainView = false },
		"an iframe":                      func(m *Message) { m.MainFrame = false },
		"another origin":                 func(m *Message) { m.Origin, m.TopOrigin = "https://evil.example/", "https://evil.example/" },
		"a look-alike origin": func(m *Message) {
			m.Origin, m.TopOrigin = "https://messages.google.com.evil.example/", "https://messages.google.com.evil.example/"
		},
		"plain http of the same host": func(m *Message) { m.Origin, m.TopOrigin = "http://messages.google.com/", "http://messages.google.com/" },
		"another port of Wails' host": func(m *Message) {
			m.Origin, m.TopOrigin = "http://wails.localhost:8080/", "http://wails.localhost:8080/"
		},
		"credentials in the URL": func(m *Message) {
			m.Origin, m.TopOrigin = "https://u:p@messages.google.com/", "https://u:p@messages.google.com/"
		},
		"about:blank":                          func(m *Message) { m.Origin, m.TopOrigin = "about:blank", "about:blank" },
		"a data: document":                     func(m *Message) { m.Origin = "data:text/html,hi" },
		"no origin at all":                     func(m *Message) { m.Origin, m.TopOrigin = "", "" },
		"a sender that is not the shown page":  func(m *Message) { m.Origin = "https://evil.example/" },
		"the bootstrap origin inside Messages": func(m *Message) { m.Origin = "http://wails.localhost/" },
	}
	for name, mutate := range cases {
		m := ok
		mutate(&m)
		if r := rule.Check(m); r == "" {
			t.Errorf("%s: passed to Wails, want it dropped", name)
		}
	}
	if r := (Rule{Remote: messages}).Check(fromPage["macOS"]); r == "" {
		t.Error("with no event name configured the bridge's event passed; want nothing from the remote page")
	}
}

func TestReasonsNeverCarryThePathOrTheBody(t *testing.T) {
	m := Message{IsString: true, Body: "BO:https://SECRET.example", FromMainView: true, MainFrame: true,
		TopOrigin: "https://messages.google.com/web/conversations/SECRET"}
	r := rule.Check(m)
	if r == "" || strings.Contains(r, "SECRET") {
		t.Fatalf("reason %q; want one without the conversation path or the message", r)
	}
}

func TestKindNamesWhatAMessageWouldDo(t *testing.T) {
	for body, want := range map[string]string{
		"Q": "quit", "H": "hide", "S": "show", "BO:https://x": "open-url", "WC": "window",
		bridgeEvent: "event", "EXx": "event-off", `C{}`: "call", "drag": "window-drag", "": "empty", "?": "unknown",
	} {
		if got := Kind(body); got != want {
			t.Errorf("Kind(%q) = %q, want %q", body, got, want)
		}
	}
}

func TestOriginOfNormalisesURLsAndOrigins(t *testing.T) {
	for in, want := range map[string]string{
		"https://Messages.Google.com/web/conversations/1": messages,
		"https://messages.google.com:443":                 messages,
		"http://127.0.0.1:8080/app/":                      "http://127.0.0.1:8080",
		"http://localhost:80/":                            "http://localhost",
		"wails://wails/?offline=x":                        "wails://wails",
		"http://[::1]:9/":                                 "http://[::1]:9",
		"about:blank":                                     "",
		"data:text/html,x":                                "",
		"https://u:p@x.test/":                             "",
		"":                                                "",
		"::garbage":                                       "",
	} {
		if got := OriginOf(in); got != want {
			t.Errorf("OriginOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// A dropped message is counted and logged; a page posting many is logged once per reason
// in a while, with the number held back.
func TestTheGuardCountsEveryDropAndLogsThemThrottled(t *testing.T) {
	var buf bytes.Buffer
	g := NewGuard(rule, slog.New(slog.NewTextHandler(&buf, nil)))
	if !g.Allow(fromPage["Linux"]) || g.Dropped() != 0 {
		t.Fatal("the bridge's event was dropped or counted")
	}
	quit := fromPage["Linux"]
	quit.Body = "Q"
	for i := 0; i < 50; i++ {
		if g.Allow(quit) {
			t.Fatal("a quit from the Messages page passed")
		}
	}
	if g.Dropped() != 50 {
		t.Fatalf("dropped %d, want 50", g.Dropped())
	}
	if n := strings.Count(buf.String(), "page message dropped"); n != 1 {
		t.Fatalf("%d log lines for 50 drops within the interval, want 1:\n%s", n, buf.String())
	}
	if !strings.Contains(buf.String(), "kind=quit") || !strings.Contains(buf.String(), "origin="+messages) {
		t.Fatalf("the log line does not say what was dropped and from where:\n%s", buf.String())
	}
}
func TestThrottleLetsOneLinePerKeyThroughAndCountsTheRest(t *testing.T) {
	start := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	th := NewThrottle(30 * time.Second)
	if ok, held := th.Allow("not a string", start); !ok || held != 0 {
		t.Fatalf("first line: ok=%v held=%d, want it through", ok, held)
	}
	for i := 1; i <= 5; i++ {
		if ok, _ := th.Allow("not a string", start.Add(time.Duration(i)*time.Second)); ok {
			t.Fatalf("line %d within the interval was let through", i)
		}
	}
	if ok, _ := th.Allow("from a popup", start.Add(2*time.Second)); !ok {
		t.Error("another reason was held back by the first one's interval")
	}
	ok, held := th.Allow("not a string", start.Add(31*time.Second))
	if !ok || held != 5 {
		t.Errorf("after the interval: ok=%v held=%d, want through with 5 held back", ok, held)
	}
	if ok, held := th.Allow("not a string", start.Add(62*time.Second)); !ok || held != 0 {
		t.Errorf("the count did not restart: ok=%v held=%d", ok, held)
	}
}
