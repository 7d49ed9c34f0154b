package engine

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// Spell-checking languages are typed loosely and stored as dictionary names; a name that is
// no language is refused with a sentence, too many are refused, and stored values that would
// not validate are cleaned at load rather than refused.
func TestSpellCheckingLanguagesAreNormalisedAndChecked(t *testing.T) {
	s := DefaultSettings()
	if !s.SpellCheck.Enabled || s.SpellCheck.Languages == nil {
		t.Fatalf("default: want spell checking on with the system's language (an empty list), got %+v", s.SpellCheck)
	}
	s.SpellCheck.Languages = []string{" de-de", "en_us", "FR", "de_DE", ""}
	s.Normalize()
	if want := []string{"de_DE", "en_US", "fr"}; !slices.Equal(s.SpellCheck.Languages, want) {
		t.Fatalf("normalised: want %q, got %q", want, s.SpellCheck.Languages)
	}
	if err := s.Validate(); err != nil {
		t.Fatalf("good languages refused: %v", err)
	}
	for _, bad := range [][]string{{"english"}, {"en_US;rm -rf"}, {"e"}, strings.Fields("aa bb cc dd ee ff gg hh ii")} {
		s := DefaultSettings()
		s.SpellCheck.Languages = bad
		s.Normalize()
		var fe FieldErrors
		err := s.Validate()
		if !asFieldErrors(err, &fe) || fe.For(FieldSpellLanguages) == "" {
			t.Errorf("languages %q: want a sentence for %s, got %v", bad, FieldSpellLanguages, err)
		}
	}
	stored := DefaultSettings()
	stored.SpellCheck.Languages = []string{"en_US", "not a language", "de_DE"}
	stored.Clamp()
	if want := []string{"en_US", "de_DE"}; !slices.Equal(stored.SpellCheck.Languages, want) {
		t.Errorf("clamped: want %q, got %q", want, stored.SpellCheck.Languages)
	}
	// A row saved before the setting existed loads with it on.
	var old Settings = DefaultSettings()
	if err := json.Unmarshal([]byte(`{"endpoint":"","notifications":{"errors":true}}`), &old); err != nil || !old.SpellCheck.Enabled {
		t.Errorf("settings stored before spell checking: want it on, got %+v (%v)", old.SpellCheck, err)
	}
}

func asFieldErrors(err error, out *FieldErrors) bool {
	fe, ok := err.(FieldErrors)
	if ok {
		*out = fe
	}
	return ok
}
