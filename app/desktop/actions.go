package desktop

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/clanker-desktop/clanker/app/desktop/internal/text"
	"github.com/clanker-desktop/clanker/app/desktop/session"
	"github.com/clanker-desktop/clanker/app/engine"
)

// MenuOptions configure the Clanker menu wherever it appears: the tray, the app menu
// and the page's right-click menu. All three call the same actions so they cannot drift.
type MenuOptions struct {
	// Controller is what the menu items act on. Required.
	Controller Controller
	// NoTray leaves out the tray icon (the app menu still carries every action).
	NoTray bool
	// Confirm asks the user a yes/no question before a destructive action; nil uses a
	// native question dialog of the main window.
	Confirm func(title, message string) bool
	// ShowText shows a diagnostics text to the user, readable and copyable; nil uses a
	// native message dialog (readable, not copyable).
	ShowText func(title, text string)
	// Notify reports the failure of a menu action; nil logs it only.
	Notify func(session.Notification)
}

// actions is the one implementation of what the Clanker menu items do.
type actions struct {
	opts MenuOptions
	log  *slog.Logger
}

// Purge-all and purge-conversation questions, asked before anything is deleted.
const (
	purgeAllQuestion  = "Delete the stored state of every conversation (summaries, customizations, profiles, caches)? Settings are kept. This cannot be undone."
	purgeConvQuestion = "Delete the stored state of this conversation (summary, customization, profiles, caches)? Settings are kept."
)

func (a *actions) fail(what string, err error) {
	if err == nil {
		return
	}
	a.log.Warn("menu action failed", "action", what, "err", err)
	if a.opts.Notify != nil {
		a.opts.Notify(session.ErrorNotification(fmt.Sprintf("%s failed: %v", what, err)))
	}
}

func (a *actions) setMode(m engine.Mode) {
	st := a.opts.Controller.Status()
	if st.ModeLocked {
		a.fail("Changing the mode", fmt.Errorf("%w: %s", ErrModeLocked, st.LockReason.Sentence()))
		return
	}
	if st.Mode == m {
		return
	}
	a.fail("Changing the mode", a.opts.Controller.SetMode(m))
}

func (a *actions) settings() { a.fail("Opening the settings", a.opts.Controller.OpenSettings()) }

func (a *actions) diagnostics(sanitised bool) {
	text, err := a.opts.Controller.Diagnostics(sanitised)
	if err != nil {
		a.fail("Reading the diagnostics", err)
		return
	}
	title := "Clanker: conversation state"
	if sanitised {
		title = "Clanker: sanitised state"
	}
	if a.opts.ShowText == nil {
		a.fail("Showing the diagnostics", errors.New("no window to show them in"))
		return
	}
	a.opts.ShowText(title, text)
}

func (a *actions) deactivateAll() {
	a.fail("Deactivating every conversation", a.opts.Controller.DeactivateAll())
}

func (a *actions) purgeConversation() {
	if !a.confirm("Purge conversation state", purgeConvQuestion) {
		return
	}
	a.fail("Purging the conversation state", a.opts.Controller.PurgeConversation())
}

func (a *actions) purgeAll() {
	if !a.confirm("Purge all state data", purgeAllQuestion) {
		return
	}
	a.fail("Purging all state data", a.opts.Controller.PurgeAll())
}

func (a *actions) confirm(title, q string) bool {
	if a.opts.Confirm == nil {
		a.log.Warn("destructive menu action refused: no way to ask for confirmation", "action", title)
		return false
	}
	ok := a.opts.Confirm(title, q)
	a.log.Info("confirmation", "action", title, "confirmed", ok)
	return ok
}

func (a *actions) toggleWindow() {
	if a.opts.Controller.Status().WindowVisible {
		a.fail("Hiding the window", a.opts.Controller.HideWindow())
		return
	}
	a.fail("Showing the window", a.opts.Controller.ShowWindow())
}

func (a *actions) showWindow() { a.fail("Showing the window", a.opts.Controller.ShowWindow()) }

func (a *actions) quit() { a.fail("Quitting", a.opts.Controller.Quit()) }

// conversationLabel is the menu's first line. The name comes from the page, so it is
// cut to one short line.
func conversationLabel(st Status) string {
	if st.ConversationID == "" {
		return "No conversation open"
	}
	name := text.Clip(text.OneLine(st.ConversationName), 40)
	if name == "" {
		name = "this conversation"
	}
	return fmt.Sprintf("%s: %s", name, ModeLabel(st.Mode))
}

// trayTitle is the tray tooltip/title: the mode and, while hidden, the unread count.
func trayTitle(st Status) string {
	t := "Clanker"
	switch {
	case st.Mode == engine.ModeUninitialized:
		t += ": not configured"
	case st.ConversationID != "":
		t += ": " + ModeLabel(st.Mode)
	}
	if !st.WindowVisible && st.Unread > 0 {
		t += fmt.Sprintf(" (%d unread)", st.Unread)
	}
	return t
}

// iconOn says whether the tray shows the "on" icon: Clanker takes part in the
// foreground conversation.
func iconOn(st Status) bool {
	return st.Mode == engine.ModeAvailable || st.Mode == engine.ModeActive
}
