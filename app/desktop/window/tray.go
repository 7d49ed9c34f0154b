package window

import (
	"log/slog"
	"runtime"
	"sync"

	"fyne.io/systray"
	"github.com/clanker-desktop/clanker/app/desktop/menus"
	"github.com/clanker-desktop/clanker/app/engine"
)

// Tray is the notification-area icon and its menu (fyne.io/systray). On Linux it is a
// StatusNotifierItem with a com.canonical.dbusmenu menu on the session bus, so it runs
// beside Wails' GTK loop without fighting it: Start is called from Wails' OnStartup and
// Stop from OnShutdown. On Windows it has its own thread and message loop
// (tray_windows.go). On macOS it is an NSStatusItem in the menu bar, run by Wails' own
// AppKit loop (systray.RunWithExternalLoop): Start must run on the main thread, which
// the Shell arranges, and every item update waits for that thread. There is one tray
// per process (systray is global).
//
// The icon is "on" while Clanker takes part in the foreground conversation and "off"
// otherwise, ICO on Windows and PNG elsewhere (trayIcon); the title carries the mode
// and, while the window is hidden, the unread count. The mode items are check items
// (systray has no radio items) of which exactly one is checked; they are disabled, with
// the reason shown under them, when the mode cannot change.
type Tray struct {
	act   *menus.Actions
	ctrl  menus.Controller
	start func()
	end   func()

	// life guards starting and stopping. It is never held while systray works: on macOS
	// an item update waits for the main thread, and Stop runs on that thread at quit.
	life    sync.Mutex
	started bool
	stopped bool
	done    chan struct{}
	remove  func()

	mu         sync.Mutex // serialises item updates: systray's items are not safe for concurrent use
	header     *systray.MenuItem
	modes      map[engine.Mode]*systray.MenuItem
	reason     *systray.MenuItem
	updateItem *systray.MenuItem
	window     *systray.MenuItem
	lastOn     *bool
	lastTip    string
	// lastBadge is the unread count drawn on the icon now.
	lastBadge int
}

// NewTray prepares the tray; nothing appears until Start.
func NewTray(opts menus.MenuOptions, log *slog.Logger) *Tray {
	if log == nil {
		log = slog.Default()
	}
	t := &Tray{
		act:  menus.NewActions(opts, log.With("component", "tray")),
		ctrl: opts.Controller,
		done: make(chan struct{}),
	}
	t.start, t.end = trayLoop(t.onReady)
	return t
}

// Start exports the tray icon and builds its menu. Call it once, from Wails' OnStartup.
func (t *Tray) Start() {
	t.life.Lock()
	if t.started {
		t.life.Unlock()
		return
	}
	t.started = true
	t.life.Unlock()
	t.start()
}

// Stop removes the tray icon. Call it from Wails' OnShutdown.
func (t *Tray) Stop() {
	t.life.Lock()
	if !t.started || t.stopped {
		t.life.Unlock()
		return
	}
	t.stopped = true
	close(t.done)
	remove := t.remove
	t.life.Unlock()
	if remove != nil {
		remove()
	}
	t.end()
}

func (t *Tray) isStopped() bool {
	t.life.Lock()
	defer t.life.Unlock()
	return t.stopped
}

// menuBar says the tray is macOS's menu bar item. There a title is text beside the icon
// in the menu bar itself, and a click opens the menu, as every menu bar item does; so
// the title stays empty (the tooltip carries it) and no click handler replaces the menu.
var menuBar = runtime.GOOS == "darwin"

// onReady runs once systray is ready: it builds the menu and wires the clicks.
func (t *Tray) onReady() {
	if !menuBar {
		systray.SetTitle("Clanker")
	}
	systray.SetTooltip("Clanker")
	systray.SetIcon(trayIcon(false, 0, trayWantsICO))

	t.mu.Lock()
	t.header = systray.AddMenuItem("Clanker", "The conversation shown in the window")
	t.header.Disable()
	t.modes = map[engine.Mode]*systray.MenuItem{}
	for _, m := range menus.Modes {
		item := systray.AddMenuItemCheckbox(menus.ModeLabel(m), "Clanker's mode in this conversation", false)
		t.modes[m] = item
		t.onClick(item, func() { t.act.SetMode(m) })
	}
	t.reason = systray.AddMenuItem("", "")
	t.reason.Disable()
	t.reason.Hide()
	systray.AddSeparator()
	t.onClick(systray.AddMenuItem("Settings...", "Open the settings window"), t.act.Settings)
	diag := systray.AddMenuItem("Diagnostics", "State and maintenance")
	t.onClick(diag.AddSubMenuItem("Show conversation state", ""), func() { t.act.Diagnostics(false) })
	t.onClick(diag.AddSubMenuItem("Show sanitised state", "Without message text, names or ids"), func() { t.act.Diagnostics(true) })
	t.onClick(diag.AddSubMenuItem("Deactivate in all conversations", ""), t.act.DeactivateAll)
	t.onClick(diag.AddSubMenuItem("Purge conversation state", ""), t.act.PurgeConversation)
	t.onClick(diag.AddSubMenuItem("Purge all state data...", "Asks before deleting"), t.act.PurgeAll)
	t.updateItem = systray.AddMenuItem("", "Open the release page in your browser")
	t.updateItem.Hide()
	t.onClick(t.updateItem, t.act.OpenUpdate)
	systray.AddSeparator()
	t.window = systray.AddMenuItem("Show window", "")
	t.onClick(t.window, t.act.ToggleWindow)
	t.onClick(systray.AddMenuItem("Quit", "Quit Clanker"), t.act.Quit)
	if !menuBar {
		systray.SetOnTapped(t.act.ShowWindow)
	}
	t.mu.Unlock()

	t.update(t.ctrl.Status())
	remove := t.ctrl.OnStatus(t.update)
	t.life.Lock()
	if t.stopped {
		t.life.Unlock()
		remove()
		return
	}
	t.remove = remove
	t.life.Unlock()
}

// onClick runs fn on its own goroutine for each click, so a slow action (a dialog) never
// makes systray drop the next click.
func (t *Tray) onClick(item *systray.MenuItem, fn func()) {
	go func() {
		for {
			select {
			case <-item.ClickedCh:
				go fn()
			case <-t.done:
				return
			}
		}
	}()
}

// update redraws the menu and the icon from st.
func (t *Tray) update(st menus.Status) {
	v := menus.TrayStateOf(st)
	if t.isStopped() {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.header == nil {
		return
	}
	t.header.SetTitle(v.Header)
	for m, item := range t.modes {
		if m == v.Checked {
			item.Check()
		} else {
			item.Uncheck()
		}
		if v.ModesEnabled {
			item.Enable()
		} else {
			item.Disable()
		}
	}
	if v.Reason != "" {
		t.reason.SetTitle(v.Reason)
		t.reason.Show()
	} else {
		t.reason.Hide()
	}
	if v.Update != "" {
		t.updateItem.SetTitle(v.Update)
		t.updateItem.Show()
	} else {
		t.updateItem.Hide()
	}
	t.window.SetTitle(v.WindowLabel)
	if t.lastOn == nil || *t.lastOn != v.IconOn || t.lastBadge != v.Badge {
		systray.SetIcon(trayIcon(v.IconOn, v.Badge, trayWantsICO))
		on := v.IconOn
		t.lastOn = &on
		t.lastBadge = v.Badge
	}
	if v.Title != t.lastTip {
		if !menuBar {
			systray.SetTitle(v.Title)
		}
		systray.SetTooltip(v.Title)
		t.lastTip = v.Title
	}
}
