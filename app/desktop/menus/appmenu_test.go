package menus

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/wailsapp/wails/v2/pkg/menu"
	"github.com/wailsapp/wails/v2/pkg/menu/keys"
)

// recController is a Controller that records calls and reports a set Status.
type recController struct {
	mu    sync.Mutex
	st    Status
	calls []string
}

func (c *recController) rec(s string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, s)
	return nil
}

func (c *recController) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st
}
func (c *recController) OnStatus(func(Status)) func() { return func() {} }
func (c *recController) SetMode(m engine.Mode) error  { return c.rec("SetMode " + string(m)) }
func (c *recController) DeactivateAll() error         { return c.rec("DeactivateAll") }
func (c *recController) PurgeConversation() error     { return c.rec("PurgeConversation") }
func (c *recController) PurgeAll() error              { return c.rec("PurgeAll") }
func (c *recController) OpenSettings() error          { return c.rec("OpenSettings") }
func (c *recController) OpenUpdate() error            { return c.rec("OpenUpdate") }
func (c *recController) ShowWindow() error            { return c.rec("ShowWindow") }
func (c *recController) HideWindow() error            { return c.rec("HideWindow") }
func (c *recController) Quit() error                  { return c.rec("Quit") }
func (c *recController) Diagnostics(san bool) (string, error) {
	return "state", c.rec(fmt.Sprint("Diagnostics ", san))
}

func (c *recController) got() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.calls...)
}

var alice = Status{ConversationID: "c-1", ConversationName: "Alice", Mode: engine.ModeAvailable, WindowVisible: true}

func newTestAppMenu(t *testing.T, st Status, goos string) (*AppMenu, *recController, *[]string) {
	t.Helper()
	return newTestAppMenuTray(t, st, goos, false)
}

func newTestAppMenuTray(t *testing.T, st Status, goos string, noTray bool) (*AppMenu, *recController, *[]string) {
	t.Helper()
	ctrl := &recController{st: st}
	var win []string
	var mu sync.Mutex
	note := func(s string) func() error {
		return func() error { mu.Lock(); win = append(win, s); mu.Unlock(); return nil }
	}
	m := NewAppMenu(MenuOptions{
		Controller: ctrl,
		NoTray:     noTray,
		Confirm:    func(string, string) bool { return true },
		ShowText:   func(title, text string) { _ = ctrl.rec("ShowText " + title) },
	}, WindowActions{
		Reload: note("Reload"), ZoomIn: note("ZoomIn"), ZoomOut: note("ZoomOut"), ZoomReset: note("ZoomReset"),
		Edit:  func(c EditCommand) error { return note("Edit " + string(c))() },
		About: func() { _ = note("About")() },
	}, "1.2.3", goos, st, nil)
	return m, ctrl, &win
}

// item finds the item with label in the submenu named top.
func item(t *testing.T, m *AppMenu, top, label string) *menu.MenuItem {
	t.Helper()
	for _, sub := range m.Menu().Items {
		if sub.Label != top || sub.SubMenu == nil {
			continue
		}
		var walk func(items []*menu.MenuItem) *menu.MenuItem
		walk = func(items []*menu.MenuItem) *menu.MenuItem {
			for _, it := range items {
				if it.Label == label {
					return it
				}
				if it.SubMenu != nil {
					if f := walk(it.SubMenu.Items); f != nil {
						return f
					}
				}
			}
			return nil
		}
		if f := walk(sub.SubMenu.Items); f != nil {
			return f
		}
	}
	t.Fatalf("menu %q has no item %q", top, label)
	return nil
}

func labels(items []*menu.MenuItem) []string {
	var out []string
	for _, it := range items {
		switch {
		case it.Type == menu.SeparatorType:
			out = append(out, "---")
		case it.Hidden:
		default:
			out = append(out, it.Label)
		}
	}
	return out
}

