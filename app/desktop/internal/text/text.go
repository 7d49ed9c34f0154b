// Package text holds the rules the desktop packages share for showing untrusted text
// (conversation names and message text from the page) in menus, dialogs and
// notifications: one line (OneLine here), and a bounded length (engine.Clip, which the
// whole app shares).
package text

import "strings"

// OneLine collapses every run of white space, line breaks included, into one space.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
