package menus

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/clanker-desktop/clanker/app/desktop/internal/text"
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
	// Notify reports the failure of a menu action to the user as one sentence (the app
	// shows it as an error notification); nil logs it only.
	Notify func(message string)
	// OpenLogFolder shows the folder holding Clanker's log file; nil leaves the item
	// out of the Diagnostics menu.
	OpenLogFolder func() error
}

// Actions is the one implementation of what the Clanker menu items do, shared by the
// app menu, the tray and the page's right-click menu so they cannot drift. Each method
// may be called on any goroutine (menu callbacks); a failure is logged and reported
// through MenuOptions.Notify.
type Actions struct {
	opts MenuOptions
	log  *slog.Logger
}

// NewActions returns the actions for the menu items opts describes. log is tagged with
// the menu's name by the caller (nil: slog.Default()).
func NewActions(opts MenuOptions, log *slog.Logger) *Actions {
	if log == nil {
		log = slog.Default()
	}
	return &Actions{opts: opts, log: log}
}

// Purge-all and purge-conversation questions, asked before anything is deleted.
const (
	purgeAllQuestion = "Delete what Clanker remembers about every conversation: summaries, customizations, people's profiles, " +
		"last-message and news tracking, and cached images? Each conversation's mode and model, the settings, the API key and " +
		"usage records are kept. This cannot be undone."
	purgeConvQuestion = "Delete what Clanker remembers about this conversation: summary, customization, people's profiles, " +
		"last-message and news tracking, and cached images? Its mode and model, and the settings, are kept."
)

func (a *Actions) fail(what string, err error) {
	if err == nil {
		return
	}
	a.log.Warn("menu action failed", "action", what, "err", err)
	if a.opts.Notify != nil {
		a.opts.Notify(fmt.Sprintf("%s failed: %v", what, err))
	}
}

// SetMode chooses mode m for the foreground conversation, unless the mode is locked or
// already m.
func (a *Actions) SetMode(m engine.Mode) {
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

// OpenUpdate opens the available release's page in the browser.
func (a *Actions) OpenUpdate() {
	a.fail("Opening the release page", a.opts.Controller.OpenUpdate())
}

// Settings opens the settings window.
func (a *Actions) Settings() { a.fail("Opening the settings", a.opts.Controller.OpenSettings()) }

// Diagnostics shows the diagnostics text, sanitised or in full.
func (a *Actions) Diagnostics(sanitised bool) {
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

// DeactivateAll sets every conversation to Deactivated.
func (a *Actions) DeactivateAll() {
	a.fail("Deactivating every conversation", a.opts.Controller.DeactivateAll())
}

// PurgeConversation deletes the foreground conversation's stored state, after asking.
func (a *Actions) PurgeConversation() {
	if !a.confirm("Purge conversation state", purgeConvQuestion) {
		return
	}
	a.fail("Purging the conversation state", a.opts.Controller.PurgeConversation())
}

// PurgeAll deletes every conversation's stored state, after asking.
func (a *Actions) PurgeAll() {
	if !a.confirm("Purge all state data", purgeAllQuestion) {
		return
	}
	a.fail("Purging all state data", a.opts.Controller.PurgeAll())
}

func (a *Actions) confirm(title, q string) bool {
	if a.opts.Confirm == nil {
		a.log.Warn("destructive menu action refused: no way to ask for confirmation", "action", title)
		return false
	}
	ok := a.opts.Confirm(title, q)
	a.log.Info("confirmation", "action", title, "confirmed", ok)
	return ok
}

// ErrNoTray refuses to hide the window on a desktop without a tray host: nothing could
// show it again.
var ErrNoTray = errors.New("this desktop has no tray icon area to bring the window back from, so the window stays shown (minimise it instead)")

// ToggleWindow hides the main window when it is shown and shows it otherwise.
func (a *Actions) ToggleWindow() {
	if a.opts.Controller.Status().WindowVisible {
		if a.opts.NoTray {
			a.fail("Hiding the window", ErrNoTray)
			return
		}
		a.fail("Hiding the window", a.opts.Controller.HideWindow())
		return
	}
	a.fail("Showing the window", a.opts.Controller.ShowWindow())
}

// ShowWindow shows the main window.
func (a *Actions) ShowWindow() { a.fail("Showing the window", a.opts.Controller.ShowWindow()) }

// Quit ends the app.
func (a *Actions) Quit() { a.fail("Quitting", a.opts.Controller.Quit()) }

// ConversationLabel is the menu's first line: the foreground conversation and its mode.
// The name comes from the page, so it is cut to one short line.
func ConversationLabel(st Status) string {
	if st.ConversationID == "" {
		return "No conversation open"
	}
	name := engine.Clip(text.OneLine(st.ConversationName), 40)
	if name == "" {
		name = "this conversation"
	}
	return fmt.Sprintf("%s: %s", name, ModeLabel(st.Mode))
}
