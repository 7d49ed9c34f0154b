//go:build linux

package e2e

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/tests/testkit"
)

// The spell-checking setting reaches WebKit and is applied while the app runs: read back
// from the web view's context, it is on with the chosen language at start, off once turned
// off, and back on with the languages saved next, of which WebKit keeps those it has a
// dictionary for (en_US from hunspell-en-us; xx_XX has none).
func TestSpellCheckingIsAppliedLiveAndReadBackFromTheWebView(t *testing.T) {
	needDisplay(t)
	f := newFullApp(t)
	f.configure()
	f.config("", "set", "spellCheck.languages", `["en_US"]`)
	f.launch()
	wait := func(what string, on bool, langs []string) {
		t.Helper()
		testkit.WaitFor(t, 30*time.Second, what, func() (bool, string) {
			st := f.status()
			return st.Spelling == on && slices.Equal(st.SpellLanguages, langs), fmt.Sprintf("spelling %v languages %q", st.Spelling, st.SpellLanguages)
		})
	}
	wait("spell checking on in English at start", true, []string{"en_US"})
	f.config("", "set", "spellCheck.enabled", "false")
	wait("spell checking off once turned off", false, []string{"en_US"})
	f.config("", "set", "spellCheck.languages", `["xx_XX","en_US"]`)
	f.config("", "set", "spellCheck.enabled", "true")
	wait("spell checking back on with the languages that have a dictionary", true, []string{"en_US"})
}
