package macos

import (
	"fmt"
	"strings"
	"unicode"
)

// Notification is one UNNotificationRequest as the Objective-C side posts it.
type Notification struct {
	// Identifier is unique per notification: a request with the identifier of one still
	// on screen would replace it.
	Identifier string
	Title      string
	Body       string
	// ThreadID groups notifications in Notification Center: errors apart from messages.
	ThreadID string
	// Sound plays the default sound: errors that need the user do, messages do not.
	Sound bool
}

// Thread identifiers of Clanker's two kinds of notification.
const (
	ThreadErrors   = "clanker.errors"
	ThreadMessages = "clanker.messages"
)

// maxTitleRunes and maxBodyRunes bound what a notification shows: Notification Center
// cuts longer text itself, but a huge body from the page should not travel that far.
const (
	maxTitleRunes = 120
	maxBodyRunes  = 400
)

// NewNotification builds the request for a notification with summary and body (plain
// text: macOS shows no markup, so nothing is escaped). urgent marks an error that
// needs the user. run tells this process's notifications from an earlier run's (the
// caller passes something unique per run, such as the start time) and seq counts
// within the run.
func NewNotification(summary, body string, urgent bool, run string, seq uint64) Notification {
	title := clean(summary, maxTitleRunes, true)
	if title == "" {
		title = "Clanker"
	}
	n := Notification{
		Identifier: fmt.Sprintf("clanker.%s.%d", run, seq),
		Title:      title,
		Body:       clean(body, maxBodyRunes, false),
		ThreadID:   ThreadMessages,
	}
	if urgent {
		n.ThreadID = ThreadErrors
		n.Sound = true
	}
	return n
}

// clean drops control characters and invalid UTF-8 (keeping line breaks in a body),
// folds a title onto one line, and cuts the text to at most max runes, marking the cut.
func clean(s string, max int, oneLine bool) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' && !oneLine:
			return r
		case r == '\n' || r == '\t' || r == '\r':
			return ' '
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			return -1
		}
		return r
	}, s)
	if oneLine {
		s = strings.Join(strings.Fields(s), " ")
	} else {
		s = strings.TrimSpace(s)
	}
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}
