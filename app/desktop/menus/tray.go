package menus

import (
	"fmt"

	"github.com/clanker-desktop/clanker/app/engine"
)

// TrayState is what the tray shows for a Status: the tray menu's model. The systray
// glue (package window) draws it; the items themselves are the same as the Clanker menu's
// and call the same Actions.
type TrayState struct {
	// Header is the first, disabled line: the conversation and its mode.
	Header string
	// Checked is the mode whose check item is checked; the tray has no radio items, so
	// exactly one mode item (or none, while Uninitialized) is checked.
	Checked engine.Mode
	// ModesEnabled says whether the mode items can be clicked.
	ModesEnabled bool
	// Reason is shown under the mode items while the mode is locked, or while Clanker waits
	// for the user's draft ("" hides the line).
	Reason string
	// WindowLabel is the Show/Hide item's label.
	WindowLabel string
	// IconOn selects the "on" icon: Clanker takes part in the foreground conversation.
	IconOn bool
	// Title is the tray's title and tooltip: the mode and the unread count.
	Title string
	// Badge is the unread count drawn on the icon (0: no badge).
	Badge int
	// Update is the label of the item that opens a newer release's page ("" hides it).
	Update string
}

// TrayStateOf is the tray's state for st.
func TrayStateOf(st Status) TrayState {
	t := TrayState{
		Header:       ConversationLabel(st),
		Checked:      st.Mode,
		ModesEnabled: !st.ModeLocked && st.ConversationID != "",
		WindowLabel:  "Show window",
		IconOn:       st.Mode == engine.ModeAvailable || st.Mode == engine.ModeActive,
		Title:        trayTitle(st),
		Badge:        st.Unread,
		Update:       UpdateLabel(st),
		Reason:       StatusNote(st),
	}
	if st.WindowVisible {
		t.WindowLabel = "Hide window"
	}
	return t
}

// trayTitle is the tray tooltip/title: the mode and the unread count (messages that
// came while the window was not in front).
func trayTitle(st Status) string {
	t := "Clanker"
	switch {
	case st.Mode == engine.ModeUninitialized:
		t += ": not configured"
	case st.ConversationID != "":
		t += ": " + ModeLabel(st.Mode)
		if st.WaitingForDraft && !st.ModeLocked {
			t += ", waiting for your draft"
		}
	}
	if st.Unread > 0 {
		t += fmt.Sprintf(" (%d unread)", st.Unread)
	}
	return t
}
