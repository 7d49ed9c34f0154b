package engine

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// This file holds what the engine decides for the desktop around the page: which messages
// and errors become desktop notifications, how a conversation's messages stack into one
// notification, when it is withdrawn, the window's call for attention, and the banners the
// state of the page itself calls for. The desktop layer (app/run and app/desktop) only
// carries out what the Desktop port is told.

// Desktop carries out the engine's decisions about the desktop outside the page. Its
// methods are called on the engine goroutine and must not block; the calls come in the
// order they are meant to happen.
type Desktop interface {
	// Notify shows the notification n.Key, replacing the one shown under the same key, or
	// removes it (n.Withdraw). Notifications of other keys are left alone.
	Notify(n DesktopNotice)
	// Attention says how many messages came in while the user was away (the tray shows
	// the count) and whether the window should ask for attention (its urgency hint):
	// urgent is true while messages wait and the window is hidden or behind another.
	Attention(unread int, urgent bool)
}

// DesktopNotice is one desktop notification the engine decided on. Summary and Body are
// plain text; Body may hold page text (untrusted), already clipped.
type DesktopNotice struct {
	// Key is the notification's identity: one notification per key, updated in place.
	// A conversation's messages share one (NoticeKeyMessages), errors another.
	Key string
	// Withdraw removes the notification shown under Key; the other fields are empty.
	Withdraw bool
	// Conversation is what a click on the notification opens ("" for none).
	Conversation ConversationID
	Summary      string
	Body         string
	// Urgent marks an error that needs the user (a refused key, a spent budget).
	Urgent bool
	// Sound asks the notification server to play its message sound.
	Sound bool
}

// NoticeKeyError is the key of the desktop notification for Clanker's errors: a new error
// replaces the previous one.
const NoticeKeyError = "error"

// NoticeKeyMessages is the key of the desktop notification for the messages of one
// conversation.
func NoticeKeyMessages(id ConversationID) string { return "messages:" + string(id) }

// MessageArrived reports a message someone else wrote, as the page saw it arrive: a new row
// of the conversation on screen, or another conversation's row in the list that changed
// with a message not yet read. Sender and Text come from the page (untrusted; Text may be
// "(a picture)").
type MessageArrived struct {
	Conversation ConversationID
	Sender       string
	Text         string
}

// WindowFocus reports whether the main window is the active one (in front and focused).
// A platform that cannot tell never sends it; the window then counts as in front while
// it is shown.
type WindowFocus struct{ Active bool }

// SettingsWindow reports that the settings window opened or closed.
type SettingsWindow struct{ Open bool }

func (e MessageArrived) validate() error {
	if err := validateConvID(e.Conversation); err != nil {
		return err
	}
	if len(e.Sender) > maxIDLen || len(e.Text) > maxTextLen {
		return fmt.Errorf("arrived message of %d+%d bytes, more than the limits of %d and %d", len(e.Sender), len(e.Text), maxIDLen, maxTextLen)
	}
	return nil
}

func (WindowFocus) validate() error    { return nil }
func (SettingsWindow) validate() error { return nil }

// Limits of what a desktop notification shows.
const (
	// noticeRunes bounds a notification's body: message text may be arbitrarily long.
	noticeRunes = 200
	// noticeNameRunes bounds a name in a notification's summary.
	noticeNameRunes = 80
	// noticeRepeat is how long the same error text is not notified again: the engine may
	// report one failure per message, and one notification says it.
	noticeRepeat = time.Minute
	// maxStacks bounds the conversations with a notification standing; past it the oldest
	// is forgotten (its notification stays on screen until the server drops it).
	maxStacks = 64
)

// BannerPage is the key of the banner about the page itself: not paired yet, or not
// recognised as Messages.
const BannerPage = "page"

// PairingExplanation is the banner on the signed-out (pairing) page: Messages for web
// must be paired with the phone before there is anything for Clanker to do.
const PairingExplanation = "Pair Messages for web with your phone first: scan the QR code with the Messages app on your phone (or sign in with your Google account if the page offers it). Clanker does nothing until then."

