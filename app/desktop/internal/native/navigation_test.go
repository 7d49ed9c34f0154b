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
