//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	_ "image/png"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/clanker-desktop/clanker/build/icons"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// sniWatcher is a test org.kde.StatusNotifierWatcher: the part of a desktop panel that
// tray icons register with. It records who registered.
type sniWatcher struct {
	mu    sync.Mutex
	items []string // bus names of registered items
}

// RegisterStatusNotifierItem is the watcher method tray icons call.
func (w *sniWatcher) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.items = append(w.items, string(sender))
	return nil
}

func (w *sniWatcher) registered() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.items...)
}

func startWatcher(t *testing.T) (*sniWatcher, *dbus.Conn) {
	t.Helper()
	conn, err := dbus.Connect(display.BusAddr)
	if err != nil {
		t.Fatalf("connect to the private bus: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	w := &sniWatcher{}
	if err := conn.Export(w, "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher"); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("org.kde.StatusNotifierWatcher", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.kde.StatusNotifierWatcher: reply %v, err %v", reply, err)
	}
	return w, conn
}

// menuItem is one node of a com.canonical.dbusmenu layout.
type menuItem struct {
	ID       int32
	Label    string
	Enabled  bool
	Visible  bool
	Checked  bool
	Children []menuItem
}

type rawLayout struct {
	ID       int32
	Props    map[string]dbus.Variant
	Children []dbus.Variant
}

func convertLayout(r rawLayout) menuItem {
	m := menuItem{ID: r.ID, Enabled: true, Visible: true}
	if v, ok := r.Props["label"]; ok {
		m.Label, _ = v.Value().(string)
	}
	if v, ok := r.Props["enabled"]; ok {
		m.Enabled, _ = v.Value().(bool)
	}
	if v, ok := r.Props["visible"]; ok {
		m.Visible, _ = v.Value().(bool)
	}
	if v, ok := r.Props["toggle-state"]; ok {
		n, _ := v.Value().(int32)
		m.Checked = n == 1
	}
	for _, c := range r.Children {
		var child rawLayout
		if err := dbus.Store([]any{c.Value()}, &child); err == nil {
			m.Children = append(m.Children, convertLayout(child))
		}
	}
	return m
}

// find returns the first visible item with label, depth first.
func (m menuItem) find(label string) (menuItem, bool) {
	if m.Label == label && m.Visible {
		return m, true
	}
	for _, c := range m.Children {
		if f, ok := c.find(label); ok {
			return f, true
		}
	}
	return menuItem{}, false
}

func (m menuItem) labels() []string {
	var out []string
	if m.Label != "" && m.Visible {
		out = append(out, m.Label)
	}
	for _, c := range m.Children {
		out = append(out, c.labels()...)
	}
	return out
}

// trayClient reads and clicks the app's tray over D-Bus, as a panel would.
type trayClient struct {
	t    *testing.T
	conn *dbus.Conn
	name string
}

func (c *trayClient) layout() menuItem {
	c.t.Helper()
	var rev uint32
	var raw rawLayout
	err := c.conn.Object(c.name, "/StatusNotifierItem/menu").
		Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{}).Store(&rev, &raw)
	if err != nil {
		c.t.Fatalf("GetLayout: %v", err)
	}
	return convertLayout(raw)
}

func (c *trayClient) click(label string) {
	c.t.Helper()
	item, ok := c.layout().find(label)
	if !ok {
		c.t.Fatalf("tray menu has no item %q; it has %q", label, c.layout().labels())
	}
	call := c.conn.Object(c.name, "/StatusNotifierItem/menu").
		Call("com.canonical.dbusmenu.Event", 0, item.ID, "clicked", dbus.MakeVariant(int32(0)), uint32(time.Now().Unix()))
	if call.Err != nil {
		c.t.Fatalf("click %q: %v", label, call.Err)
	}
}

func (c *trayClient) prop(name string) dbus.Variant {
	c.t.Helper()
	v, err := c.conn.Object(c.name, "/StatusNotifierItem").GetProperty("org.kde.StatusNotifierItem." + name)
	if err != nil {
		c.t.Fatalf("read tray property %s: %v", name, err)
	}
	return v
}

type pixmap struct {
	W, H int32
	Pix  []byte
}

// iconIs reports whether the tray's IconPixmap is the given PNG (as ARGB32, the
// StatusNotifierItem format).
func (c *trayClient) iconIs(png []byte) bool {
	var got []pixmap
	if err := dbus.Store([]any{c.prop("IconPixmap").Value()}, &got); err != nil || len(got) == 0 {
		return false
	}
	img, _, err := image.Decode(bytes.NewReader(png))
	if err != nil {
		c.t.Fatalf("decode the expected icon: %v", err)
	}
	b := img.Bounds()
	want := make([]byte, 0, b.Dx()*b.Dy()*4)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			want = append(want, byte(a), byte(r), byte(g), byte(bl))
		}
	}
	return int(got[0].W) == b.Dx() && bytes.Equal(got[0].Pix, want)
}

