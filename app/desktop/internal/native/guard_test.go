package native

import (
	"testing"

	"github.com/clanker-desktop/clanker/app/desktop/internal/ipc"
)

// The Windows and macOS views turn what WebView2 and WKWebView report into the one rule's
// message: the Messages page can post the bridge's events and nothing else (no quit, no
// URL opened in the browser), and Clanker's own page anything Wails understands.
func TestTheWindowsAndMacOSGuardsLetTheMessagesPagePostOnlyBridgeEvents(t *testing.T) {
	const msgs = "https://messages.google.com/web/conversations/123"
	const event = `EE{"name":"clanker:event","data":["{}"]}`
	windowsRule := ipc.Rule{Remote: "https://messages.google.com", Local: []string{"http://wails.localhost"}, Event: "clanker:event"}
	macRule := ipc.Rule{Remote: "https://messages.google.com", Local: []string{bootstrapOrigin}, Event: "clanker:event"}
	type system struct {
		rule    ipc.Rule
		page    func(isString bool, body string) ipc.Message
		own     func(body string) ipc.Message
		popup   func(body string) ipc.Message
		iframe  func(body string) ipc.Message
		another func(body string) ipc.Message
	}
	systems := map[string]system{
		"Windows": {
			rule: windowsRule,
			page: func(isString bool, body string) ipc.Message { return webView2Message(isString, body, msgs, msgs) },
			own: func(body string) ipc.Message {
				return webView2Message(true, body, "http://wails.localhost/", "http://wails.localhost/")
			},
			popup:  nil, // popups are web views of their own, without Wails' handler
			iframe: func(body string) ipc.Message { return webView2Message(true, body, msgs, "https://ads.example/frame") },
			another: func(body string) ipc.Message {
				return webView2Message(true, body, "https://evil.test/", "https://evil.test/")
			},
		},
		"macOS": {
			rule: macRule,
			page: func(isString bool, body string) ipc.Message {
				return webKitMessage(isString, true, true, "https", "messages.google.com", 0, body)
			},
			own: func(body string) ipc.Message { return webKitMessage(true, true, true, "wails", "wails", 0, body) },
			popup: func(body string) ipc.Message {
				return webKitMessage(true, false, true, "https", "accounts.google.com", 0, body)
			},
			iframe: func(body string) ipc.Message {
				return webKitMessage(true, true, false, "https", "messages.google.com", 0, body)
			},
			another: func(body string) ipc.Message { return webKitMessage(true, true, true, "https", "evil.test", 443, body) },
		},
	}
	for name, sys := range systems {
		if r := sys.rule.Check(sys.page(true, event)); r != "" {
			t.Errorf("%s: the bridge's event from the Messages page was dropped: %s", name, r)
		}
		for _, body := range []string{"Q", "BO:https://evil.test/", "H", "S", "WC", "EXclanker:event", `C{"name":"x"}`} {
			if r := sys.rule.Check(sys.page(true, body)); r == "" {
				t.Errorf("%s: the Messages page's %q passed to Wails; want it dropped", name, body)
			}
			if r := sys.rule.Check(sys.own(body)); r != "" {
				t.Errorf("%s: Clanker's own page's %q was dropped: %s", name, body, r)
			}
		}
		if r := sys.rule.Check(sys.page(false, "")); r == "" {
			t.Errorf("%s: an object posted by the Messages page passed (it would end the app)", name)
		}
		for what, m := range map[string]func(string) ipc.Message{"a popup": sys.popup, "an iframe": sys.iframe, "another site": sys.another} {
			if m == nil {
				continue
			}
			if r := sys.rule.Check(m(event)); r == "" {
				t.Errorf("%s: %s posting the bridge's event passed; want it dropped", name, what)
			}
		}
	}
}

func TestTheProcessGuardCountsWhatItDropsAndLetsNothingThroughBeforeSetup(t *testing.T) {
	pageGuard.Store(nil)
	if allowPageMessage(webView2Message(true, "EE{}", "http://wails.localhost/", "http://wails.localhost/")) {
		t.Fatal("a message passed before any guard was set up")
	}
	before := DroppedPageMessages()
	newPageGuard(Config{Origin: "https://messages.google.com", EventName: "clanker:event"}, "http://wails.localhost")
	t.Cleanup(func() { pageGuard.Store(nil) })
	if before != 0 || DroppedPageMessages() != 0 {
		t.Fatalf("dropped %d before and %d after a fresh guard, want 0", before, DroppedPageMessages())
	}
	for _, body := range []string{"Q", "BO:https://evil.test/"} {
		if allowPageMessage(webView2Message(true, body, "https://messages.google.com/web", "https://messages.google.com/web")) {
			t.Errorf("%q from the Messages page passed", body)
		}
	}
	if n := DroppedPageMessages(); n != 2 {
		t.Fatalf("dropped %d, want 2", n)
	}
}

func TestPermissionsAreGrantedOnlyToMessagesAndOnlyWhatItNeeds(t *testing.T) {
	const origin = "https://messages.google.com"
	const page = "https://messages.google.com/web/conversations/1"
	for _, c := range []struct {
		kind          permissionKind
		url           string
		userInitiated bool
		want          permissionState
	}{
		{permMicrophone, page, true, permAllow},
		{permClipboardRead, page, true, permAllow},
		{permMicrophone, page, false, permDeny},
		{permClipboardRead, page, false, permDeny},
		{permNotifications, page, true, permDeny},
		{permCamera, page, true, permDeny},
		{permGeolocation, page, true, permDeny},
		{permMultipleDownload, page, true, permDeny},
		{permFileReadWrite, page, true, permDeny},
		{permWindowManagement, page, true, permDeny},
		{permUnknown, page, true, permDeny},
		{permissionKind(99), page, true, permDeny},
		{permMicrophone, "https://accounts.google.com/signin", true, permDeny},
		{permMicrophone, "http://messages.google.com/web", true, permDeny},
		{permClipboardRead, "https://evil.test/", true, permDeny},
		{permMicrophone, "", true, permDeny},
	} {
		if got := decidePermission(c.kind, c.url, c.userInitiated, origin); got != c.want {
			t.Errorf("%s for %s (user %v) = %s; want %s", c.kind, c.url, c.userInitiated, got, c.want)
		}
	}
	if got := decidePermission(permMicrophone, page, true, ""); got != permDeny {
		t.Errorf("with no Messages origin known, got %s; want deny", got)
	}
}

// The Windows view logs where a refused permission request or a failed navigation came
// from by its origin only: a Messages URL names the conversation.
func TestOriginLabelsNeverCarryThePath(t *testing.T) {
	for in, want := range map[string]string{
		"https://messages.google.com/web/conversations/SECRET": "https://messages.google.com",
		"https://Accounts.Google.com:443/signin?x=SECRET":      "https://accounts.google.com:443",
		"data:text/html,SECRET":                                "a data: document",
		"about:blank":                                          "a about: document",
		"":                                                     "an unknown origin",
		"https://u:SECRET@x.test/":                             "an unknown origin",
	} {
		if got := originLabel(in); got != want {
			t.Errorf("originLabel(%q) = %q, want %q", in, got, want)
		}
	}
}