// UnrecognisedWarning is shown while the page does not look like Google Messages. The
// engine does nothing there (it acts only on a ready page); the user should know why.
const UnrecognisedWarning = "Clanker does not recognise this page (Google may have changed Messages), so it is doing nothing here. Check for a Clanker update."

// alerts is the engine's desktop state: whether the user is at the window, what stands on
// the desktop for each conversation, and which errors were told lately. Owned by the Run
// goroutine.
type alerts struct {
	// unfocused is set while the window is shown but another window is in front.
	unfocused bool
	// settingsOpen is set while the settings window is open.
	settingsOpen bool
	// unread counts messages that came while the user was away; reset when they return.
	unread int
	// stacks is what each conversation's notification says now, by conversation.
	stacks map[ConversationID]*stack
	order  []ConversationID // stacks, oldest first
	// told is when each error text was last notified.
	told map[string]time.Time
	// pageBanner is the page banner shown now ("" for none).
	pageBanner string
}

// stack is the messages one conversation's notification stands for.
type stack struct {
	count   int
	senders []string // distinct, in order of arrival, at most three
	last    string   // the newest message's text
	lastBy  string
}

// away reports whether new messages go unseen: the window is hidden, minimised or behind
// another window.
func (e *Engine) away() bool { return e.hidden || e.alerts.unfocused }

func (e *Engine) desktopNotify(n DesktopNotice) {
	if e.desktop != nil {
		e.desktop.Notify(n)
	}
}

func (e *Engine) attention() {
	if e.desktop != nil {
		e.desktop.Attention(e.alerts.unread, e.alerts.unread > 0 && e.away())
	}
}

// onArrived counts a message that came while the user was away and, unless the user turned
// it off, adds it to its conversation's notification. A message the user can see on screen
// is neither.
func (e *Engine) onArrived(ev MessageArrived) {
	if !e.away() {
		return
	}
	e.alerts.unread++
	e.attention()
	ns := e.settings.Notifications
	if !ns.IncomingWhileHidden {
		return
	}
	st := e.alerts.stacks[ev.Conversation]
	if st == nil {
		if e.alerts.stacks == nil {
			e.alerts.stacks = map[ConversationID]*stack{}
		}
		if len(e.alerts.order) >= maxStacks {
			delete(e.alerts.stacks, e.alerts.order[0])
			e.alerts.order = e.alerts.order[1:]
		}
		st = &stack{}
		e.alerts.stacks[ev.Conversation] = st
		e.alerts.order = append(e.alerts.order, ev.Conversation)
	}
	sender := Clip(CleanName(ev.Sender), noticeNameRunes)
	if sender == "" {
		sender = "Someone"
	}
	st.count++
	st.last, st.lastBy = ev.Text, sender
	if !containsString(st.senders, sender) && len(st.senders) < 3 {
		st.senders = append(st.senders, sender)
	}
	n := st.notice(e.listedName(ev.Conversation), ns.HideContent)
	n.Key, n.Conversation, n.Sound = NoticeKeyMessages(ev.Conversation), ev.Conversation, ns.Sound
	e.desktopNotify(n)
}

// notice is what a conversation's notification says: the sender of a single message and its
// text, or how many came, from whom or in which conversation, and the newest one's text.
// With hideContent no message text is in it.
func (s *stack) notice(name string, hideContent bool) DesktopNotice {
	var n DesktopNotice
	switch {
	case s.count == 1:
		n.Summary = "New message from " + s.lastBy
	case len(s.senders) == 1:
		n.Summary = strconv.Itoa(s.count) + " new messages from " + s.senders[0]
	case name != "":
		n.Summary = strconv.Itoa(s.count) + " new messages in " + name
	default:
		n.Summary = strconv.Itoa(s.count) + " new messages from " + strings.Join(s.senders, ", ")
	}
	switch {
	case hideContent && s.count == 1:
		n.Body = "Open Clanker to read it."
	case hideContent:
		n.Body = "Open Clanker to read them."
	case len(s.senders) > 1:
		n.Body = Clip(s.lastBy+": "+s.last, noticeRunes)
	default:
		n.Body = Clip(s.last, noticeRunes)
	}
	return n
}

