package window

import (
	"context"
	"sync"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/internal/native"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// The window on screen: showing, hiding (also when the user closes it), quitting,
// who is told of each change, and the call for the user's attention.

// visibilityMu guards Shell.visHooks, the functions OnVisibility registered.
var visibilityMu sync.Mutex

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

// SetUrgent sets or clears the window's call for attention (its urgency hint on Linux).
// Where the platform has none it does nothing.
func (s *Shell) SetUrgent(on bool) error {
	av, ok := s.plat.(native.AttentionView)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return av.SetUrgent(ctx, on)
}

// Show brings the main window back (from the tray).
func (s *Shell) Show() error {
	ctx, err := s.wailsCtx()
	if err != nil {
		return err
	}
	runtime.WindowShow(ctx)
	// Showing a window that is already shown but behind others, or minimised, does
	// nothing; presenting it brings it to the front with the keyboard.
	runtime.WindowUnminimise(ctx)
	s.setVisible(true)
	return nil
}

// Hide hides the main window; the page keeps running and native input still works.
func (s *Shell) Hide() error {
	ctx, err := s.wailsCtx()
	if err != nil {
		return err
	}
	runtime.WindowHide(ctx)
	s.setVisible(false)
	return nil
}

// Quit ends Run.
func (s *Shell) Quit() error {
	ctx, err := s.wailsCtx()
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.quitting = true
	s.mu.Unlock()
	runtime.Quit(ctx)
	return nil
}

// onBeforeClose runs when the user closes the window and when Quit is called (Wails
// sends both through the same path). With HideOnClose, closing hides the window through
// Hide, so the visibility hooks learn of it (Wails' own hide-on-close would not tell
// anyone), and only Quit ends the app.
func (s *Shell) onBeforeClose(_ context.Context) (prevent bool) {
	s.mu.Lock()
	quitting := s.quitting
	s.mu.Unlock()
	if quitting || !s.opts.HideOnClose {
		return false
	}
	if err := s.Hide(); err != nil {
		return false
	}
	s.log.Info("window closed: hidden to the tray")
	return true
}
