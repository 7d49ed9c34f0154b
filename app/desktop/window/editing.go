package window

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/internal/native"
	"github.com/clanker-desktop/clanker/app/desktop/menus"
)

// Editing in the page: the menus' edit commands and spell checking.

func (s *Shell) editCommand(cmd menus.EditCommand) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if mp, ok := s.plat.(native.MenuView); ok {
		return mp.EditCommand(ctx, cmd)
	}
	// NOT TESTED (Windows): the page's own editing commands; the web view also handles
	// the usual shortcuts itself.
	return s.ExecJS(fmt.Sprintf("document.execCommand(%q)", execCommandName(cmd)))
}

func execCommandName(cmd menus.EditCommand) string {
	switch cmd {
	case menus.EditSelectAll:
		return "selectAll"
	default:
		return string(cmd)
	}
}

// Spelling is the page's spell-checking setting: on or off, and the languages to check
// (dictionary names; none means the system's language).
type Spelling struct {
	On        bool
	Languages []string
}

// ErrNoSpelling is returned where the platform cannot set spell checking while the app
// runs (WebView2 and WKWebView: untested, not implemented).
var ErrNoSpelling = errors.New("spell checking cannot be set on this platform yet")

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
