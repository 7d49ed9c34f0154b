package native

import (
	"strings"
	"testing"
)

func TestWebMessagesPassOnlyAsStringsFromTheAllowedOrigins(t *testing.T) {
	g := messageGuard{origins: []string{"https://messages.google.com", "http://wails.localhost"}}
	const msgs = "https://messages.google.com/web/conversations/123"
	pass := []struct{ top, sender string }{
		{msgs, msgs},
		{"https://Messages.Google.com/web", "https://messages.google.com/web/x"},
		{"http://wails.localhost/", "http://wails.localhost/"},
	}
	for _, c := range pass {
		if err := g.check(true, c.top, c.sender); err != nil {
			t.Errorf("string from %s in %s dropped (%v); want it passed", c.sender, c.top, err)
		}
	}
	drop := []struct {
		name        string
		isString    bool
		top, sender string
		reason      string
	}{
		{"an object posted by the Messages page itself", false, msgs, msgs, "not a string"},
		{"a page the window was navigated to", true, "https://evil.test/", "https://evil.test/", "evil.test"},
		{"an iframe of another origin inside Messages", true, msgs, "https://ads.example/frame", "ads.example"},
		{"the Messages origin over plain http", true, "http://messages.google.com/", "http://messages.google.com/", "http://messages.google.com"},
		{"a look-alike host", true, "https://messages.google.com.evil.test/", "https://messages.google.com.evil.test/", "evil.test"},
		{"another port on the Wails host", true, "http://wails.localhost:8080/", "http://wails.localhost:8080/", "8080"},
		{"about:blank", true, "about:blank", "about:blank", "about: document"},
		{"a data: URL", true, msgs, "data:text/html,hi", "data: document"},
		{"credentials in the URL", true, "https://u:p@messages.google.com/", "https://u:p@messages.google.com/", "unknown origin"},
		{"an empty source", true, "", "", "unknown origin"},
	}
	for _, c := range drop {
		err := g.check(c.isString, c.top, c.sender)
		if err == nil {
			t.Errorf("%s: passed; want it dropped", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.reason) {
			t.Errorf("%s: reason %q; want it to mention %q", c.name, err, c.reason)
		}
	}
}

func TestDroppedMessageReasonsNeverCarryThePath(t *testing.T) {
	g := messageGuard{origins: []string{"https://messages.google.com"}}
	err := g.check(false, "https://messages.google.com/web/conversations/SECRET", "https://messages.google.com/web/conversations/SECRET")
	if err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Fatalf("reason %v; want one without the conversation path", err)
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
