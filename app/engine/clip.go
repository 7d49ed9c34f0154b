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
	s = strings.ToValidUTF8(s, "")
	if n < 1 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
