package desktop

import (
	"log/slog"
	"sync"

	"fyne.io/systray"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/build/icons"
)

// Tray is the notification-area icon and its menu (fyne.io/systray). On Linux it is a
// StatusNotifierItem with a com.canonical.dbusmenu menu on the session bus, so it runs
// beside Wails' GTK loop without fighting it: Start is called from Wails' OnStartup and
// Stop from OnShutdown. There is one tray per process (systray is global).
//
// The icon is "on" while Clanker takes part in the foreground conversation and "off"
// otherwise; the title carries the mode and, while the window is hidden, the unread
// count. The mode items are check items (systray has no radio items) of which exactly
// one is checked; they are disabled, with the reason shown under them, when the mode
// cannot change.
type Tray struct {
	act   *actions
	start func()
	end   func()

	mu      sync.Mutex // serialises item updates: systray's items are not safe for concurrent use
	started bool
	stopped bool
	done    chan struct{}
	remove  func()

	header  *systray.MenuItem
	modes   map[engine.Mode]*systray.MenuItem
	reason  *systray.MenuItem
	window  *systray.MenuItem
	lastOn  *bool
	lastTip string
}

// NewTray prepares the tray; nothing appears until Start.
func NewTray(opts MenuOptions, log *slog.Logger) *Tray {
	if log == nil {
		log = slog.Default()
	}
	t := &Tray{
		act:  &actions{opts: opts, log: log.With("component", "tray")},
		done: make(chan struct{}),
	}
	t.start, t.end = systray.RunWithExternalLoop(t.onReady, nil)
	return t
}

// Start exports the tray icon and builds its menu. Call it once, from Wails' OnStartup.
func (t *Tray) Start() {
	t.mu.Lock()
	if t.started {
		t.mu.Unlock()
		return
	}
	t.started = true
	t.mu.Unlock()
	t.start()
}

// Stop removes the tray icon. Call it from Wails' OnShutdown.
func (t *Tray) Stop() {
	t.mu.Lock()
	if !t.started || t.stopped {
		t.mu.Unlock()
		return
	}
	t.stopped = true
	close(t.done)
	remove := t.remove
	t.mu.Unlock()
	if remove != nil {
		remove()
	}
	t.end()
}

// onReady runs once systray is ready: it builds the menu and wires the clicks.
func (t *Tray) onReady() {
	systray.SetTitle("Clanker")
	systray.SetIcon(icons.TrayOff)

	t.mu.Lock()
	t.header = systray.AddMenuItem("Clanker", "The conversation shown in the window")
	t.header.Disable()
	t.modes = map[engine.Mode]*systray.MenuItem{}
	for _, m := range Modes {
		item := systray.AddMenuItemCheckbox(ModeLabel(m), "Clanker's mode in this conversation", false)
		t.modes[m] = item
		t.onClick(item, func() { t.act.setMode(m) })
	}
	t.reason = systray.AddMenuItem("", "")
	t.reason.Disable()
	t.reason.Hide()
	systray.AddSeparator()
	t.onClick(systray.AddMenuItem("Settings...", "Open the settings window"), t.act.settings)
	diag := systray.AddMenuItem("Diagnostics", "State and maintenance")
	t.onClick(diag.AddSubMenuItem("Show conversation state", ""), func() { t.act.diagnostics(false) })
	t.onClick(diag.AddSubMenuItem("Show sanitised state", "Without message text, names or ids"), func() { t.act.diagnostics(true) })
	t.onClick(diag.AddSubMenuItem("Deactivate in all conversations", ""), t.act.deactivateAll)
	t.onClick(diag.AddSubMenuItem("Purge conversation state", ""), t.act.purgeConversation)
	t.onClick(diag.AddSubMenuItem("Purge all state data...", "Asks before deleting"), t.act.purgeAll)
	systray.AddSeparator()
	t.window = systray.AddMenuItem("Show window", "")
	t.onClick(t.window, t.act.toggleWindow)
	t.onClick(systray.AddMenuItem("Quit", "Quit Clanker"), t.act.quit)
	systray.SetOnTapped(t.act.showWindow)
	t.mu.Unlock()

	t.update(t.act.opts.Controller.Status())
	remove := t.act.opts.Controller.OnStatus(t.update)
	t.mu.Lock()
	if t.stopped {
		t.mu.Unlock()
		remove()
		return
	}
	t.remove = remove
	t.mu.Unlock()
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
func (t *Tray) update(st Status) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.header == nil || t.stopped {
		return
	}
	t.header.SetTitle(conversationLabel(st))
	for m, item := range t.modes {
		if m == st.Mode {
			item.Check()
		} else {
			item.Uncheck()
		}
		if st.ModeLocked || st.ConversationID == "" {
			item.Disable()
		} else {
			item.Enable()
		}
	}
	if st.ModeLocked && st.LockReason.Sentence() != "" {
		t.reason.SetTitle(st.LockReason.Sentence())
		t.reason.Show()
	} else {
		t.reason.Hide()
	}
	if st.WindowVisible {
		t.window.SetTitle("Hide window")
	} else {
		t.window.SetTitle("Show window")
	}
	on := iconOn(st)
	if t.lastOn == nil || *t.lastOn != on {
		if on {
			systray.SetIcon(icons.TrayOn)
		} else {
			systray.SetIcon(icons.TrayOff)
		}
		t.lastOn = &on
	}
	if tip := trayTitle(st); tip != t.lastTip {
		systray.SetTitle(tip)
		systray.SetTooltip(tip)
		t.lastTip = tip
	}
}
