package window

import (
	"context"
	"errors"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/internal/native"
)

// This file holds what the window does for the desktop around the page: asking for the
// user's attention, and the page's spell checking.

// Spelling is the page's spell-checking setting: on or off, and the languages to check
// (dictionary names; none means the system's language).
type Spelling struct {
	On        bool
	Languages []string
}

// ErrNoSpelling is returned where the platform cannot set spell checking while the app
// runs (WebView2 and WKWebView: untested, not implemented).
var ErrNoSpelling = errors.New("spell checking cannot be set on this platform yet")

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

// SetSpelling applies sp to the page at once (the next word typed is checked by it).
func (s *Shell) SetSpelling(sp Spelling) error {
	v, ok := s.plat.(native.SpellView)
	if !ok {
		return ErrNoSpelling
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return v.SetSpellChecking(ctx, sp.On, sp.Languages)
}

// Spelling reads the page's spell checking back from the web view: whether it is on and
// the languages it checks (those a dictionary is installed for).
func (s *Shell) Spelling() (Spelling, error) {
	v, ok := s.plat.(native.SpellView)
	if !ok {
		return Spelling{}, ErrNoSpelling
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	on, langs, err := v.SpellChecking(ctx)
	return Spelling{On: on, Languages: langs}, err
}

// applySpelling sets the spelling of Options.Spelling once the view is set up.
func (s *Shell) applySpelling() {
	if s.opts.Spelling == nil {
		return
	}
	if err := s.SetSpelling(*s.opts.Spelling); err != nil && !errors.Is(err, ErrNoSpelling) {
		s.log.Warn("spell checking not set", "err", err)
	}
}
