package macos

import (
	"net/url"
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/app/desktop/menus"
	"github.com/clanker-desktop/clanker/app/engine"
)

const messages = "https://messages.google.com"

func TestOriginFormatsWebKitSecurityOriginsAsTheShellDoes(t *testing.T) {
	cases := []struct {
		protocol, host string
		port           int
		want           string
	}{
		{"https", "messages.google.com", 0, "https://messages.google.com"},
		{"https", "Messages.Google.com", 443, "https://messages.google.com"},
		{"https:", "messages.google.com", 8443, "https://messages.google.com:8443"},
		{"http", "127.0.0.1", 41234, "http://127.0.0.1:41234"},
		{"http", "localhost", 80, "http://localhost"},
		{"wails", "wails", 0, "wails://wails"},
		{"http", "::1", 9000, "http://[::1]:9000"},
		{"", "messages.google.com", 0, ""},
		{"https", "", 0, ""},
	}
	for _, c := range cases {
		if got := Origin(c.protocol, c.host, c.port); got != c.want {
			t.Errorf("Origin(%q, %q, %d) = %q, want %q", c.protocol, c.host, c.port, got, c.want)
		}
	}
}

func TestNormalOriginDropsDefaultPortsAndRefusesWhatIsNotAnOrigin(t *testing.T) {
	cases := map[string]string{
		"https://messages.google.com":       "https://messages.google.com",
		"https://messages.google.com:443":   "https://messages.google.com",
		"https://messages.google.com/":      "https://messages.google.com",
		"http://127.0.0.1:8080":             "http://127.0.0.1:8080",
		"wails://wails":                     "wails://wails",
		"https://messages.google.com/web":   "",
		"https://user@messages.google.com":  "",
		"https://messages.google.com:99999": "",
		"messages.google.com":               "",
		"":                                  "",
	}
	for in, want := range cases {
		if got := NormalOrigin(in); got != want {
			t.Errorf("NormalOrigin(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPermissionsGoOnlyToTheMessagesPageAndNeverIncludeDevices(t *testing.T) {
	page := Request{Origin: messages, FromMainView: true, MainFrame: true}
	frame := Request{Origin: messages, FromMainView: true, MainFrame: false}
	popup := Request{Origin: "https://accounts.google.com", FromMainView: false, MainFrame: true}
	popupSameOrigin := Request{Origin: messages, FromMainView: false, MainFrame: true}
	other := Request{Origin: "https://evil.example", FromMainView: true, MainFrame: false}

	if !FilePicker(page, messages) || !FilePicker(frame, messages) {
		t.Error("the Messages page cannot open the file picker to attach a picture")
	}
	for name, r := range map[string]Request{"a popup": popup, "a popup of the same origin": popupSameOrigin, "another origin": other} {
		if FilePicker(r, messages) {
			t.Errorf("%s may open the file picker", name)
		}
	}
	if FilePicker(page, "") {
		t.Error("without a Messages origin configured, the file picker is open to the page")
	}

	for _, kind := range []MediaKind{Camera, Microphone, CameraAndMicrophone} {
		for name, r := range map[string]Request{"the Messages page": page, "a popup": popup, "another origin": other} {
			d, why := MediaCapture(r, kind, messages)
			if d != Deny {
				t.Errorf("%s asking for the %s got %s, want deny", name, kind, d)
			}
			if !strings.Contains(why, kind.String()) {
				t.Errorf("the reason %q does not name the %s", why, kind)
			}
		}
	}
	if _, why := MediaCapture(other, Camera, messages); !strings.Contains(why, "not the Messages page") {
		t.Errorf("a stranger's request is logged as %q; the log should say it is not the Messages page", why)
	}
}

func TestPressIsAKeyDownThenAKeyUpOfReturnWithCarriageReturn(t *testing.T) {
	got := Press(Return)
	if len(got) != 2 {
		t.Fatalf("Press(Return) = %d events, want 2", len(got))
	}
	if got[0].Type != KeyDown || got[1].Type != KeyUp {
		t.Errorf("event types %d, %d; want key-down (%d) then key-up (%d)", got[0].Type, got[1].Type, KeyDown, KeyUp)
	}
	for _, e := range got {
		if e.KeyCode != 36 || e.Characters != "\r" || e.CharactersIgnoringModifiers != "\r" || e.Modifiers != 0 {
			t.Errorf("event %+v: want kVK_Return (36), characters \\r, no modifiers", e)
		}
	}
}

func TestTopLeftMatchesWailsWindowPositionOnAScreenBelowTheMenuBar(t *testing.T) {
	// A 1440x900 screen whose visible frame starts below a 25 px menu bar and beside
	// nothing; a 1100x800 window 40 px from the left and 30 px below the menu bar.
	screen := Rect{X: 0, Y: 0, Width: 1440, Height: 875}
	win := Rect{X: 40, Y: 875 - 30 - 800, Width: 1100, Height: 800}
	x, y, w, h := TopLeft(win, screen)
	if x != 40 || y != 30 || w != 1100 || h != 800 {
		t.Errorf("TopLeft = %d,%d %dx%d; want 40,30 1100x800", x, y, w, h)
	}
	// A second screen to the left of the main one, lower down.
	left := Rect{X: -1920, Y: -200, Width: 1920, Height: 1055}
	lwin := Rect{X: -1800, Y: -200 + 1055 - 100 - 600, Width: 700.4, Height: 600}
	x, y, w, h = TopLeft(lwin, left)
	if x != 120 || y != 100 || w != 700 || h != 600 {
		t.Errorf("TopLeft on a left screen = %d,%d %dx%d; want 120,100 700x600", x, y, w, h)
	}
}

func TestPopupSizeHonoursTheRequestWithinBounds(t *testing.T) {
	cases := []struct{ w, h, ww, wh float64 }{
		{0, 0, 520, 680},
		{500, 600, 500, 600},
		{50, 50, 300, 300},
		{10000, 10000, 1600, 1200},
		{-1, 700, 520, 700},
	}
	for _, c := range cases {
		if w, h := PopupSize(c.w, c.h); w != c.ww || h != c.wh {
			t.Errorf("PopupSize(%v, %v) = %v, %v; want %v, %v", c.w, c.h, w, h, c.ww, c.wh)
		}
	}
}

func TestShowsOfflineOnlyForRealNetworkFailures(t *testing.T) {
	if !ShowsOffline("NSURLErrorDomain", -1009, "https://messages.google.com/web") {
		t.Error("no internet connection (-1009) does not show the offline page")
	}
	if !ShowsOffline("NSURLErrorDomain", -1004, "http://127.0.0.1:9/") {
		t.Error("could not connect (-1004) does not show the offline page")
	}
	if ShowsOffline("NSURLErrorDomain", -999, "https://messages.google.com/web") {
		t.Error("a cancelled load shows the offline page")
	}
	if ShowsOffline("WebKitErrorDomain", 102, "https://messages.google.com/x.pdf") {
		t.Error("a load interrupted by a policy change shows the offline page")
	}
	if ShowsOffline("NSURLErrorDomain", -1100, "wails://wails/?offline=x") {
		t.Error("the offline page failing would show the offline page again")
	}
}

func TestOfflineURLCarriesTheErrorAsAQueryValue(t *testing.T) {
	got := OfflineURL("wails://wails/?offline=", "The Internet connection appears to be offline. & more")
	u, err := url.Parse(got)
	if err != nil {
		t.Fatal(err)
	}
	if v := u.Query().Get("offline"); v != "The Internet connection appears to be offline. & more" {
		t.Errorf("the offline page reads %q from %q", v, got)
	}
	if got := OfflineURL("wails://wails/?offline=", ""); !strings.HasSuffix(got, "unknown+error") {
		t.Errorf("an empty error gives %q, want a generic text", got)
	}
}

func TestContextItemsMatchTheLinuxMenuAndCheckTheCurrentMode(t *testing.T) {
	st := menus.ContextMenuState{Header: "Clanker · Bob: Available", Mode: string(engine.ModeAvailable), ModesEnabled: true}
	flat := Flatten(ContextItems(st))
	var labels []string
	for _, it := range flat {
		if it.Separator {
			labels = append(labels, "---")
			continue
		}
		labels = append(labels, strings.Repeat(">", it.Depth)+it.Label)
	}
	want := []string{"---", "Clanker · Bob: Available", "Deactivated", "Available", "Active", "---", "Settings...",
		"Diagnostics", ">Show conversation state", ">Show sanitised state", ">Deactivate in all conversations",
		">Purge conversation state", ">Purge all state data..."}
	if strings.Join(labels, "|") != strings.Join(want, "|") {
		t.Fatalf("menu\n%q\nwant\n%q", labels, want)
	}
	checked := 0
	for _, it := range flat {
		if it.Action == "mode" {
			if !it.Enabled {
				t.Errorf("mode item %s disabled while modes may change", it.Label)
			}
			if it.Checked {
				checked++
				if it.Target != string(engine.ModeAvailable) {
					t.Errorf("%s is checked, want Available", it.Label)
				}
			}
		}
		if it.Label == "Diagnostics" && !it.Opens {
			t.Error("Diagnostics does not open a submenu")
		}
		if it.Label == st.Header && (it.Action != "" || it.Enabled) {
			t.Error("the header line can be clicked")
		}
	}
	if checked != 1 {
		t.Errorf("%d mode items checked, want exactly 1", checked)
	}
}

func TestContextItemsShowTheReasonAndDisableModesWhenLocked(t *testing.T) {
	st := menus.ContextMenuState{Header: "", Mode: string(engine.ModeDeactivated), ModesEnabled: false, Reason: "Open a conversation first."}
	items := ContextItems(st)
	if items[1].Label != "Clanker" {
		t.Errorf("header %q, want Clanker when the state has none", items[1].Label)
	}
	sawReason := false
	for _, it := range Flatten(items) {
		if it.Action == "mode" && it.Enabled {
			t.Errorf("mode item %s enabled while the mode is locked", it.Label)
		}
		if it.Label == st.Reason {
			sawReason = true
			if it.Action != "" {
				t.Error("the reason line can be clicked")
			}
		}
	}
	if !sawReason {
		t.Error("the reason the modes are locked is not shown")
	}
	// Every clickable action is one the shared Actions understand.
	known := map[string]bool{"mode": true, "settings": true, "diag-state": true, "diag-sanitised": true,
		"deactivate-all": true, "purge-conversation": true, "purge-all": true}
	for _, it := range Flatten(items) {
		if it.Action != "" && !known[it.Action] {
			t.Errorf("item %s reports unknown action %q", it.Label, it.Action)
		}
	}
}

func TestKeepWebKitItemsDropsNavigationAndTidiesSeparators(t *testing.T) {
	ids := []string{
		"WKMenuItemIdentifierGoBack", "WKMenuItemIdentifierReload", "",
		"WKMenuItemIdentifierCopy", "WKMenuItemIdentifierPaste", "",
		"WKMenuItemIdentifierOpenLinkInNewWindow", "WKMenuItemIdentifierDownloadLinkedFile", "",
		"WKMenuItemIdentifierSpellingMenu", "", "WKMenuItemIdentifierInspectElement",
	}
	seps := []bool{false, false, true, false, false, true, false, false, true, false, true, false}
	keep := KeepWebKitItems(ids, seps)
	var kept []string
	for i, k := range keep {
		if k {
			if seps[i] {
				kept = append(kept, "---")
			} else {
				kept = append(kept, strings.TrimPrefix(ids[i], "WKMenuItemIdentifier"))
			}
		}
	}
	want := "Copy|Paste|---|SpellingMenu"
	if strings.Join(kept, "|") != want {
		t.Errorf("kept %q, want %q", strings.Join(kept, "|"), want)
	}
	if k := KeepWebKitItems([]string{"", "WKMenuItemIdentifierReload", ""}, []bool{true, false, true}); k[0] || k[1] || k[2] {
		t.Errorf("a menu of only dropped items and separators keeps %v, want nothing", k)
	}
	if k := KeepWebKitItems([]string{"Custom"}, []bool{false}); !k[0] {
		t.Error("an item WebKit does not name is dropped")
	}
}

func TestNewNotificationIsPlainTextBoundedAndGroupedByKind(t *testing.T) {
	msg := NewNotification("New message from Bob\n<b>", "line one\nline <two> & \x07three", false, "run1", 3)
	if msg.Title != "New message from Bob <b>" {
		t.Errorf("title %q: want one line, markup left as text", msg.Title)
	}
	if msg.Body != "line one\nline <two> & three" {
		t.Errorf("body %q: want line breaks kept, control characters gone, nothing escaped", msg.Body)
	}
	if msg.ThreadID != ThreadMessages || msg.Sound {
		t.Errorf("a message notification: thread %q sound %v, want %q and silent", msg.ThreadID, msg.Sound, ThreadMessages)
	}
	if msg.Identifier != "clanker.run1.3" {
		t.Errorf("identifier %q", msg.Identifier)
	}
	next := NewNotification("x", "y", false, "run1", 4)
	if next.Identifier == msg.Identifier {
		t.Error("two notifications of one run share an identifier: the second would replace the first")
	}
	errN := NewNotification("", strings.Repeat("é", 1000), true, "run1", 5)
	if errN.Title != "Clanker" || errN.ThreadID != ThreadErrors || !errN.Sound {
		t.Errorf("an error notification: %+v", errN)
	}
	if n := len([]rune(errN.Body)); n != maxBodyRunes || !strings.HasSuffix(errN.Body, "…") {
		t.Errorf("a long body is %d runes, want %d ending in …", n, maxBodyRunes)
	}
	bad := NewNotification("a\xffb", "", false, "r", 1)
	if bad.Title != "ab" {
		t.Errorf("invalid UTF-8 in the title gives %q", bad.Title)
	}
}

// The Enter goes by the real key press's path when the window has the keyboard, by the
// view's keyDown: (which checks nothing about the window) otherwise, and there is always
// a second route to try when the page did not get it; a hidden window is never brought
// forward except transparently, as the last resort.
func TestKeyRoutesFollowTheWindowsStateAndAlwaysHaveAFallback(t *testing.T) {
	for _, c := range []struct {
		visible, key bool
		want         []KeyRoute
	}{
		{true, true, []KeyRoute{RouteWindow, RouteView}},
		{true, false, []KeyRoute{RouteView, RouteWindow}},
		{false, false, []KeyRoute{RouteView, RouteRevealed}},
		{false, true, []KeyRoute{RouteView, RouteRevealed}},
	} {
		got := KeyRoutes(c.visible, c.key)
		if len(got) != len(c.want) {
			t.Fatalf("visible=%v key=%v: routes %v, want %v", c.visible, c.key, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("visible=%v key=%v: route %d is %s, want %s", c.visible, c.key, i, got[i], c.want[i])
			}
		}
		if c.visible {
			for _, r := range got {
				if r == RouteRevealed {
					t.Errorf("visible=%v key=%v: a shown window was to be ordered in again", c.visible, c.key)
				}
			}
		}
	}
	for _, r := range []KeyRoute{RouteView, RouteWindow, RouteRevealed, KeyRoute(9)} {
		if r.String() == "" {
			t.Errorf("route %d has no name for the log", r)
		}
	}
	if !strings.Contains(EnterCounterScript, "isTrusted") || !strings.Contains(EnterCounterScript, "'Enter'") {
		t.Error("the Enter counter does not count only trusted Enter keydowns")
	}
}
