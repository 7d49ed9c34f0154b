package menus

import (
	"testing"

	"github.com/clanker-desktop/clanker/app/engine"
)

func TestTrayStateShowsTheModeTheIconAndTheUnreadCount(t *testing.T) {
	hidden := alice
	hidden.WindowVisible = false
	hidden.Unread = 3
	got := TrayStateOf(hidden)
	if got.Checked != engine.ModeAvailable || !got.ModesEnabled || got.Reason != "" || !got.IconOn {
		t.Fatalf("tray state for Alice/Available: %+v", got)
	}
	if got.Title != "Clanker: Available (3 unread)" || got.WindowLabel != "Show window" || got.Badge != 3 {
		t.Fatalf("tray title %q, window item %q, badge %d; want the unread count (title and badge) and Show window", got.Title, got.WindowLabel, got.Badge)
	}
	behind := alice
	behind.Unread = 2
	if s := TrayStateOf(behind); s.Title != "Clanker: Available (2 unread)" || s.Badge != 2 || s.WindowLabel != "Hide window" {
		t.Fatalf("shown but behind another window with 2 unread: %+v", s)
	}
	if s := TrayStateOf(alice); s.Title != "Clanker: Available" || s.WindowLabel != "Hide window" || s.Badge != 0 {
		t.Fatalf("shown window: title %q, window item %q; want no unread count and Hide window", s.Title, s.WindowLabel)
	}
}

func TestTrayStateDisablesTheModesAndSaysWhyWhenLocked(t *testing.T) {
	got := TrayStateOf(Status{ConversationID: "c", Mode: engine.ModeActive, ModeLocked: true, LockReason: LockAutomated, WindowVisible: true})
	if got.ModesEnabled || got.Reason != LockAutomated.Sentence() {
		t.Fatalf("locked conversation: %+v; want the mode items disabled with the reason", got)
	}
	got = TrayStateOf(Status{Mode: engine.ModeUninitialized, ModeLocked: true, LockReason: LockNoSettings})
	if got.IconOn || got.Title != "Clanker: not configured" || got.Reason != LockNoSettings.Sentence() {
		t.Fatalf("unconfigured app: %+v; want the off icon, \"not configured\" and the reason", got)
	}
}

func TestTrayStateSaysWhenClankerWaitsForTheDraft(t *testing.T) {
	st := alice
	st.WaitingForDraft = true
	got := TrayStateOf(st)
	if !got.ModesEnabled || got.Reason != WaitingSentence || got.Title != "Clanker: Available, waiting for your draft" {
		t.Fatalf("waiting for the draft: %+v; want the modes enabled, the waiting line and title", got)
	}
	st.ModeLocked, st.LockReason = true, LockAutomated
	if got := TrayStateOf(st); got.Reason != LockAutomated.Sentence() || got.Title != "Clanker: Available" {
		t.Fatalf("locked: %+v; want the lock's reason and no waiting", got)
	}
	if got := TrayStateOf(alice); got.Reason != "" {
		t.Fatalf("not waiting: reason line %q, want none", got.Reason)
	}
}

func TestTrayStateNamesAnAvailableUpdate(t *testing.T) {
	if got := TrayStateOf(alice).Update; got != "" {
		t.Fatalf("no update known, but the tray item says %q", got)
	}
	st := alice
	st.Update = UpdateNotice{Version: "1.3.0", URL: "https://github.com/clanker-desktop/clanker/releases/tag/v1.3.0"}
	if got := TrayStateOf(st).Update; got != "Clanker 1.3.0 is available" {
		t.Fatalf("tray update item %q, want \"Clanker 1.3.0 is available\"", got)
	}
}
