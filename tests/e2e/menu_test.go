//go:build linux

package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/tests/testkit"
)

// The app menu and the page's right-click menu, tested on tests/e2e/menuapp (the Shell
// with the Clanker menus and no tray, over a fake Controller). Keys and clicks are real
// X input from xdotool; what GTK shows is read back from the widgets themselves.

const menuAppTitle = "Clanker menu test"

// nativeItem is one line of Shell.NativeMenuText.
type nativeItem struct {
	Depth     int
	Kind      string
	Sensitive bool
	Visible   bool
	Active    bool
	Selected  bool
	Accel     string
	Label     string
}

// nativeMenus is what GTK shows: the menu bar, or each open popup menu.
type nativeMenus [][]nativeItem

func parseNativeMenus(text string) nativeMenus {
	var out nativeMenus
	cur := -1
	for _, line := range strings.Split(text, "\n") {
		if line == "" {
			continue
		}
		if line == "menu" {
			out = append(out, nil)
			cur++
			continue
		}
		f := strings.SplitN(line, "\t", 5)
		if len(f) != 5 {
			continue
		}
		if cur < 0 {
			out = append(out, nil)
			cur = 0
		}
		it := nativeItem{Kind: f[1], Sensitive: strings.Contains(f[2], "s"), Visible: strings.Contains(f[2], "v"),
			Active: strings.Contains(f[2], "a"), Selected: strings.Contains(f[2], "p"), Accel: f[3], Label: strings.ReplaceAll(f[4], "_", "")}
		fmt.Sscan(f[0], &it.Depth)
		out[cur] = append(out[cur], it)
	}
	return out
}

func (m nativeMenus) find(label string) (nativeItem, bool) {
	for _, items := range m {
		for _, it := range items {
			if it.Label == label && it.Visible {
				return it, true
			}
		}
	}
	return nativeItem{}, false
}

func (m nativeMenus) String() string {
	var b strings.Builder
	for i, items := range m {
		fmt.Fprintf(&b, "[menu %d]", i)
		for _, it := range items {
			if !it.Visible {
				continue
			}
			fmt.Fprintf(&b, " %s%q", strings.Repeat(">", it.Depth), it.Label)
			if it.Kind == "radio" && it.Active {
				b.WriteString("(*)")
			}
			if !it.Sensitive {
				b.WriteString("(off)")
			}
		}
	}
	return b.String()
}

func menuAppGet(t *testing.T, app *App, path string) string {
	t.Helper()
	resp, err := http.Get(app.Control + path)
	if err != nil {
		t.Fatalf("GET %s from menuapp: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", path, resp.Status, b)
	}
	return string(b)
}

func nativeMenu(t *testing.T, app *App, popup bool) nativeMenus {
	t.Helper()
	q := "/menu"
	if popup {
		q += "?popup=1"
	}
	return parseNativeMenus(menuAppGet(t, app, q))
}