func TestAppMenuHasTheTrayItemsThenEditAndViewWithTheirShortcuts(t *testing.T) {
	m, _, _ := newTestAppMenu(t, alice, "linux")
	var tops []string
	for _, it := range m.Menu().Items {
		tops = append(tops, it.Label)
	}
	if strings.Join(tops, ",") != "Clanker,Edit,View" {
		t.Fatalf("menu bar %q; want Clanker, Edit, View", tops)
	}
	want := "Alice: Available|Deactivated|Available|Active|---|Settings...|Diagnostics|---|Hide window|About Clanker|---|Quit"
	if got := strings.Join(labels(m.Menu().Items[0].SubMenu.Items), "|"); got != want {
		t.Fatalf("Clanker menu:\n got %s\nwant %s", got, want)
	}
	diag := item(t, m, "Clanker", "Diagnostics")
	wantDiag := "Show conversation state|Show sanitised state|Deactivate in all conversations|Purge conversation state|Purge all state data..."
	if got := strings.Join(labels(diag.SubMenu.Items), "|"); got != wantDiag {
		t.Fatalf("Diagnostics submenu:\n got %s\nwant %s", got, wantDiag)
	}
	if got := strings.Join(labels(m.Menu().Items[1].SubMenu.Items), "|"); got != "Undo|Redo|---|Cut|Copy|Paste|---|Select All" {
		t.Fatalf("Edit menu on Linux: %s", got)
	}
	accels := map[[2]string]string{
		{"Clanker", "Settings..."}: "CmdOrCtrl+,",
		{"Clanker", "Quit"}:        "CmdOrCtrl+q",
		{"View", "Reload"}:         "CmdOrCtrl+r",
		{"View", "Zoom In"}:        "CmdOrCtrl+=",
		{"View", "Zoom Out"}:       "CmdOrCtrl+-",
		{"View", "Actual Size"}:    "CmdOrCtrl+0",
	}
	for where, want := range accels {
		it := item(t, m, where[0], where[1])
		if it.Accelerator == nil {
			t.Errorf("%s > %s has no accelerator; want %s", where[0], where[1], want)
			continue
		}
		if got := keys.Stringify(it.Accelerator, "linux"); !strings.EqualFold(strings.ReplaceAll(got, "Ctrl", "CmdOrCtrl"), want) {
			t.Errorf("%s > %s accelerator %q; want %s", where[0], where[1], got, want)
		}
		if it.Accelerator.Modifiers[0] != keys.CmdOrCtrlKey {
			t.Errorf("%s > %s modifier %v; want CmdOrCtrl", where[0], where[1], it.Accelerator.Modifiers)
		}
	}
}

func TestAppMenuOnMacOSUsesTheSystemEditRole(t *testing.T) {
	m, _, _ := newTestAppMenu(t, alice, "darwin")
	edit := m.Menu().Items[1]
	if edit.Role != menu.EditMenuRole {
		t.Fatalf("second menu on macOS has role %v label %q; want the Edit role", edit.Role, edit.Label)
	}
}

func TestAppMenuModeItemsAreRadioItemsFollowingTheStatus(t *testing.T) {
	m, _, _ := newTestAppMenu(t, alice, "linux")
	check := func(want engine.Mode) {
		t.Helper()
		for _, mode := range Modes {
			it := item(t, m, "Clanker", ModeLabel(mode))
			if it.Type != menu.RadioType {
				t.Fatalf("%s is a %v item; want a radio item", ModeLabel(mode), it.Type)
			}
			if it.Checked != (mode == want) || it.Disabled {
				t.Fatalf("%s checked=%v disabled=%v; want checked=%v and enabled", ModeLabel(mode), it.Checked, it.Disabled, mode == want)
			}
		}
	}
	check(engine.ModeAvailable)
	st := alice
	st.Mode, st.WindowVisible = engine.ModeActive, false
	m.Update(st)
	check(engine.ModeActive)
	if h := m.Menu().Items[0].SubMenu.Items[0].Label; h != "Alice: Active" {
		t.Fatalf("conversation line %q after the change to Active; want %q", h, "Alice: Active")
	}
	item(t, m, "Clanker", "Show window") // the window is hidden now
}