// backAtWindow runs after the window or the conversation on screen changed: when the user
// is at the window, what came while they were away counts as seen, and the notification of
// the conversation on screen is withdrawn (they have it open); the others stay.
func (e *Engine) backAtWindow() {
	if e.away() {
		e.attention() // the urgency hint follows the window going behind
		return
	}
	if e.alerts.unread > 0 {
		e.alerts.unread = 0
	}
	e.attention()
	if e.screen.fg == nil {
		return
	}
	id := e.screen.fg.id
	if _, ok := e.alerts.stacks[id]; !ok {
		return
	}
	delete(e.alerts.stacks, id)
	for i, c := range e.alerts.order {
		if c == id {
			e.alerts.order = append(e.alerts.order[:i], e.alerts.order[i+1:]...)
			break
		}
	}
	e.desktopNotify(DesktopNotice{Key: NoticeKeyMessages(id), Withdraw: true})
}

// errorNotice repeats an error the page shows as a desktop notification, when the user
// asked for those, once a minute at most for the same text.
func (e *Engine) errorNotice(text string) {
	if !e.settings.Notifications.Errors || text == "" {
		return
	}
	now := time.Now()
	for t, at := range e.alerts.told {
		if now.Sub(at) >= noticeRepeat {
			delete(e.alerts.told, t)
		}
	}
	if _, seen := e.alerts.told[text]; seen {
		return
	}
	if e.alerts.told == nil {
		e.alerts.told = map[string]time.Time{}
	}
	e.alerts.told[text] = now
	e.desktopNotify(DesktopNotice{Key: NoticeKeyError, Summary: "Clanker", Body: Clip(text, noticeRunes), Urgent: true})
}

// bannerNotifies says whether a banner the engine shows is an error worth a desktop
// notification. The configuration banner is not: the settings window says the same, and
// opens by itself on a first start.
func bannerNotifies(key string) bool { return key != BannerConfig && key != BannerPage }

// pageBanner shows the banner a page state calls for: pairing on the signed-out page (an
// explanation, not an error), a warning on a page that does not look like Messages (an
// error: Clanker stopped working), none otherwise.
func (e *Engine) pageBanner(state PageState) {
	text := ""
	switch state {
	case PageSignedOut:
		text = PairingExplanation
	case PageUnrecognised:
		text = UnrecognisedWarning
	case PageLoading:
		text = e.alerts.pageBanner // a reload keeps what the page was until it says
	}
	if text == e.alerts.pageBanner {
		return
	}
	e.alerts.pageBanner = text
	e.banner(BannerPage, text)
	if state == PageUnrecognised {
		e.errorNotice(text)
	}
}

// configBannerText is the one sentence the page shows while the settings are incomplete:
// what is missing, and where to enter it (the settings window when it is open).
func (e *Engine) configBannerText() string {
	missing := e.missing()
	what, them := e.settings.MissingText(e.hasKey), "them"
	if len(missing) == 1 {
		them = "it"
	}
	if e.alerts.settingsOpen {
		return "To start, Clanker needs " + what + ": enter " + them + " in the settings window."
	}
	return "Clanker is not set up yet: open Settings and enter " + what + "."
}

// MissingText names what the settings still need, as a sentence lists it ("the endpoint,
// an API key and your name"); "" when nothing is missing. The settings window says it with
// the same words as the page's banner.
func (s Settings) MissingText(hasAPIKey bool) string { return listWords(s.MissingLabels(hasAPIKey)) }

// onSettingsWindow follows the settings window opening and closing: the configuration banner
// says where to enter what is missing.
func (e *Engine) onSettingsWindow(ev SettingsWindow) {
	if e.alerts.settingsOpen == ev.Open {
		return
	}
	e.alerts.settingsOpen = ev.Open
	if !e.configured() {
		e.showConfigBanner()
	}
}

// modelFor is the model a request in conversation id uses: its own when the user chose one
// (read afresh, as the settings window may have changed it a moment ago), else the global
// one.
func (e *Engine) modelFor(id ConversationID) string {
	rec, ok, err := e.store.LoadConversation(id)
	if err != nil || !ok {
		return e.settings.Model
	}
	return e.settings.ModelFor(rec.ModelOverride)
}

// listWords joins words as a sentence lists them: "a", "a and b", "a, b and c".
func listWords(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
