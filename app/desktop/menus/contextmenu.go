package menus

import "github.com/clanker-desktop/clanker/app/engine"

// ContextMenuState is what the Clanker items of the page's right-click menu show,
// copied from the Status: the native menu is built on the GUI thread when the user
// right-clicks, so it reads this copy and never asks the Controller.
type ContextMenuState struct {
	// Header is the first line: "Clanker · " and the conversation with its mode.
	Header string
	// Mode is the mode whose item is checked, as engine.Mode spells it.
	Mode string
	// ModesEnabled says whether the mode items can be clicked.
	ModesEnabled bool
	// Reason says why they cannot ("" when they can).
	Reason string
}

// ContextMenuStateOf is the right-click menu's state for st.
func ContextMenuStateOf(st Status) ContextMenuState {
	c := ContextMenuState{Header: "Clanker · " + ConversationLabel(st), Mode: string(st.Mode)}
	c.ModesEnabled = !st.ModeLocked && st.ConversationID != ""
	if !c.ModesEnabled {
		c.Reason = st.LockReason.Sentence()
		if c.Reason == "" {
			c.Reason = LockNoConversation.Sentence()
		}
	}
	return c
}

// ContextItem runs the action of one Clanker item of the page's right-click menu. name
// is "mode" (target names the mode), "settings", "diag-state", "diag-sanitised",
// "deactivate-all", "purge-conversation" or "purge-all"; anything else is logged and
// ignored. It reports whether a mode item was handled: the caller then redraws the menus
// from the Controller's Status, because the native menu has moved its check mark even
// when the change was refused.
func (a *Actions) ContextItem(name, target string) (redraw bool) {
	switch name {
	case "mode":
		m, ok := modeOf(target)
		if !ok {
			a.log.Warn("context menu: unknown mode", "mode", target)
			return false
		}
		a.SetMode(m)
		return true
	case "settings":
		a.Settings()
	case "diag-state":
		a.Diagnostics(false)
	case "diag-sanitised":
		a.Diagnostics(true)
	case "deactivate-all":
		a.DeactivateAll()
	case "purge-conversation":
		a.PurgeConversation()
	case "purge-all":
		a.PurgeAll()
	default:
		a.log.Warn("context menu: unknown action", "action", name)
	}
	return false
}

// modeOf is the user-selectable mode a context-menu target names.
func modeOf(target string) (engine.Mode, bool) {
	for _, m := range Modes {
		if string(m) == target {
			return m, true
		}
	}
	return "", false
}