func TestAppMenuModeItemsAreDisabledWithTheReasonShown(t *testing.T) {
	cases := []struct {
		st     Status
		reason string
	}{
		{Status{ConversationID: "c-2", ConversationName: "Bank", Mode: engine.ModeDeactivated, ModeLocked: true, LockReason: LockAutomated}, "Automated conversation: Clanker stays out"},
		{Status{ConversationID: "c-3", Mode: engine.ModeUninitialized, ModeLocked: true, LockReason: LockNoSettings}, "Finish the settings to choose a mode"},
		{Status{Mode: engine.ModeDeactivated}, "Open a conversation to choose a mode"},
	}
	for _, c := range cases {
		m, _, _ := newTestAppMenu(t, c.st, "linux")
		for _, mode := range Modes {
			if it := item(t, m, "Clanker", ModeLabel(mode)); !it.Disabled {
				t.Errorf("status %+v: %s is enabled; want disabled", c.st, ModeLabel(mode))
			}
		}
		r := item(t, m, "Clanker", c.reason)
		if r.Hidden || !r.Disabled {
			t.Errorf("status %+v: reason line hidden=%v disabled=%v; want shown and disabled", c.st, r.Hidden, r.Disabled)
		}
	}
	// Unlocked again: the reason line goes away.
	m, _, _ := newTestAppMenu(t, cases[0].st, "linux")
	m.Update(alice)
	for _, it := range m.Menu().Items[0].SubMenu.Items {
		if it.Label == cases[0].reason && !it.Hidden {
			t.Fatalf("reason line still shown after the conversation became changeable")
		}
	}
	// Waiting for the user's draft: the line says so, with the modes still enabled.
	waiting := alice
	waiting.WaitingForDraft = true
	m.Update(waiting)
	if r := item(t, m, "Clanker", WaitingSentence); r.Hidden || !r.Disabled {
		t.Fatalf("waiting line hidden=%v disabled=%v; want shown and disabled", r.Hidden, r.Disabled)
	}
	if it := item(t, m, "Clanker", ModeLabel(engine.ModeActive)); it.Disabled {
		t.Fatal("the modes are disabled while Clanker waits for the draft; want them usable")
	}
	m.Update(alice)
	for _, it := range m.Menu().Items[0].SubMenu.Items {
		if it.Label == WaitingSentence && !it.Hidden {
			t.Fatal("waiting line still shown after the wait ended")
		}
	}
}

func TestAppMenuItemsRunTheSameActionsAsTheTray(t *testing.T) {
	m, ctrl, win := newTestAppMenu(t, alice, "linux")
	click := func(top, label string) {
		t.Helper()
		it := item(t, m, top, label)
		if it.Click == nil {
			t.Fatalf("%s > %s has no click handler", top, label)
		}
		it.Click(&menu.CallbackData{MenuItem: it})
	}
	click("Clanker", "Active")
	click("Clanker", "Available") // already the mode: nothing to do
	click("Clanker", "Settings...")
	click("Clanker", "Show conversation state")
	click("Clanker", "Show sanitised state")
	click("Clanker", "Deactivate in all conversations")
	click("Clanker", "Purge conversation state")
	click("Clanker", "Purge all state data...")
	click("Clanker", "Hide window")
	click("Clanker", "Quit")
	want := "SetMode active|OpenSettings|Diagnostics false|ShowText Clanker: conversation state|Diagnostics true|ShowText Clanker: sanitised state|DeactivateAll|PurgeConversation|PurgeAll|HideWindow|Quit"
	if got := strings.Join(ctrl.got(), "|"); got != want {
		t.Fatalf("controller calls:\n got %s\nwant %s", got, want)
	}
	for _, c := range [][2]string{{"Edit", "Undo"}, {"Edit", "Redo"}, {"Edit", "Cut"}, {"Edit", "Copy"}, {"Edit", "Paste"}, {"Edit", "Select All"},
		{"View", "Reload"}, {"View", "Zoom In"}, {"View", "Zoom Out"}, {"View", "Actual Size"}, {"Clanker", "About Clanker"}} {
		click(c[0], c[1])
	}
	wantWin := "Edit Undo|Edit Redo|Edit Cut|Edit Copy|Edit Paste|Edit SelectAll|Reload|ZoomIn|ZoomOut|ZoomReset|About"
	if got := strings.Join(*win, "|"); got != wantWin {
		t.Fatalf("window actions:\n got %s\nwant %s", got, wantWin)
	}
}

