package native

import (
	"strings"
	"testing"
)

func TestTheOfflinePageMovesOntoWailsWindowsOrigin(t *testing.T) {
	got := offlinePageURL("http://wails.localhost", "wails://wails/?offline=", "The server could not be reached.")
	if want := "http://wails.localhost/?offline=The+server+could+not+be+reached."; got != want {
		t.Fatalf("offline URL %q; want %q", got, want)
	}
	if got := offlinePageURL("http://wails.localhost:34115/", "wails://wails/?offline=", "x&y"); got != "http://wails.localhost:34115/?offline=x%26y" {
		t.Fatalf("with a port and a trailing slash: %q", got)
	}
	if got := offlinePageURL("http://wails.localhost", "", "x"); got != "" {
		t.Fatalf("without an offline page the view must not navigate, got %q", got)
	}
}

func TestEveryWebErrorHasASentence(t *testing.T) {
	for status := int32(0); status <= 20; status++ {
		text := webErrorText(status)
		if text == "" || !(strings.HasSuffix(text, ".") || strings.HasSuffix(text, "?")) {
			t.Errorf("status %d: %q is not a sentence", status, text)
		}
	}
	if !strings.Contains(webErrorText(13), "offline") {
		t.Errorf("a name that does not resolve should suggest being offline: %q", webErrorText(13))
	}
}

// Only a network failure of the Messages page itself shows the offline page: not a
// download (WebView2 reports it as an aborted navigation while the page stays up), not a
// failed sign-in page or link, not a certificate or server error, not a cancelled load.
func TestWebView2ShowsTheOfflinePageOnlyForNetworkFailuresOfTheMessagesPage(t *testing.T) {
	const origin = "https://messages.google.com"
	const page = "https://messages.google.com/web/conversations"
	const boot = "http://wails.localhost/"
	for _, c := range []struct {
		name            string
		status          int32
		nav, shown      string
		pageUp, offline bool
	}{
		{"first load, no network", webErrorHostNameUnresolved, page, boot, false, true},
		{"first load, connection refused", webErrorCannotConnect, page, boot, false, true},
		{"first load, timed out", webErrorTimeout, page, boot, false, true},
		{"first load aborted by a dropping network", webErrorConnectionAborted, page, boot, false, true},
		{"reload after sleep, disconnected", webErrorDisconnected, page, page, true, true},
		{"reload, connection reset", webErrorConnectionReset, page, page, true, true},
		{"retry from the offline page, still unreachable", webErrorServerUnreachable, page, boot + "?offline=x", false, true},
		{"a download from the page (WebView2Feedback 4417, 5172)", webErrorConnectionAborted, page + "/attachment?id=1", page, true, false},
		{"around a handled new window (WebView2Feedback 5257)", webErrorConnectionAborted, page, page, true, false},
		{"a download from another origin", webErrorConnectionAborted, "https://lh3.googleusercontent.com/x", page, true, false},
		{"a sign-in page that fails", webErrorHostNameUnresolved, "https://accounts.google.com/signin", page, true, false},
		{"a link to another site", webErrorCannotConnect, "https://example.com/", page, true, false},
		{"the app's own page", webErrorCannotConnect, boot, boot, false, false},
		{"a cancelled navigation", webErrorCanceled, page, page, true, false},
		{"a certificate error", 2, page, boot, false, false},
		{"an invalid server response", 8, page, boot, false, false},
		{"credentials required", 17, page, boot, false, false},
		{"an unknown error", 0, page, boot, false, false},
		{"unknown navigation, the view shows Messages", webErrorDisconnected, "", page, true, true},
		{"unknown navigation, the view shows another site", webErrorDisconnected, "", "https://example.com/", false, false},
		{"plain http of the Messages host", webErrorCannotConnect, "http://messages.google.com/web", boot, false, false},
	} {
		if got := webView2ShowsOffline(c.status, c.nav, c.shown, origin, c.pageUp); got != c.offline {
			t.Errorf("%s: shows offline = %v, want %v", c.name, got, c.offline)
		}
	}
	if webView2ShowsOffline(webErrorCannotConnect, page, boot, "", false) {
		t.Error("with no Messages origin known, the offline page was shown")
	}
}
