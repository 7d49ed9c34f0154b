package engine

import (
	"errors"
	"fmt"
)

// Event is anything the engine reacts to. Outside packages use the exported event types below;
// timers and LLM answers use unexported ones.
type Event interface {
	validate() error
}

// PageState is what the bridge knows about the page as a whole.
type PageState string

// Page states.
const (
	PageLoading      PageState = "loading"
	PageReady        PageState = "ready"
	PageSignedOut    PageState = "signed_out"
	PageUnrecognised PageState = "unrecognised"
)

// PageStateChanged reports that the page loaded, signed out or stopped looking like Messages.
type PageStateChanged struct{ State PageState }

// ConversationChanging reports that the URL changed and a new conversation is being parsed. To
// may be empty when the URL holds no conversation id. From here until ConversationOpened the
// engine treats the foreground as "switching": nothing is typed or sent.
type ConversationChanging struct{ To ConversationID }

// ConversationOpened reports the parsed foreground conversation: after a switch, a page load,
// or a refresh of the same conversation.
type ConversationOpened struct {
	ID           ConversationID
	Participants []Participant
	Messages     []Message // visible messages, oldest first
}

// MessageAdded reports one new message at the bottom of the foreground conversation.
type MessageAdded struct {
	Conversation ConversationID
	Message      Message
}

// MessageUpdated reports that the page now says more about a message of the foreground
// conversation it already reported: its label arrived late (sender, direction, time), an
// image's source was set, a reaction came. It replaces what the engine knows of the message
// and never triggers anything by itself; only a message whose decision is still waiting for
// its sender (LabelPending) is decided when the update brings the sender.
type MessageUpdated struct {
	Conversation ConversationID
	Message      Message
}

// MessageIDChanged reports that a pending (tmp_) message got its permanent id.
type MessageIDChanged struct {
	Conversation ConversationID
	OldID, NewID string
}

// HistoryLoaded reports older messages inserted above the visible ones by scrolling up. They
// never trigger anything.
type HistoryLoaded struct {
	Conversation ConversationID
	Messages     []Message
}

// ComposeState reports the input box: whether it holds text that is not Clanker's, and focus.
type ComposeState struct {
	Conversation ConversationID
	HasDraft     bool
	Focused      bool
}

// SidebarRow is one conversation in the sidebar list.
type SidebarRow struct {
	ID      ConversationID
	Name    string
	Snippet string
	Unread  bool
}

// SidebarUpdate reports the current sidebar rows (all rendered rows, not a diff).
type SidebarUpdate struct{ Rows []SidebarRow }

// CommandResult reports the outcome of a Command. Err is empty on success, or a ResultXxx code or
// free text.
type CommandResult struct {
	ID   uint64
	Err  string
	Data []byte // fetched image bytes for CmdFetchImage
}

// SettingsChanged carries new settings; they apply at once.
type SettingsChanged struct {
	Settings Settings
	// HasAPIKey says whether an API key is stored; Settings never holds the key itself.
	HasAPIKey bool
}

// ModeSource says who asked for a mode change (for logs and diagnostics).
type ModeSource string

// SetMode asks for a mode change. An empty Conversation means the foreground one.
type SetMode struct {
	Conversation ConversationID
	Mode         Mode
	Source       ModeSource
}

// DeactivateAll deactivates every stored conversation (and announces it in the foreground).
type DeactivateAll struct{}

// Purge deletes stored conversation data through the engine, so nothing already under way can
// write it back: the engine first stops what belongs to the affected conversations (the
// pending timer, queued and half-typed replies, deferred replies; a request in flight is
// marked so its answer neither saves memory nor posts), then calls Apply on its own goroutine,
// then confirms with a short toast. Done, when non-nil, receives Apply's error; it must have
// room for one value.
type Purge struct {
	Conversation ConversationID // the conversation to purge; ignored with All
	All          bool
	// What names what was purged for the confirmation ("this conversation's memory").
	What  string
	Apply func() error
	Done  chan<- error
}

// VisitCancelled reports that the user ended Clanker's visit to an inactive conversation (the
// overlay's Cancel, a key in the compose box). The visit stops at once and Clanker does not
// navigate back; the rest of the queue waits the takeover pause.
type VisitCancelled struct {
	Reason string
	// KeyIn is the conversation whose compose box took the key that ended the visit, as the
	// page showed it when the key was pressed ("" for the Cancel button, or when the page did
	// not say). The user may have opened another conversation a moment before, and the page
	// may report that switch after the key: a key in a conversation other than the visited
	// one is the user having left it, which releases nothing there.
	KeyIn ConversationID
}

// WindowVisibility reports the main window being hidden in the tray or shown again.
type WindowVisibility struct{ Hidden bool }