func TestAppMenuRefusesAModeChangeWhenTheConversationIsLocked(t *testing.T) {
	locked := Status{ConversationID: "c-2", ConversationName: "Bank", Mode: engine.ModeDeactivated, ModeLocked: true, LockReason: LockAutomated}
	m, ctrl, _ := newTestAppMenu(t, locked, "linux")
	redrawn := 0
	m.SetAfterModeClick(func() { redrawn++ })
	it := item(t, m, "Clanker", "Active")
	it.Click(&menu.CallbackData{MenuItem: it}) // a stale native menu may still deliver it
	if calls := ctrl.got(); len(calls) != 0 {
		t.Fatalf("a click on Active in an automated conversation called %q; want nothing", calls)
	}
	if redrawn != 1 {
		t.Fatalf("the menu was redrawn %d times after the refused click; want once (GTK already moved the check mark)", redrawn)
	}
}

func TestNativeItemsLineUpWithTheClankerMenu(t *testing.T) {
	m, _, _ := newTestAppMenu(t, alice, "linux")
	items := m.NativeItems()
	model := m.Menu().Items[0].SubMenu.Items
	if len(items) != len(model) {
		t.Fatalf("%d native items for %d model items", len(items), len(model))
	}
	if !items[2].Radio || !items[2].Checked || items[1].Checked || !items[4].Hidden || !items[5].Separator || !items[7].Submenu {
		t.Fatalf("native items do not describe the model: %+v", items)
	}
	m.RevealAll()
	for i, it := range m.NativeItems() {
		if it.Hidden {
			t.Fatalf("item %d (%q) still hidden after RevealAll; Wails would leave it out of the GTK menu", i, it.Label)
		}
	}
}

func TestContextMenuStateCarriesTheModeAndTheLockReason(t *testing.T) {
	c := ContextMenuStateOf(alice)
	if c.Mode != "available" || !c.ModesEnabled || c.Reason != "" || !strings.Contains(c.Header, "Alice: Available") {
		t.Fatalf("context menu state for Alice/Available: %+v", c)
	}
	c = ContextMenuStateOf(Status{ConversationID: "c", Mode: engine.ModeDeactivated, ModeLocked: true, LockReason: LockAutomated})
	if c.ModesEnabled || c.Reason != LockAutomated.Sentence() {
		t.Fatalf("context menu state for an automated conversation: %+v", c)
	}
	if _, ok := modeOf("uninitialized"); ok {
		t.Fatal("modeOf accepted uninitialized; only the three user modes may come from the menu")
	}
	if m, ok := modeOf("active"); !ok || m != engine.ModeActive {
		t.Fatalf("modeOf(active) = %v, %v", m, ok)
	}
}

func TestAboutShowsTheVersion(t *testing.T) {
	if got := AboutText("v0.9.1"); !strings.HasPrefix(got, "Clanker v0.9.1\n") {
		t.Fatalf("AboutText = %q; want it to start with the version", got)
	}
	if got := AboutText(""); !strings.Contains(got, "unknown version") {
		t.Fatalf("AboutText without a version = %q", got)
	}
}

func TestAppMenuReportsAFailedWindowActionToTheUser(t *testing.T) {
	var notes []string
	m := NewAppMenu(MenuOptions{Controller: &recController{st: alice}, Notify: func(msg string) { notes = append(notes, msg) }},
		WindowActions{Reload: func() error { return errors.New("no page") }}, "", "linux", alice, nil)
	it := item(t, m, "View", "Reload")
	it.Click(&menu.CallbackData{MenuItem: it})
	if len(notes) != 1 || notes[0] != "Reloading the page failed: no page" {
		t.Fatalf("notifications after a failed reload: %+v", notes)
	}
}

