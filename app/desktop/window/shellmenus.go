package window

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/internal/native"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/clanker-desktop/clanker/app/engine"
)

// visibilityMu guards Shell.visHooks, the functions OnVisibility registered.
var visibilityMu sync.Mutex

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

func (s *Shell) onShutdown(_ context.Context) {
	s.stopAppMenu()
	if s.tray != nil {
		s.tray.Stop()
	}
}

// Visible reports whether the main window is shown, as far as Show, Hide and the start
// option tell (closing the window with HideOnClose goes through Hide too).
func (s *Shell) Visible() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.visible
}

// OnVisibility registers fn to be called after every Show and Hide.
func (s *Shell) OnVisibility(fn func(visible bool)) {
	visibilityMu.Lock()
	defer visibilityMu.Unlock()
	s.visHooks = append(s.visHooks, fn)
}

func (s *Shell) setVisible(v bool) {
	s.mu.Lock()
	s.visible = v
	s.mu.Unlock()
	visibilityMu.Lock()
	hooks := append([]func(bool){}, s.visHooks...)
	visibilityMu.Unlock()
	for _, fn := range hooks {
		go fn(v)
	}
}

// confirmDialog asks a yes/no question in a native dialog of the main window.
func (s *Shell) confirmDialog(title, message string) bool {
	ctx, err := s.wailsCtx()
	if err != nil {
		return false
	}
	answer, err := runtime.MessageDialog(ctx, runtime.MessageDialogOptions{
		Type:          runtime.QuestionDialog,
		Title:         title,
		Message:       message,
		Buttons:       []string{"Yes", "No"},
		DefaultButton: "No",
		CancelButton:  "No",
	})
	return err == nil && answer == "Yes"
}

// textDialog shows text in a native message dialog: readable, but not copyable. The app
// should supply MenuOptions.ShowText (the settings process's diagnostics view) instead.
func (s *Shell) textDialog(title, body string) {
	ctx, err := s.wailsCtx()
	if err != nil {
		return
	}
	_, _ = runtime.MessageDialog(ctx, runtime.MessageDialogOptions{
		Type:    runtime.InfoDialog,
		Title:   title,
		Message: engine.Clip(body, 4000),
	})
}
