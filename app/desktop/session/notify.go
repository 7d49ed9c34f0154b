package session

import (
	"strings"

	"github.com/clanker-desktop/clanker/app/desktop/internal/text"
	"github.com/clanker-desktop/clanker/app/engine"
)

// Notification is one desktop notification. Summary and Body are plain text: the Linux
// server may read markup in the body, so Notify escapes it.
type Notification struct {
	Summary string
	Body    string
	// Urgent marks errors that need the user (a dead API key, an exhausted budget).
	Urgent bool
	// Target is what a click on the notification opens (a conversation id), reported
	// to the function given to Clickable.OnClick; "" makes a notification without a
	// click action.
	Target string
	// Key names the notification: one with the Key of a notification still shown
	// replaces it in place, and Withdraw removes it. "" makes a notification of its own.
	Key string
	// Sound asks the notification server for its new-message sound.
	Sound bool
}

// Clickable is implemented by notifiers that report a click on a notification with a
// Target (Linux). fn runs on a goroutine of the notifier's.
type Clickable interface {
	OnClick(fn func(target string))
}

// Authorizer is implemented by notifiers whose system asks the user once whether the
// app may notify (macOS). fn learns the answer, with the system's reason when it is no,
// on a goroutine of the notifier's; an answer given before fn was set is passed on when
// it is.
type Authorizer interface {
	OnAuthorization(fn func(granted bool, reason string))
}

// Notifier shows native desktop notifications, one implementation per OS:
// org.freedesktop.Notifications over the session bus on Linux (tested),
// UNUserNotificationCenter on macOS (notify_darwin.go; Clanker.app only), toasts through
// the Windows Runtime on Windows (notify_windows.go).
type Notifier interface {
	Notify(n Notification) error
	// Withdraw removes the notification shown under key, if one is.
	Withdraw(key string) error
	Close() error
}

// maxNotifyRunes bounds what a notification shows: message text comes from the page and
// may be arbitrarily long.
const maxNotifyRunes = 200

// IncomingMessage builds the notification for a message that arrived while the window
// was not in front. With hideContent the text never leaves the app: the body only says
// that a message came, so a notification on a shared or recorded screen shows no content.
func IncomingMessage(sender, body string, hideContent bool) Notification {
	sender = engine.Clip(text.OneLine(sender), 80)
	if sender == "" {
		sender = "Someone"
	}
	n := Notification{Summary: "New message from " + sender}
	if hideContent {
		n.Body = "Open Clanker to read it."
	} else {
		n.Body = engine.Clip(body, maxNotifyRunes)
	}
	return n
}

// ErrorNotification builds the notification for one of Clanker's errors (the LLM
// refused, the budget ran out). msg is the user-facing sentence.
func ErrorNotification(msg string) Notification {
	return Notification{Summary: "Clanker", Body: engine.Clip(msg, maxNotifyRunes), Urgent: true, Key: engine.NoticeKeyError}
}

// FromEngine is the notification for what the engine decided to show.
func FromEngine(n engine.DesktopNotice) Notification {
	return Notification{Summary: engine.Clip(text.OneLine(n.Summary), 120), Body: engine.Clip(n.Body, maxNotifyRunes),
		Urgent: n.Urgent, Target: string(n.Conversation), Key: n.Key, Sound: n.Sound}
}

// escapeMarkup escapes the characters the freedesktop body markup gives meaning to.
func escapeMarkup(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
