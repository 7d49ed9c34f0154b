package engine_test

import "github.com/clanker-desktop/clanker/app/engine"
import "testing"

// A stored conversation that is not on screen gets its sidebar name (and a new name when
// the conversation is renamed); one chosen from the menus before it was ever stored is
// stored with its name; a conversation never stored is not created by its row.
func TestStoredConversationsKeepTheirSidebarNames(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c5", engine.ModeAvailable)
		h.send(engine.SidebarUpdate{Rows: []engine.SidebarRow{{ID: "c5", Name: "Climbing\u00a0crew "}, {ID: "c6", Name: "Bob"}}})
		if got := h.store.Recs["c5"].Name; got != "Climbing crew" {
			t.Fatalf("stored conversation off screen: want its sidebar name %q, got %q", "Climbing crew", got)
		}
		if got := h.store.Recs["c5"].Mode; got != engine.ModeAvailable {
			t.Fatalf("keeping the name changed the mode to %q", got)
		}
		if _, ok := h.store.Recs["c6"]; ok {
			t.Fatal("a row of a conversation never stored created a record")
		}
		h.send(engine.SidebarUpdate{Rows: []engine.SidebarRow{{ID: "c5", Name: "Crag crew"}}})
		if got := h.store.Recs["c5"].Name; got != "Crag crew" {
			t.Fatalf("renamed: want %q, got %q", "Crag crew", got)
		}
		h.send(engine.SetMode{Conversation: "c6", Mode: engine.ModeActive, Source: "menu"})
		if got := h.store.Recs["c6"].Name; got != "Bob" {
			t.Fatalf("a mode chosen for a conversation never stored: want it stored with its name, got %q", got)
		}
	})
}