type trayState struct {
	Calls   []string `json:"calls"`
	Shown   []string `json:"shown"`
	Asked   []string `json:"asked"`
	Visible bool     `json:"visible"`
}

func trayAppState(t *testing.T, app *App) trayState {
	t.Helper()
	resp, err := http.Get(app.Control + "/state")
	if err != nil {
		t.Fatalf("GET /state from trayapp: %v", err)
	}
	defer resp.Body.Close()
	var st trayState
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

func trayPost(t *testing.T, app *App, path, body string) {
	t.Helper()
	resp, err := http.Post(app.Control+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("POST %s: %s", path, resp.Status)
	}
}

func hasCall(st trayState, call string) bool {
	for _, c := range st.Calls {
		if c == call {
			return true
		}
	}
	return false
}

func windowVisible(title string) bool {
	cmd := exec.Command("xdotool", "search", "--onlyvisible", "--name", title)
	cmd.Env = []string{"DISPLAY=" + display.Name}
	out, _ := cmd.Output()
	return strings.TrimSpace(string(out)) != ""
}

func startTrayApp(t *testing.T, args ...string) (*App, *trayClient) {
	t.Helper()
	needDisplay(t)
	watcher, conn := startWatcher(t)
	page := newTestPage(t, "127.0.0.1:0")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin, err := Build(ctx, "./tests/e2e/trayapp", binDir)
	if err != nil {
		t.Fatal(err)
	}
	all := append([]string{"-target", page.URL(), "-ready-file", "{ready}"}, args...)
	app := StartApp(t, display, bin, 60*time.Second, all...)
	var name string
	testkit.WaitFor(t, 20*time.Second, "the tray to register with the StatusNotifierWatcher", func() (bool, string) {
		items := watcher.registered()
		if len(items) == 0 {
			return false, "nothing registered"
		}
		name = items[len(items)-1]
		return true, ""
	})
	tc := &trayClient{t: t, conn: conn, name: name}
	testkit.WaitFor(t, 20*time.Second, "the tray menu to be built", func() (bool, string) {
		_, ok := tc.layout().find("Quit")
		return ok, fmt.Sprintf("labels %q", tc.layout().labels())
	})
	return app, tc
}

func TestTrayModeItemsCallSetModeAndTheIconFollowsTheMode(t *testing.T) {
	app, tray := startTrayApp(t)
	testkit.WaitFor(t, 10*time.Second, "the menu to show Alice's mode, Deactivated checked and the off icon", func() (bool, string) {
		l := tray.layout()
		_, header := l.find("Alice: Deactivated")
		d, _ := l.find("Deactivated")
		return header && d.Checked && tray.iconIs(icons.TrayOff), fmt.Sprintf("labels %q, Deactivated checked %v", l.labels(), d.Checked)
	})

	tray.click("Active")
	testkit.WaitFor(t, 10*time.Second, "SetMode active, Active checked, the on icon and the title", func() (bool, string) {
		st := trayAppState(t, app)
		l := tray.layout()
		a, _ := l.find("Active")
		d, _ := l.find("Deactivated")
		title, _ := tray.prop("Title").Value().(string)
		ok := hasCall(st, "SetMode active") && a.Checked && !d.Checked && tray.iconIs(icons.TrayOn) && title == "Clanker: Active"
		return ok, fmt.Sprintf("calls %q, Active checked %v, Deactivated checked %v, on icon %v, title %q", st.Calls, a.Checked, d.Checked, tray.iconIs(icons.TrayOn), title)
	})

	tray.click("Deactivated")
	testkit.WaitFor(t, 10*time.Second, "SetMode deactivated and the off icon again", func() (bool, string) {
		st := trayAppState(t, app)
		return hasCall(st, "SetMode deactivated") && tray.iconIs(icons.TrayOff), fmt.Sprintf("calls %q", st.Calls)
	})
}

func TestTrayModeItemsAreDisabledAndRefusedInAnAutomatedConversation(t *testing.T) {
	app, tray := startTrayApp(t)
	trayPost(t, app, "/status", `{"ConversationID":"c-2","ConversationName":"Bank 12345","Mode":"deactivated","ModeLocked":true,"LockReason":"automated"}`)
	testkit.WaitFor(t, 10*time.Second, "disabled mode items and the reason line", func() (bool, string) {
		l := tray.layout()
		a, _ := l.find("Available")
		_, reason := l.find("Automated conversation: Clanker stays out")
		return !a.Enabled && reason, fmt.Sprintf("Available enabled %v; labels %q", a.Enabled, l.labels())
	})
	// A panel may still send a click for a disabled item; it must not change the mode.
	tray.click("Available")
	tray.click("Deactivate in all conversations") // a later click proves the first was handled
	testkit.WaitFor(t, 10*time.Second, "the later click to arrive", func() (bool, string) {
		return hasCall(trayAppState(t, app), "DeactivateAll"), "no DeactivateAll yet"
	})
	for _, c := range trayAppState(t, app).Calls {
		if strings.HasPrefix(c, "SetMode") {
			t.Fatalf("a click on a disabled mode item in an automated conversation called %q", c)
		}
	}

	trayPost(t, app, "/status", `{"Mode":"uninitialized","ModeLocked":true,"LockReason":"uninitialized","ConversationID":"c-3","ConversationName":"Bob"}`)
	testkit.WaitFor(t, 10*time.Second, "the Uninitialized explanation", func() (bool, string) {
		l := tray.layout()
		_, reason := l.find("Finish the settings to choose a mode")
		title, _ := tray.prop("Title").Value().(string)
		return reason && title == "Clanker: not configured", fmt.Sprintf("labels %q title %q", l.labels(), title)
	})
}

func TestTrayDiagnosticsItemsDoWhatTheySay(t *testing.T) {
	app, tray := startTrayApp(t)
	tray.click("Show conversation state")
	tray.click("Show sanitised state")
	tray.click("Deactivate in all conversations")
	tray.click("Settings...")
	testkit.WaitFor(t, 10*time.Second, "both diagnostics shown, DeactivateAll and OpenSettings", func() (bool, string) {
		st := trayAppState(t, app)
		full, sanitised := false, false
		for _, s := range st.Shown {
			full = full || (strings.HasPrefix(s, "Clanker: conversation state\n") && strings.Contains(s, "(Alice)"))
			sanitised = sanitised || (strings.HasPrefix(s, "Clanker: sanitised state\n") && strings.Contains(s, "(sanitised)"))
		}
		return full && sanitised && hasCall(st, "DeactivateAll") && hasCall(st, "OpenSettings"), fmt.Sprintf("calls %q shown %q", st.Calls, st.Shown)
	})

	// Purging asks first; "no" deletes nothing.
	trayPost(t, app, "/confirm?answer=no", "")
	tray.click("Purge all state data...")
	testkit.WaitFor(t, 10*time.Second, "the purge-all question", func() (bool, string) {
		st := trayAppState(t, app)
		return len(st.Asked) == 1, fmt.Sprintf("asked %q", st.Asked)
	})
	if st := trayAppState(t, app); hasCall(st, "PurgeAll") {
		t.Fatalf("PurgeAll ran although the user answered no: calls %q", st.Calls)
	}
	trayPost(t, app, "/confirm?answer=yes", "")
	tray.click("Purge all state data...")
	tray.click("Purge conversation state")
	testkit.WaitFor(t, 10*time.Second, "PurgeAll and PurgeConversation after yes", func() (bool, string) {
		st := trayAppState(t, app)
		return hasCall(st, "PurgeAll") && hasCall(st, "PurgeConversation") && len(st.Asked) == 3, fmt.Sprintf("calls %q asked %q", st.Calls, st.Asked)
	})
}

func TestTrayShowHideTogglesTheWindowAndQuitExitsCleanly(t *testing.T) {
	app, tray := startTrayApp(t)
	const title = "Clanker tray test"
	testkit.WaitFor(t, 20*time.Second, "the window to be visible with a Hide window item", func() (bool, string) {
		_, hide := tray.layout().find("Hide window")
		return hide && windowVisible(title), fmt.Sprintf("Hide item %v, visible %v", hide, windowVisible(title))
	})
	tray.click("Hide window")
	testkit.WaitFor(t, 10*time.Second, "the window hidden and the item saying Show window", func() (bool, string) {
		_, show := tray.layout().find("Show window")
		return show && !windowVisible(title), fmt.Sprintf("Show item %v, visible %v", show, windowVisible(title))
	})
	trayPost(t, app, "/status", `{"ConversationID":"c-1","ConversationName":"Alice","Mode":"available","Unread":3}`)
	testkit.WaitFor(t, 10*time.Second, "the unread count in the title while hidden", func() (bool, string) {
		title, _ := tray.prop("Title").Value().(string)
		return title == "Clanker: Available (3 unread)", fmt.Sprintf("title %q", title)
	})
	tray.click("Show window")
	testkit.WaitFor(t, 10*time.Second, "the window visible again", func() (bool, string) {
		return windowVisible(title), "not visible"
	})

	tray.click("Quit")
	testkit.WaitFor(t, 20*time.Second, "the app to exit after Quit", func() (bool, string) {
		return app.Exited(), "still running"
	})
	if code := app.Cmd.ProcessState.ExitCode(); code != 0 || !strings.Contains(app.Output(), "trayapp: clean exit") {
		t.Fatalf("Quit: want exit code 0 after Run returned, got %d; output:\n%s", code, app.Output())
	}
}

// A newer release shows as a tray menu item (read over com.canonical.dbusmenu, as a panel
// reads it) that opens its page through the Controller, and goes when there is none.
func TestTrayShowsAnAvailableUpdateThatOpensItsPage(t *testing.T) {
	app, tray := startTrayApp(t)
	const page = "https://github.com/clanker-desktop/clanker/releases/tag/v1.3.0"
	if _, ok := tray.layout().find("Clanker 1.3.0 is available"); ok {
		t.Fatal("the tray names an update before any is known")
	}
	trayPost(t, app, "/status", `{"ConversationID":"c-1","ConversationName":"Alice","Mode":"deactivated","Update":{"Version":"1.3.0","URL":"`+page+`"}}`)
	testkit.WaitFor(t, 10*time.Second, "the update item in the tray menu", func() (bool, string) {
		it, ok := tray.layout().find("Clanker 1.3.0 is available")
		return ok && it.Enabled, fmt.Sprintf("labels %q", tray.layout().labels())
	})
	tray.click("Clanker 1.3.0 is available")
	testkit.WaitFor(t, 10*time.Second, "OpenUpdate with the release page", func() (bool, string) {
		st := trayAppState(t, app)
		return hasCall(st, "OpenUpdate "+page), fmt.Sprintf("calls %q", st.Calls)
	})
	trayPost(t, app, "/status", `{"ConversationID":"c-1","ConversationName":"Alice","Mode":"deactivated"}`)
	testkit.WaitFor(t, 10*time.Second, "the update item to go", func() (bool, string) {
		_, ok := tray.layout().find("Clanker 1.3.0 is available")
		return !ok, fmt.Sprintf("labels %q", tray.layout().labels())
	})
}