// Without a tray host there is no "Hide window": a hidden window could not come back.
// The action refuses too, should anything still call it.
func TestAppMenuOffersNoHideWindowWithoutATray(t *testing.T) {
	m, ctrl, _ := newTestAppMenuTray(t, alice, "linux", true)
	want := "Alice: Available|Deactivated|Available|Active|---|Settings...|Diagnostics|---|About Clanker|---|Quit"
	if got := strings.Join(labels(m.Menu().Items[0].SubMenu.Items), "|"); got != want {
		t.Fatalf("Clanker menu without a tray:\n got %s\nwant %s", got, want)
	}
	m.act.ToggleWindow()
	ctrl.mu.Lock()
	defer ctrl.mu.Unlock()
	if len(ctrl.calls) != 0 {
		t.Fatalf("toggling the window without a tray called %v, want nothing", ctrl.calls)
	}
}

// With a log folder to open, the Diagnostics menu offers it.
func TestDiagnosticsMenuOpensTheLogFolder(t *testing.T) {
	opened := 0
	m := NewAppMenu(MenuOptions{Controller: &recController{st: alice}, OpenLogFolder: func() error { opened++; return nil }},
		WindowActions{}, "1.2.3", "linux", alice, nil)
	diag := item(t, m, "Clanker", "Diagnostics")
	want := "Show conversation state|Show sanitised state|Deactivate in all conversations|Purge conversation state|Purge all state data...|---|Open log folder"
	if got := strings.Join(labels(diag.SubMenu.Items), "|"); got != want {
		t.Fatalf("Diagnostics submenu:\n got %s\nwant %s", got, want)
	}
	last := diag.SubMenu.Items[len(diag.SubMenu.Items)-1]
	last.Click(nil)
	if opened != 1 {
		t.Fatalf("Open log folder ran the opener %d times, want 1", opened)
	}
}

// A newer release shows as one item of the Clanker menu, after Diagnostics, that opens its
// page; without one the item is hidden.
func TestAppMenuShowsAnAvailableUpdateThatOpensItsPage(t *testing.T) {
	m, ctrl, _ := newTestAppMenu(t, alice, "linux")
	before := strings.Join(labels(m.Menu().Items[0].SubMenu.Items), "|")
	if strings.Contains(before, "is available") {
		t.Fatalf("no update known, but the menu says %s", before)
	}
	withUpdate := alice
	withUpdate.Update = UpdateNotice{Version: "1.3.0", URL: "https://github.com/clanker-desktop/clanker/releases/tag/v1.3.0"}
	m.Update(withUpdate)
	want := "Alice: Available|Deactivated|Available|Active|---|Settings...|Diagnostics|Clanker 1.3.0 is available|---|Hide window|About Clanker|---|Quit"
	if got := strings.Join(labels(m.Menu().Items[0].SubMenu.Items), "|"); got != want {
		t.Fatalf("Clanker menu with an update:\n got %s\nwant %s", got, want)
	}
	it := item(t, m, "Clanker", "Clanker 1.3.0 is available")
	it.Click(&menu.CallbackData{MenuItem: it})
	if got := ctrl.got(); len(got) != 1 || got[0] != "OpenUpdate" {
		t.Fatalf("clicking the update item called %v, want OpenUpdate", got)
	}
	// The Linux menu bar copies the model: the item is there, labelled and shown.
	var native NativeItem
	for _, n := range m.NativeItems() {
		if n.Label == "Clanker 1.3.0 is available" {
			native = n
		}
	}
	if native.Label == "" || native.Hidden || native.Disabled {
		t.Fatalf("native items: the update item is %+v; want it shown and enabled", native)
	}
	m.Update(alice)
	if got := strings.Join(labels(m.Menu().Items[0].SubMenu.Items), "|"); got != before {
		t.Fatalf("once the update is gone the menu should be as before:\n got %s\nwant %s", got, before)
	}
}
