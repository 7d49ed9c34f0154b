package menus

import (
	"errors"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Controller is what the tray, the app menu and the page's context menu act on. The
// running app (app/run) implements it on top of the engine, the store and the Shell; the
// desktop packages only draw menus and forward clicks, so every rule (which modes may
// be chosen, what an announcement says, what purging removes) stays in one place.
//
// Every method may be called from any goroutine, including menu callbacks, and must not
// block on the GTK main thread: implementations hand work to the engine goroutine and
// return. Errors are shown to the user as a notification, so their text should be a
// sentence that tells the user what happened.
type Controller interface {
	// Status is the current state the menus show.
	Status() Status
	// OnStatus registers fn to be called (on any goroutine) after every change of the
	// Status; the menus redraw from the Status passed in. It returns a function that
	// removes the registration. Calls may be coalesced, but the last call always carries
	// the latest Status.
	OnStatus(fn func(Status)) (remove func())

	// SetMode changes the foreground conversation's mode (announcing it in the chat, as
	// the engine does for every user mode change). It fails with ErrModeLocked wrapped in
	// a sentence when Status().ModeLocked is set.
	SetMode(mode engine.Mode) error
	// DeactivateAll sets every conversation to Deactivated.
	DeactivateAll() error
	// PurgeConversation deletes the stored state (summary, customization, profiles,
	// caches) of the foreground conversation, keeping the settings.
	PurgeConversation() error
	// PurgeAll deletes every conversation's stored state, keeping the settings.
	PurgeAll() error
	// Diagnostics returns the diagnostics snapshot as readable text; sanitised leaves out
	// message text, names and ids (app/diag). The API key is never part of it.
	Diagnostics(sanitised bool) (string, error)

	// OpenSettings starts (or focuses) the settings window process.
	OpenSettings() error
	// OpenUpdate opens the page of the release Status().Update names in the user's
	// browser. Clanker never downloads or installs an update itself.
	OpenUpdate() error
	// ShowWindow, HideWindow and Quit act on the main window and the app.
	ShowWindow() error
	HideWindow() error
	Quit() error
}

// Status is what the menus show: the foreground conversation, its mode, why the mode
// cannot be changed, the window's visibility and the unread count while hidden.
type Status struct {
	// ConversationID is the foreground conversation's id ("" when none is open).
	ConversationID string
	// ConversationName is its display name as the page shows it ("" when unknown). It
	// comes from the page, so the menus treat it as untrusted text (length-capped).
	ConversationName string
	// Mode is the foreground conversation's mode, engine.ModeUninitialized while the
	// configuration is incomplete.
	Mode engine.Mode
	// ModeLocked is set when the mode items must be disabled; LockReason says why.
	ModeLocked bool
	LockReason LockReason
	// WindowVisible reports whether the main window is shown.
	WindowVisible bool
	// Unread is the number of new incoming messages that came while the window was
	// not in front (hidden, minimised or behind another window); 0 once it is again.
	Unread int
	// Missing lists what keeps Clanker Uninitialized, as in engine.Settings.Missing.
	Missing []string
	// Update is a newer release to tell the user about (zero: none).
	Update UpdateNotice
	// WaitingForDraft says something Clanker would do waits for the user's draft in the
	// conversation on screen (an answer there, or a visit elsewhere).
	WaitingForDraft bool
}

// WaitingSentence is the disabled line the menus show under the modes while Clanker waits
// for the user's draft.
const WaitingSentence = "Waiting for your draft: Clanker goes on once you send or clear it"

// StatusNote is the disabled line under the mode items: why the modes are locked, or that
// Clanker waits for the user's draft ("" for none).
func StatusNote(st Status) string {
	if st.ModeLocked || st.ConversationID == "" {
		if r := st.LockReason.Sentence(); r != "" {
			return r
		}
		if st.ConversationID == "" {
			return LockNoConversation.Sentence()
		}
		return ""
	}
	if st.WaitingForDraft {
		return WaitingSentence
	}
	return ""
}

// UpdateNotice is a newer Clanker release: its version, already checked to be a plain
// version number, and the page to open for it.
type UpdateNotice struct {
	Version string
	URL     string
}

// UpdateLabel is the menu item's label for the update in st ("" when there is none).
func UpdateLabel(st Status) string {
	if st.Update.Version == "" {
		return ""
	}
	return "Clanker " + st.Update.Version + " is available"
}

// LockReason says why the mode items are disabled.
type LockReason string

// Reasons the mode cannot be changed.
const (
	LockNone           LockReason = ""
	LockNoSettings     LockReason = "uninitialized"   // settings incomplete: Clanker is Uninitialized
	LockAutomated      LockReason = "automated"       // an automated (A2P) conversation: never participates
	LockNoConversation LockReason = "no_conversation" // no conversation is open
)

// Sentence is the user-facing explanation shown as the disabled menu item's label.
func (r LockReason) Sentence() string {
	switch r {
	case LockNoSettings:
		return "Finish the settings to choose a mode"
	case LockAutomated:
		return "Automated conversation: Clanker stays out"
	case LockNoConversation:
		return "Open a conversation to choose a mode"
	}
	return ""
}

// ErrModeLocked is returned (wrapped) by SetMode when the mode cannot be changed.
var ErrModeLocked = errors.New("the mode of this conversation cannot be changed")

// Modes are the user-selectable modes, in menu order.
var Modes = []engine.Mode{engine.ModeDeactivated, engine.ModeAvailable, engine.ModeActive}

// ModeLabel is a mode's menu label.
func ModeLabel(m engine.Mode) string {
	switch m {
	case engine.ModeDeactivated:
		return "Deactivated"
	case engine.ModeAvailable:
		return "Available"
	case engine.ModeActive:
		return "Active"
	case engine.ModeUninitialized:
		return "Uninitialized"
	}
	return string(m)
}
