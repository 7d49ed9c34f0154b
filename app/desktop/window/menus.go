package window

import (
	"context"
	"errors"
	goruntime "runtime"
	"sync"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/internal/native"
	"github.com/clanker-desktop/clanker/app/desktop/menus"
	"github.com/wailsapp/wails/v2/pkg/menu"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// The menus on screen: the tray, the app menu and the page's right-click items,
// driven by menus.Controller, and the status they show.

// initMenus prepares the tray when the options ask for the Clanker menu, filling in the
// native confirmation and text dialogs the caller did not supply.
func (s *Shell) initMenus() error {
	m := s.opts.Menus
	if m == nil {
		return nil
	}
	if m.Controller == nil {
		return errors.New("desktop: Options.Menus needs a Controller")
	}
	if m.Confirm == nil {
		m.Confirm = s.confirmDialog
	}
	if m.ShowText == nil {
		m.ShowText = s.textDialog
	}
	if !m.NoTray {
		s.tray = NewTray(*m, s.log)
	}
	s.initAppMenu(*m)
	return nil
}

// startMenus starts the tray. Where the platform says native work must run on the GUI
// thread (macOS: AppKit makes status items only there), it runs there.
func (s *Shell) startMenus() {
	if s.tray == nil {
		return
	}
	if m, ok := s.plat.(native.MainThread); ok {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := m.RunOnMainThread(ctx, s.tray.Start); err != nil {
			s.log.Warn("the tray icon was not started", "err", err)
		}
		return
	}
	s.tray.Start()
}

// shellMenus is the Shell's part of the app menu and the right-click menu.
type shellMenus struct {
	app *menus.AppMenu
	act *menus.Actions // the right-click menu's actions: the same code as every other menu

	mu      sync.Mutex
	zoom    float64
	pending *menus.Status
	remove  func()

	applyMu sync.Mutex // one status applied at a time, the latest one
}

// initAppMenu builds the app menu. It shows a neutral status until the window is set up
// (menusReady): the Controller may not be able to answer Status before the app runs.
func (s *Shell) initAppMenu(opts menus.MenuOptions) {
	win := menus.WindowActions{
		Reload:    func() error { return s.Reload(context.Background()) },
		ZoomIn:    func() error { return s.stepZoom(1) },
		ZoomOut:   func() error { return s.stepZoom(-1) },
		ZoomReset: func() error { return s.SetZoom(1) },
		Edit:      s.editCommand,
		About:     s.aboutDialog,
	}
	s.menuState.app = menus.NewAppMenu(opts, win, s.opts.Version, goruntime.GOOS, menus.Status{WindowVisible: !s.opts.StartHidden}, s.log)
	s.menuState.act = menus.NewActions(opts, s.log.With("component", "contextmenu"))
	s.menuState.zoom = 1
	s.menuState.app.SetAfterModeClick(func() { s.applyStatus(opts.Controller.Status()) })
}

// wailsMenu is the menu bar handed to Wails, or nil without Options.Menus.
func (s *Shell) wailsMenu() *menu.Menu {
	if s.menuState.app == nil {
		return nil
	}
	if _, ok := s.plat.(native.MenuView); ok {
		s.menuState.app.RevealAll()
	}
	return s.menuState.app.Menu()
}

// menusReady runs once the native layer is set up: it installs the right-click menu
// and keeps both menus in step with the Controller from now on.
func (s *Shell) menusReady() {
	if s.menuState.app == nil {
		return
	}
	ctrl := s.opts.Menus.Controller
	if cp, ok := s.plat.(native.ContextMenuView); ok && native.ContextMenu {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := cp.InstallContextMenu(ctx); err != nil {
			s.log.Warn("page context menu without Clanker items", "err", err)
		}
		cancel()
	}
	s.applyStatus(ctrl.Status())
	remove := ctrl.OnStatus(s.applyStatus)
	s.menuState.mu.Lock()
	s.menuState.remove = remove
	s.menuState.mu.Unlock()
}

func (s *Shell) stopAppMenu() {
	s.menuState.mu.Lock()
	remove := s.menuState.remove
	s.menuState.remove = nil
	s.menuState.mu.Unlock()
	if remove != nil {
		remove()
	}
}

// applyStatus redraws the app menu and the right-click menu's copy of the status. Calls
// may overlap; each applies the latest status seen, so the last one always wins.
func (s *Shell) applyStatus(st menus.Status) {
	s.menuState.mu.Lock()
	s.menuState.pending = &st
	s.menuState.mu.Unlock()

	s.menuState.applyMu.Lock()
	defer s.menuState.applyMu.Unlock()
	s.menuState.mu.Lock()
	p := s.menuState.pending
	s.menuState.pending = nil
	s.menuState.mu.Unlock()
	if p == nil {
		return // a later call already applied it
	}
	st = *p
	wctx, err := s.wailsCtx()
	if err != nil {
		s.menuState.app.Update(st)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if mp, ok := s.plat.(native.MenuView); ok {
		err := mp.SyncAppMenu(ctx, func() []menus.NativeItem {
			s.menuState.app.Update(st)
			return s.menuState.app.NativeItems()
		})
		if err != nil {
			s.log.Warn("app menu not updated", "err", err)
		}
	} else {
		s.menuState.app.Update(st)
		runtime.MenuUpdateApplicationMenu(wctx)
	}
	if cp, ok := s.plat.(native.ContextMenuView); ok && native.ContextMenu {
		if err := cp.SetContextMenuStatus(ctx, menus.ContextMenuStateOf(st)); err != nil {
			s.log.Warn("context menu status not updated", "err", err)
		}
	}
}

// contextAction runs a right-click menu item's action (on its own goroutine).
func (s *Shell) contextAction(name, target string) {
	a := s.menuState.act
	if a == nil {
		return
	}
	if a.ContextItem(name, target) {
		s.applyStatus(s.opts.Menus.Controller.Status())
	}
}

// ActivateContextMenuItem activates a Clanker item of the page's right-click menu as a
// click on the item does (through its GAction on Linux, its NSMenuItem's target and
// action on macOS): name is "mode" (target the mode), "settings", "diag-state",
// "diag-sanitised", "deactivate-all", "purge-conversation" or "purge-all". For tests
// and diagnostics; Linux and macOS.
func (s *Shell) ActivateContextMenuItem(ctx context.Context, name, target string) error {
	cp, ok := s.plat.(native.ContextMenuView)
	if !ok || !native.ContextMenu {
		return ErrUnsupported
	}
	return cp.ActivateContextAction(ctx, name, target)
}

// NativeMenuText describes the native menus as text, one item per line (depth, kind,
// flags s/v/a/p for sensitive, visible, active, selected, accelerator, label): the window's menu
// bar, or with popup the menus currently on screen (an open right-click menu). For
// tests and diagnostics; Linux only.
func (s *Shell) NativeMenuText(ctx context.Context, popup bool) (string, error) {
	mp, ok := s.plat.(native.MenuView)
	if !ok {
		return "", ErrUnsupported
	}
	which := 0
	if popup {
		which = 1
	}
	return mp.MenuDump(ctx, which)
}
