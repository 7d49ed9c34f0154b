package engine

import (
	"strings"
	"unicode/utf8"
)

// Clip shortens text for a place with a limit (a notification, a log line, an error that
// quotes untrusted input, a tray label): at most n runes, the last one an ellipsis when
// something was cut, so the reader can tell the text goes on. Invalid UTF-8 is dropped
// first, because the text may come from the page or the model and the places it goes
// expect valid text. n below 1 gives "".
func Clip(s string, n int) string {
	if n < 1 {
		return ""
	}
	// Walk the runes rather than convert the whole text: a hostile page can send megabytes
	// where a few hundred runes are shown. Invalid bytes are not counted; they are dropped.
	cut, k := 0, 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			i++
			continue
		}
		if k == n-1 {
			cut = i
		}
		if k == n {
			return strings.ToValidUTF8(s[:cut], "") + "…"
		}
		k++
		i += size
	}
	return strings.ToValidUTF8(s, "")
}
