package menus

import (
	"fmt"
	"log/slog"
	"sync"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/wailsapp/wails/v2/pkg/menu"
	"github.com/wailsapp/wails/v2/pkg/menu/keys"
)

// EditCommand is one of the standard editing commands the Edit menu sends to the page.
type EditCommand string

// The Edit menu's commands, named as WebKit's editing commands are.
const (
	EditUndo      EditCommand = "Undo"
	EditRedo      EditCommand = "Redo"
	EditCut       EditCommand = "Cut"
	EditCopy      EditCommand = "Copy"
	EditPaste     EditCommand = "Paste"
	EditSelectAll EditCommand = "SelectAll"
)

// WindowActions are what the Edit and View menus and About do to the main window. The
// Shell supplies them; tests supply fakes. Each may be called on any goroutine.
type WindowActions struct {
	Reload    func() error
	ZoomIn    func() error
	ZoomOut   func() error
	ZoomReset func() error
	Edit      func(EditCommand) error
	About     func()
}

// Accelerators of the app menu. CmdOrCtrl is Cmd on macOS and Ctrl elsewhere.
var (
	AccelSettings  = keys.CmdOrCtrl(",")
	AccelQuit      = keys.CmdOrCtrl("q")
	AccelReload    = keys.CmdOrCtrl("r")
	AccelZoomIn    = keys.CmdOrCtrl("=")
	AccelZoomOut   = keys.CmdOrCtrl("-")
	AccelZoomReset = keys.CmdOrCtrl("0")
)

// AppMenu is the main window's menu bar: a Clanker menu with the same items as the tray
// (built on the same actions, so a click does the same thing wherever it comes from),
// plus Edit and View. It keeps the Wails menu model and rewrites the changing items
// (conversation line, mode radio items, lock reason, Show/Hide) on Update.
//
// The Wails model is what Windows and macOS redraw from (runtime.MenuUpdateApplicationMenu).
// On Linux Wails v2.13 cannot redraw a menu bar (its update is a no-op there), so the Shell
// builds the GTK menu once from this model and then copies each Update into the GTK
// widgets itself (see NativeItems).
type AppMenu struct {
	act     *Actions
	win     WindowActions
	goos    string
	version string
	// afterModeClick runs after a mode item was handled, so a refused change redraws
	// the radio items (GTK has already moved the check mark by then).
	afterModeClick func()

	mu      sync.Mutex
	root    *menu.Menu
	clanker *menu.Menu
	header  *menu.MenuItem
	reason  *menu.MenuItem
	update  *menu.MenuItem
	window  *menu.MenuItem
	modes   map[engine.Mode]*menu.MenuItem
}

// NewAppMenu builds the menu bar for the status st. goos selects the Edit menu: macOS
// gets Wails' Edit role (the system's own items and shortcuts); elsewhere the items send
// editing commands to the web view, which also handles the usual shortcuts itself while
// it has focus, so they carry no accelerator there.
func NewAppMenu(opts MenuOptions, win WindowActions, version, goos string, st Status, log *slog.Logger) *AppMenu {
	if log == nil {
		log = slog.Default()
	}
	m := &AppMenu{
		act:     NewActions(opts, log.With("component", "appmenu")),
		win:     win,
		goos:    goos,
		version: version,
		modes:   map[engine.Mode]*menu.MenuItem{},
	}
	m.build()
	m.Update(st)
	return m
}

// Menu is the Wails menu model to put in options.App.Menu.
func (m *AppMenu) Menu() *menu.Menu { return m.root }

// SetAfterModeClick sets fn to run after every click on a mode item has been handled,
// so the caller can redraw the native radio items from the Status (GTK has already
// moved the check mark, even when the change was refused). Set it before the menu is
// shown.
func (m *AppMenu) SetAfterModeClick(fn func()) { m.afterModeClick = fn }