// PageDrift reports the bridge's self-test of the page's selectors: Failing names those that
// decide who said what or which rows are new and no longer match the page (empty when they all
// match again). While any of them fail, Clanker stops acting (see onDrift); selectors that do
// not decide those things are the bridge's to log.
type PageDrift struct{ Failing []string }

func (e PageStateChanged) validate() error {
	switch e.State {
	case PageLoading, PageReady, PageSignedOut, PageUnrecognised:
		return nil
	}
	return fmt.Errorf("page state %q is not one of loading, ready, signed_out, unrecognised", e.State)
}

func (e ConversationChanging) validate() error {
	if len(e.To) > maxIDLen {
		return errors.New("conversation id too long")
	}
	return nil
}

func validateConvID(id ConversationID) error {
	if id == "" {
		return errors.New("empty conversation id")
	}
	if len(id) > maxIDLen {
		return fmt.Errorf("conversation id longer than %d bytes", maxIDLen)
	}
	return nil
}

func validateMessages(ms []Message) error {
	if len(ms) > maxMessages {
		return fmt.Errorf("%d messages, more than the limit of %d", len(ms), maxMessages)
	}
	for i, m := range ms {
		if err := m.Validate(); err != nil {
			return fmt.Errorf("message %d: %w", i, err)
		}
	}
	return nil
}

func (e ConversationOpened) validate() error {
	if err := validateConvID(e.ID); err != nil {
		return err
	}
	if len(e.Participants) > maxParticipants {
		return fmt.Errorf("%d participants, more than the limit of %d", len(e.Participants), maxParticipants)
	}
	return validateMessages(e.Messages)
}

func (e MessageAdded) validate() error {
	if err := validateConvID(e.Conversation); err != nil {
		return err
	}
	return e.Message.Validate()
}

func (e MessageUpdated) validate() error {
	if err := validateConvID(e.Conversation); err != nil {
		return err
	}
	return e.Message.Validate()
}

func (e MessageIDChanged) validate() error {
	if err := validateConvID(e.Conversation); err != nil {
		return err
	}
	if e.OldID == "" || e.NewID == "" || len(e.OldID) > maxIDLen || len(e.NewID) > maxIDLen {
		return errors.New("message id change needs two non-empty ids of sane length")
	}
	return nil
}

func (e HistoryLoaded) validate() error {
	if err := validateConvID(e.Conversation); err != nil {
		return err
	}
	return validateMessages(e.Messages)
}

func (e ComposeState) validate() error { return validateConvID(e.Conversation) }

func (e SidebarUpdate) validate() error {
	if len(e.Rows) > maxSidebarRows {
		return fmt.Errorf("%d sidebar rows, more than the limit of %d", len(e.Rows), maxSidebarRows)
	}
	for i, r := range e.Rows {
		if err := validateConvID(r.ID); err != nil {
			return fmt.Errorf("sidebar row %d: %w", i, err)
		}
		if len(r.Snippet) > maxTextLen || len(r.Name) > maxIDLen {
			return fmt.Errorf("sidebar row %d: name or snippet too long", i)
		}
	}
	return nil
}

func (e CommandResult) validate() error {
	if e.ID == 0 {
		return errors.New("command result without a command id")
	}
	return nil
}

// validate refuses numbers and choices the engine cannot work with. Free-text fields (an
// endpoint edited by hand, say) are the LLM adapter's to report, so they do not stop the
// engine from taking the rest.
func (e SettingsChanged) validate() error {
	if es := e.Settings.rangeErrors(); len(es) > 0 {
		return es
	}
	return nil
}

func (e VisitCancelled) validate() error {
	if len(e.KeyIn) > maxIDLen {
		return errors.New("conversation id too long")
	}
	return nil
}

func (e SetMode) validate() error {
	if len(e.Conversation) > maxIDLen {
		return errors.New("conversation id too long")
	}
	switch e.Mode {
	case ModeDeactivated, ModeAvailable, ModeActive:
		return nil
	}
	return fmt.Errorf("mode %q cannot be selected (want deactivated, available or active)", e.Mode)
}

func (e Purge) validate() error {
	if e.Apply == nil {
		return errors.New("purge without an Apply function")
	}
	if !e.All {
		return validateConvID(e.Conversation)
	}
	return nil
}

func (e PageDrift) validate() error {
	if len(e.Failing) > 100 {
		return fmt.Errorf("%d failing selectors, more than the limit of 100", len(e.Failing))
	}
	for _, k := range e.Failing {
		if k == "" || len(k) > 64 {
			return errors.New("a failing selector needs a name of at most 64 bytes")
		}
	}
	return nil
}

func (DeactivateAll) validate() error    { return nil }
func (WindowVisibility) validate() error { return nil }
