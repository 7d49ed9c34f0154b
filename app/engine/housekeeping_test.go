package engine

import (
	"testing"
	"time"
)

func TestOrphansAreNeverPurgedBeforeTheSidebarLoads(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.setMode("c9", ModeActive)
		h.wait(2 * time.Hour)
		h.store.mu.Lock()
		defer h.store.mu.Unlock()
		if h.store.forgets != 0 {
			t.Fatalf("want no purge before the sidebar loaded, got %d purges", h.store.forgets)
		}
	})
}

// A conversation's mode is forgotten only after 30 days unseen, not when its row scrolls out of
// the sidebar's rendered list (which only holds the visible rows).
func TestConversationsAreForgottenOnlyAfterThirtyDaysUnseen(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.setMode("old", ModeActive)
		h.store.setMode("scrolled", ModeActive)
		h.send(SidebarUpdate{Rows: []SidebarRow{{ID: "old", Snippet: "a"}, {ID: "scrolled", Snippet: "b"}, {ID: "c1", Snippet: "c"}}})
		h.wait(20 * time.Minute)
		h.send(SidebarUpdate{Rows: []SidebarRow{{ID: "c1", Snippet: "c"}}}) // both rows scrolled away
		h.wait(29 * 24 * time.Hour)
		if h.store.mode("scrolled") != ModeActive {
			t.Fatal("want a row that scrolled out of view to keep its mode for 30 days")
		}
		h.send(SidebarUpdate{Rows: []SidebarRow{{ID: "c1", Snippet: "c"}, {ID: "scrolled", Snippet: "b"}}})
		h.wait(2 * 24 * time.Hour)
		h.store.mu.Lock()
		_, oldKept := h.store.recs["old"]
		h.store.mu.Unlock()
		if oldKept {
			t.Fatal("want a conversation unseen for over 30 days forgotten")
		}
		if h.store.mode("scrolled") != ModeActive {
			t.Fatal("want a conversation seen again within 30 days kept")
		}
	})
}

func TestSnapshotShowsPendingInFlightAndQueueWithoutMessageText(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *Settings) { s.RelaxedResponsiveness = false })
		h.llm.set(time.Minute, nil)
		h.store.setMode("c1", ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "secret text"))
		s := h.snap()
		if s.Foreground == nil || !s.Foreground.Pending || s.Foreground.PendingFiresIn <= 0 || s.InFlight != nil {
			t.Fatalf("want a pending reply and nothing in flight, got %+v / %+v", s.Foreground, s.InFlight)
		}
		h.wait(3 * time.Second)
		s = h.snap()
		if s.InFlight == nil || s.InFlight.Conversation != "c1" || s.InFlight.Kind != RequestReply || s.Foreground.Pending {
			t.Fatalf("want the request in flight for c1, got %+v", s.InFlight)
		}
		if s.Foreground.Mode != ModeActive || s.Foreground.Messages != 2 || s.Foreground.LastProcessedID == "" {
			t.Fatalf("want mode, message count and pointer in the snapshot, got %+v", s.Foreground)
		}
	})
}
