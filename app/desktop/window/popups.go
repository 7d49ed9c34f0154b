package window

import (
	"fmt"
	"strings"

	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// Popup windows and links: which origins open in-app, the rest in the user's
// browser.

// OpenPopups is the number of popup windows currently open.
func (s *Shell) OpenPopups() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.popups
}

// popupAllowed decides whether window.open(url) opens in-app; otherwise the URL goes to
// OpenExternal (only http and https: other schemes are dropped).
func (s *Shell) popupAllowed(url string) bool {
	o := originOf(url)
	for _, allowed := range s.opts.PopupOrigins {
		if o != "" && o == allowed {
			return true
		}
	}
	s.log.Info("popup refused in-app; opening outside", "origin", o)
	if o != "" {
		go s.openExternal(url)
	}
	return false
}

// OpenInBrowser opens an http or https address in the user's browser (a release page the
// menus offer). Other schemes are refused.
func (s *Shell) OpenInBrowser(url string) error {
	if !strings.HasPrefix(url, "https://") && !strings.HasPrefix(url, "http://") {
		return fmt.Errorf("not a web address: %q", url)
	}
	if s.opts.OpenExternal == nil {
		if _, err := s.wailsCtx(); err != nil {
			return err
		}
	}
	s.openExternal(url)
	return nil
}

func (s *Shell) openExternal(url string) {
	if s.opts.OpenExternal != nil {
		s.opts.OpenExternal(url)
		return
	}
	if ctx, err := s.wailsCtx(); err == nil {
		runtime.BrowserOpenURL(ctx, url)
	}
}

func (s *Shell) popupEvent(e PopupEvent) {
	s.mu.Lock()
	switch e {
	case PopupCreated:
		s.popups++
	case PopupClosed:
		if s.popups > 0 {
			s.popups--
		}
	}
	s.mu.Unlock()
	s.log.Info("popup", "event", e.String())
	if s.opts.OnPopup != nil {
		go s.opts.OnPopup(e)
	}
}