func (m *AppMenu) build() {
	m.root = menu.NewMenu()
	m.clanker = m.root.AddSubmenu("Clanker")
	c := m.clanker
	m.header = c.AddText("Clanker", nil, nil)
	m.header.Disabled = true
	for _, mode := range Modes {
		m.modes[mode] = c.AddRadio(ModeLabel(mode), false, nil, func(*menu.CallbackData) {
			m.act.SetMode(mode)
			if m.afterModeClick != nil {
				m.afterModeClick()
			}
		})
	}
	m.reason = c.AddText("", nil, nil)
	m.reason.Disabled = true
	c.AddSeparator()
	c.AddText("Settings...", AccelSettings, m.do(m.act.Settings))
	diag := c.AddSubmenu("Diagnostics")
	diag.AddText("Show conversation state", nil, m.do(func() { m.act.Diagnostics(false) }))
	diag.AddText("Show sanitised state", nil, m.do(func() { m.act.Diagnostics(true) }))
	diag.AddText("Deactivate in all conversations", nil, m.do(m.act.DeactivateAll))
	diag.AddText("Purge conversation state", nil, m.do(m.act.PurgeConversation))
	diag.AddText("Purge all state data...", nil, m.do(m.act.PurgeAll))
	if open := m.act.opts.OpenLogFolder; open != nil {
		diag.AddSeparator()
		diag.AddText("Open log folder", nil, m.run("Opening the log folder", open))
	}
	m.update = c.AddText("", nil, m.do(m.act.OpenUpdate))
	m.update.Hidden = true
	c.AddSeparator()
	m.window = c.AddText("Hide window", nil, m.do(m.act.ToggleWindow))
	c.AddText("About Clanker", nil, m.do(m.about))
	c.AddSeparator()
	c.AddText("Quit", AccelQuit, m.do(m.act.Quit))

	if m.goos == "darwin" {
		m.root.Append(menu.EditMenu())
	} else {
		edit := m.root.AddSubmenu("Edit")
		edit.AddText("Undo", nil, m.edit(EditUndo))
		edit.AddText("Redo", nil, m.edit(EditRedo))
		edit.AddSeparator()
		edit.AddText("Cut", nil, m.edit(EditCut))
		edit.AddText("Copy", nil, m.edit(EditCopy))
		edit.AddText("Paste", nil, m.edit(EditPaste))
		edit.AddSeparator()
		edit.AddText("Select All", nil, m.edit(EditSelectAll))
	}

	view := m.root.AddSubmenu("View")
	view.AddText("Reload", AccelReload, m.run("Reloading the page", m.win.Reload))
	view.AddSeparator()
	view.AddText("Zoom In", AccelZoomIn, m.run("Zooming in", m.win.ZoomIn))
	view.AddText("Zoom Out", AccelZoomOut, m.run("Zooming out", m.win.ZoomOut))
	view.AddText("Actual Size", AccelZoomReset, m.run("Resetting the zoom", m.win.ZoomReset))
}

// do adapts an action to a Wails callback. Wails runs callbacks on their own goroutine.
func (m *AppMenu) do(fn func()) menu.Callback {
	return func(*menu.CallbackData) { fn() }
}

func (m *AppMenu) edit(cmd EditCommand) menu.Callback {
	return func(*menu.CallbackData) {
		if m.win.Edit == nil {
			return
		}
		m.act.fail("Editing ("+string(cmd)+")", m.win.Edit(cmd))
	}
}

func (m *AppMenu) run(what string, fn func() error) menu.Callback {
	return func(*menu.CallbackData) {
		if fn == nil {
			return
		}
		m.act.fail(what, fn())
	}
}

func (m *AppMenu) about() {
	if m.win.About != nil {
		m.win.About()
	}
}

// AboutText is what About Clanker shows.
func AboutText(version string) string {
	if version == "" {
		version = "unknown version"
	}
	return fmt.Sprintf("Clanker %s\n\nTakes part in your Google Messages conversations when you let it. Every message it writes starts with [clanker].", version)
}

// Update rewrites the changing items from st. It only touches the model: the caller
// redraws the native menu (the Shell does, after every status change).
func (m *AppMenu) Update(st Status) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.header.Label = ConversationLabel(st)
	locked := st.ModeLocked || st.ConversationID == ""
	for mode, item := range m.modes {
		item.Checked = mode == st.Mode
		item.Disabled = locked
	}
	reason := StatusNote(st)
	m.reason.Label = reason
	m.reason.Hidden = reason == ""
	m.update.Label = UpdateLabel(st)
	m.update.Hidden = m.update.Label == ""
	if st.WindowVisible {
		m.window.Label = "Hide window"
	} else {
		m.window.Label = "Show window"
	}
	// Without a tray icon a hidden window could not be brought back (the app would run
	// with no window and no icon), so there is nothing to hide it to.
	m.window.Hidden = m.act.opts.NoTray && st.WindowVisible
}

// NativeItem is the state of one item of the Clanker menu as the native menu shows it,
// in menu order (separators included), for platforms that copy updates into their own
// widgets.
type NativeItem struct {
	Label    string
	Disabled bool
	Hidden   bool
	Radio    bool
	Checked  bool
	// Separator and Submenu items only change visibility.
	Separator bool
	Submenu   bool
}

// NativeItems is the Clanker menu's current state in order, one entry per model item.
func (m *AppMenu) NativeItems() []NativeItem {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]NativeItem, 0, len(m.clanker.Items))
	for _, it := range m.clanker.Items {
		out = append(out, NativeItem{
			Label:     it.Label,
			Disabled:  it.Disabled,
			Hidden:    it.Hidden,
			Radio:     it.Type == menu.RadioType,
			Checked:   it.Checked,
			Separator: it.Type == menu.SeparatorType,
			Submenu:   it.Type == menu.SubmenuType,
		})
	}
	return out
}

// RevealAll clears Hidden on every Clanker item. The Linux menu bar is built once by
// Wails, which leaves hidden items out altogether; built with every item present, the
// native widgets line up one to one with the model and Update can hide and show them.
func (m *AppMenu) RevealAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, it := range m.clanker.Items {
		it.Hidden = false
	}
}