func xdo(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("xdotool", args...)
	cmd.Env = []string{"DISPLAY=" + display.Name}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("xdotool %q: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// startMenuApp starts menuapp on the test page and waits for its window and menu bar.
func startMenuApp(t *testing.T) (*App, *testPage, string) {
	t.Helper()
	needDisplay(t)
	page := newTestPage(t, "127.0.0.1:0")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin, err := Build(ctx, "./tests/e2e/menuapp", binDir)
	if err != nil {
		t.Fatal(err)
	}
	app := StartApp(t, display, bin, 60*time.Second, "-target", page.URL(), "-ready-file", "{ready}")
	var wid string
	testkit.WaitFor(t, 30*time.Second, "the main window to be visible and the page loaded", func() (bool, string) {
		cmd := exec.Command("xdotool", "search", "--onlyvisible", "--name", menuAppTitle)
		cmd.Env = []string{"DISPLAY=" + display.Name}
		out, _ := cmd.Output()
		ids := strings.Fields(string(out))
		if len(ids) == 0 {
			return false, "no visible window"
		}
		wid = ids[0]
		return len(page.Reports("app-loaded")) > 0, "page not loaded: " + page.Kinds()
	})
	testkit.WaitFor(t, 20*time.Second, "the menu bar to show Alice's conversation", func() (bool, string) {
		m := nativeMenu(t, app, false)
		_, ok := m.find("Alice: Deactivated")
		return ok, m.String()
	})
	return app, page, wid
}

func TestAppMenuBarCarriesTheClankerMenuAndFollowsTheStatus(t *testing.T) {
	app, _, _ := startMenuApp(t)
	m := nativeMenu(t, app, false)
	for _, want := range []struct{ label, accel string }{
		{"Settings...", "<Primary>comma"}, {"Quit", "<Primary>q"}, {"Reload", "<Primary>r"},
		{"Zoom In", "<Primary>equal"}, {"Zoom Out", "<Primary>minus"}, {"Actual Size", "<Primary>0"},
	} {
		it, ok := m.find(want.label)
		if !ok || it.Accel != want.accel {
			t.Errorf("menu bar item %q: found %v, accelerator %q; want %q. Menu: %s", want.label, ok, it.Accel, want.accel, m)
		}
	}
	for _, label := range []string{"Clanker", "Edit", "View", "Undo", "Redo", "Cut", "Copy", "Paste", "Select All",
		"Show conversation state", "Show sanitised state", "Deactivate in all conversations", "Purge conversation state",
		"Purge all state data...", "About Clanker"} {
		if _, ok := m.find(label); !ok {
			t.Errorf("menu bar has no %q: %s", label, m)
		}
	}
	// This app runs without a tray icon: a hidden window could not come back, so the
	// menu offers no "Hide window".
	if _, ok := m.find("Hide window"); ok {
		t.Errorf("menu bar offers Hide window without a tray: %s", m)
	}
	if d, _ := m.find("Deactivated"); d.Kind != "radio" || !d.Active || !d.Sensitive {
		t.Fatalf("Deactivated is %+v; want an enabled, checked radio item. Menu: %s", d, m)
	}

	trayPost(t, app, "/status", `{"ConversationID":"c-2","ConversationName":"Bank 12345","Mode":"deactivated","ModeLocked":true,"LockReason":"automated"}`)
	testkit.WaitFor(t, 10*time.Second, "disabled mode items and the reason line in the menu bar", func() (bool, string) {
		m := nativeMenu(t, app, false)
		a, _ := m.find("Active")
		_, reason := m.find("Automated conversation: Clanker stays out")
		_, header := m.find("Bank 12345: Deactivated")
		return !a.Sensitive && reason && header, m.String()
	})

	trayPost(t, app, "/status", `{"ConversationID":"c-1","ConversationName":"Alice","Mode":"active"}`)
	testkit.WaitFor(t, 10*time.Second, "Active checked and enabled, the reason line gone", func() (bool, string) {
		m := nativeMenu(t, app, false)
		a, _ := m.find("Active")
		d, _ := m.find("Deactivated")
		_, reason := m.find("Automated conversation: Clanker stays out")
		return a.Active && a.Sensitive && !d.Active && !reason, m.String()
	})
	if st := trayAppState(t, app); len(st.Calls) != 0 {
		t.Fatalf("redrawing the menu called the Controller: %q; want no calls (radio updates must not fire clicks)", st.Calls)
	}

	// A newer release appears as an item of the Clanker menu in the GTK menu bar, and goes
	// again with it.
	if _, ok := nativeMenu(t, app, false).find("Clanker 1.3.0 is available"); ok {
		t.Fatal("the menu bar names an update before any is known")
	}
	trayPost(t, app, "/status", `{"ConversationID":"c-1","ConversationName":"Alice","Mode":"active",`+
		`"Update":{"Version":"1.3.0","URL":"https://github.com/clanker-desktop/clanker/releases/tag/v1.3.0"}}`)
	testkit.WaitFor(t, 10*time.Second, "the update item in the menu bar", func() (bool, string) {
		m := nativeMenu(t, app, false)
		it, ok := m.find("Clanker 1.3.0 is available")
		return ok && it.Sensitive, m.String()
	})
	trayPost(t, app, "/status", `{"ConversationID":"c-1","ConversationName":"Alice","Mode":"active"}`)
	testkit.WaitFor(t, 10*time.Second, "the update item to go", func() (bool, string) {
		m := nativeMenu(t, app, false)
		_, ok := m.find("Clanker 1.3.0 is available")
		return !ok, m.String()
	})
}

// Redrawing the mode items is never a click on one. GTK activates a radio item when it is
// checked from code, and the app's status can be a moment behind the engine (the page has
// just come back, the engine has not yet said which mode the conversation has): a redraw
// that checked Deactivated then used to reach the Controller as the user choosing
// Deactivated, so the conversation lost the mode the user had chosen; and a redraw into a
// locked state (the page signed out) reported "Changing the mode failed" for a change
// nobody asked for.
func TestRedrawingTheModeItemsNeverChoosesAMode(t *testing.T) {
	app, _, _ := startMenuApp(t)
	checked := func(label string, sensitive bool) func() (bool, string) {
		return func() (bool, string) {
			m := nativeMenu(t, app, false)
			it, _ := m.find(label)
			return it.Active && it.Sensitive == sensitive, m.String()
		}
	}
	trayPost(t, app, "/status", `{"ConversationID":"c-1","ConversationName":"Alice","Mode":"available"}`)
	testkit.WaitFor(t, 10*time.Second, "Available checked", checked("Available", true))
	// The menus draw Alice as Deactivated while the controller knows she is Available.
	trayPost(t, app, "/status?draw=only", `{"ConversationID":"c-1","ConversationName":"Alice","Mode":"deactivated"}`)
	testkit.WaitFor(t, 10*time.Second, "Deactivated checked by the redraw", checked("Deactivated", true))
	trayPost(t, app, "/status", `{"ConversationID":"c-1","ConversationName":"Alice","Mode":"available"}`)
	testkit.WaitFor(t, 10*time.Second, "Available checked again", checked("Available", true))
	// The page signs out: no conversation, the mode items locked.
	trayPost(t, app, "/status", `{"ConversationID":"","Mode":"deactivated","ModeLocked":true,"LockReason":"no_conversation"}`)
	testkit.WaitFor(t, 10*time.Second, "Deactivated checked and greyed out", checked("Deactivated", false))
	// A click handler runs on its own goroutine after GTK returns: give any such call
	// time to arrive before saying none did.
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if st := trayAppState(t, app); len(st.Calls) != 0 {
			t.Fatalf("redrawing the mode items called the Controller: %q; want no calls", st.Calls)
		}
		if out := app.Output(); strings.Contains(out, "menu action failed") {
			t.Fatalf("redrawing the mode items ran a menu action:\n%s", out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestAppMenuShortcutsFromTheKeyboardRunTheirActions(t *testing.T) {
	app, page, wid := startMenuApp(t)
	xdo(t, "windowfocus", "--sync", wid)
	xdo(t, "mousemove", "--window", wid, "600", "500")

	xdo(t, "key", "ctrl+comma")
	testkit.WaitFor(t, 10*time.Second, "Ctrl+, to open the settings", func() (bool, string) {
		st := trayAppState(t, app)
		return hasCall(st, "OpenSettings"), fmt.Sprintf("calls %q", st.Calls)
	})

	zoomIs := func(want string) {
		t.Helper()
		testkit.WaitFor(t, 10*time.Second, "the web view's zoom level "+want, func() (bool, string) {
			z := menuAppGet(t, app, "/zoom")
			return z == want, "zoom " + z
		})
	}
	zoomIs("1.00")
	xdo(t, "key", "ctrl+equal")
	zoomIs("1.10")
	xdo(t, "key", "ctrl+equal")
	zoomIs("1.25")
	xdo(t, "key", "ctrl+minus")
	zoomIs("1.10")
	xdo(t, "key", "ctrl+0")
	zoomIs("1.00")

	loads := len(page.Reports("app-loaded"))
	xdo(t, "key", "ctrl+r")
	testkit.WaitFor(t, 20*time.Second, "Ctrl+R to reload the page", func() (bool, string) {
		n := len(page.Reports("app-loaded"))
		return n > loads, fmt.Sprintf("%d loads, %d before", n, loads)
	})

	// The page reloaded; focus the window again for the last shortcut.
	xdo(t, "windowfocus", "--sync", wid)
	xdo(t, "key", "ctrl+q")
	testkit.WaitFor(t, 20*time.Second, "Ctrl+Q to quit the app", func() (bool, string) {
		return app.Exited(), "still running"
	})
	if code := app.Cmd.ProcessState.ExitCode(); code != 0 || !strings.Contains(app.Output(), "menuapp: clean exit") {
		t.Fatalf("Ctrl+Q: want exit code 0 after Run returned, got %d; output:\n%s", code, app.Output())
	}
}

// openContextMenu right-clicks at window coordinates x, y and waits for the menu.
func openContextMenu(t *testing.T, app *App, wid string, x, y int) nativeMenus {
	t.Helper()
	xdo(t, "mousemove", "--window", wid, fmt.Sprint(x), fmt.Sprint(y))
	xdo(t, "click", "3")
	var m nativeMenus
	testkit.WaitFor(t, 10*time.Second, "the right-click menu to open with the Clanker items", func() (bool, string) {
		m = nativeMenu(t, app, true)
		_, ok := m.find("Settings...")
		return ok, m.String()
	})
	return m
}

func closeMenus(t *testing.T, app *App) {
	t.Helper()
	xdo(t, "key", "Escape")
	testkit.WaitFor(t, 10*time.Second, "the right-click menu to close", func() (bool, string) {
		m := nativeMenu(t, app, true)
		return len(m) == 0, m.String()
	})
}

func TestRightClickOnThePageShowsTheClankerItemsAndAModeItemSetsTheMode(t *testing.T) {
	app, _, wid := startMenuApp(t)
	xdo(t, "windowfocus", "--sync", wid)
	m := openContextMenu(t, app, wid, 700, 600)
	if len(m) == 0 {
		t.Fatal("no popup menu")
	}
	var labels []string
	for _, it := range m[0] {
		if it.Depth == 0 {
			labels = append(labels, it.Label)
		}
	}
	want := []string{"Clanker · Alice: Deactivated", "Deactivated", "Available", "Active", "", "Settings...", "Diagnostics"}
	if strings.Join(labels, "|") != strings.Join(want, "|") {
		t.Fatalf("right-click menu on the page:\n got %q\nwant %q", labels, want)
	}
	for _, gone := range []string{"Back", "Forward", "Reload", "Stop", "Inspect Element"} {
		if _, ok := m.find(gone); ok {
			t.Errorf("right-click menu still offers %q: %s", gone, m)
		}
	}
	// Check items, exactly one checked: WebKitGTK 2.50 leaves radio items (actions
	// with a target) out of the menu.
	for _, mode := range []string{"Deactivated", "Available", "Active"} {
		it, _ := m.find(mode)
		if it.Kind != "check" || it.Active != (mode == "Deactivated") || !it.Sensitive {
			t.Fatalf("%s in the right-click menu is %+v; want an enabled check item, checked only for Deactivated", mode, it)
		}
	}
	if err := display.Screenshot(filepath.Join(ArtifactsDir(), "context-menu.png")); err != nil {
		t.Logf("screenshot: %v", err)
	}

	// Keyboard through the open menu, as a user would: the conversation line is not
	// selectable, so Down, Down, Down lands on Active.
	xdo(t, "key", "Down", "Down", "Down", "Return")
	testkit.WaitFor(t, 10*time.Second, "choosing Active in the right-click menu to call SetMode", func() (bool, string) {
		st := trayAppState(t, app)
		return hasCall(st, "SetMode active"), fmt.Sprintf("calls %q", st.Calls)
	})
	testkit.WaitFor(t, 10*time.Second, "the next right-click menu to show Active checked", func() (bool, string) {
		m := openContextMenu(t, app, wid, 700, 600)
		a, _ := m.find("Active")
		ok := a.Active
		closeMenus(t, app)
		return ok, m.String()
	})

	// The Diagnostics submenu's items go through the same GAction handler.
	resp, err := http.Post(app.Control+"/activate?name=diag-sanitised", "", nil)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("activate diag-sanitised: %v %v", err, resp)
	}
	resp.Body.Close()
	testkit.WaitFor(t, 10*time.Second, "the sanitised state to be shown", func() (bool, string) {
		st := trayAppState(t, app)
		return hasCall(st, "Diagnostics sanitised=true") && len(st.Shown) == 1, fmt.Sprintf("calls %q shown %q", st.Calls, st.Shown)
	})
}

func TestRightClickInTheComposeBoxKeepsWebKitsEditingItems(t *testing.T) {
	app, page, wid := startMenuApp(t)
	xdo(t, "windowfocus", "--sync", wid)
	trayPost(t, app, "/status", `{"ConversationID":"c-2","ConversationName":"Bank","Mode":"deactivated","ModeLocked":true,"LockReason":"automated"}`)
	m := openContextMenuIn(t, app, page, wid)
	for _, want := range []string{"Cut", "Copy", "Paste", "Select All", "Settings...", "Diagnostics"} {
		if _, ok := m.find(want); !ok {
			t.Errorf("right-click menu in the compose box has no %q: %s", want, m)
		}
	}
	for _, mode := range []string{"Deactivated", "Available", "Active"} {
		if it, _ := m.find(mode); it.Sensitive {
			t.Errorf("%s is enabled in an automated conversation: %s", mode, m)
		}
	}
	if _, ok := m.find("Automated conversation: Clanker stays out"); !ok {
		t.Errorf("no reason line in the right-click menu: %s", m)
	}
	closeMenus(t, app)
	if st := trayAppState(t, app); len(st.Calls) != 0 {
		t.Fatalf("opening and closing the menu called %q", st.Calls)
	}
}

// openContextMenuIn clicks into the compose box, types a word, selects it and opens the
// right-click menu there.
func openContextMenuIn(t *testing.T, app *App, page *testPage, wid string) nativeMenus {
	t.Helper()
	xdo(t, "mousemove", "--window", wid, "100", "190")
	xdo(t, "click", "1")
	xdo(t, "type", "hello")
	testkit.WaitFor(t, 10*time.Second, "the typed word to reach the compose box", func() (bool, string) {
		for _, r := range page.Reports("box-event") {
			if strings.Contains(string(r.Data), `"data":"o"`) {
				return true, ""
			}
		}
		return false, page.Kinds()
	})
	xdo(t, "key", "ctrl+a")
	return openContextMenu(t, app, wid, 100, 190)
}

func TestEditMenuItemsRunWebKitsEditingCommandsInTheComposeBox(t *testing.T) {
	app, page, wid := startMenuApp(t)
	xdo(t, "windowfocus", "--sync", wid)
	xdo(t, "mousemove", "--window", wid, "100", "190")
	xdo(t, "click", "1")
	xdo(t, "type", "hello")
	xdo(t, "key", "ctrl+a")
	// F10 opens the menu bar's first menu (Clanker); Right moves to Edit; Down moves
	// the selection until GTK reports Cut selected.
	xdo(t, "key", "F10")
	testkit.WaitFor(t, 10*time.Second, "the Clanker menu to open from F10", func() (bool, string) {
		m := nativeMenu(t, app, true)
		_, ok := m.find("About Clanker")
		return ok, m.String()
	})
	xdo(t, "key", "Right")
	testkit.WaitFor(t, 10*time.Second, "the Edit menu to open", func() (bool, string) {
		m := nativeMenu(t, app, true)
		_, ok := m.find("Select All")
		return ok, m.String()
	})
	selected := func() string {
		for _, items := range nativeMenu(t, app, true) {
			for _, it := range items {
				if it.Selected && it.Depth == 0 && it.Label != "Edit" {
					return it.Label
				}
			}
		}
		return ""
	}
	for i := 0; selected() != "Cut"; i++ {
		if i == 5 {
			t.Fatalf("Cut never selected with Down: %s", nativeMenu(t, app, true))
		}
		prev := selected()
		xdo(t, "key", "Down")
		testkit.WaitFor(t, 30*time.Second, "Down to move the selection from "+prev, func() (bool, string) {
			cur := selected()
			return cur != prev, "selected " + cur
		})
	}
	xdo(t, "key", "Return")
	testkit.WaitFor(t, 10*time.Second, "Edit > Cut to cut the selected text out of the box", func() (bool, string) {
		for _, r := range page.Reports("box-event") {
			if strings.Contains(string(r.Data), `"inputType":"deleteByCut"`) {
				return true, ""
			}
		}
		return false, page.Kinds()
	})
}
