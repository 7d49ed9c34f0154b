// Package text holds the rules the desktop packages share for showing untrusted text
// (conversation names and message text from the page) in menus, dialogs and
// notifications: one line, and a bounded length.
package text

import (
	"strings"
	"unicode/utf8"
)

// OneLine collapses every run of white space, line breaks included, into one space.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Clip cuts s to at most n runes, marking the cut, and drops invalid UTF-8.
func Clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
