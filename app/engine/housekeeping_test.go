package engine_test

import (
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

func TestOrphansAreNeverPurgedBeforeTheSidebarLoads(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c9", engine.ModeActive)
		h.wait(2 * time.Hour)
		h.store.Lock()
		defer h.store.Unlock()
		if h.store.Forgets != 0 {
			t.Fatalf("want no purge before the sidebar loaded, got %d purges", h.store.Forgets)
		}
	})
}

// A conversation's mode is forgotten only after 30 days unseen, not when its row scrolls out of
// the sidebar's rendered list (which only holds the visible rows).
func TestConversationsAreForgottenOnlyAfterThirtyDaysUnseen(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("old", engine.ModeActive)
		h.store.SetMode("scrolled", engine.ModeActive)
		h.send(engine.SidebarUpdate{Rows: []engine.SidebarRow{{ID: "old", Snippet: "a"}, {ID: "scrolled", Snippet: "b"}, {ID: "c1", Snippet: "c"}}})
		h.wait(20 * time.Minute)
		h.send(engine.SidebarUpdate{Rows: []engine.SidebarRow{{ID: "c1", Snippet: "c"}}}) // both rows scrolled away
		h.wait(29 * 24 * time.Hour)
		if h.store.Mode("scrolled") != engine.ModeActive {
			t.Fatal("want a row that scrolled out of view to keep its mode for 30 days")
		}
		h.send(engine.SidebarUpdate{Rows: []engine.SidebarRow{{ID: "c1", Snippet: "c"}, {ID: "scrolled", Snippet: "b"}}})
		h.wait(2 * 24 * time.Hour)
		h.store.Lock()
		_, oldKept := h.store.Recs["old"]
		h.store.Unlock()
		if oldKept {
			t.Fatal("want a conversation unseen for over 30 days forgotten")
		}
		if h.store.Mode("scrolled") != engine.ModeActive {
			t.Fatal("want a conversation seen again within 30 days kept")
		}
	})
}

func TestSnapshotShowsPendingInFlightAndQueueWithoutMessageText(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		h.llm.Set(time.Minute, nil)
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "secret text"))
		s := h.snap()
		if s.Foreground == nil || !s.Foreground.Pending || s.Foreground.PendingFiresIn <= 0 || s.InFlight != nil {
			t.Fatalf("want a pending reply and nothing in flight, got %+v / %+v", s.Foreground, s.InFlight)
		}
		h.wait(3 * time.Second)
		s = h.snap()
		if s.InFlight == nil || s.InFlight.Conversation != "c1" || s.InFlight.Kind != engine.RequestReply || s.Foreground.Pending {
			t.Fatalf("want the request in flight for c1, got %+v", s.InFlight)
		}
		if s.Foreground.Mode != engine.ModeActive || s.Foreground.Messages != 2 || s.Foreground.LastProcessedID == "" {
			t.Fatalf("want mode, message count and pointer in the snapshot, got %+v", s.Foreground)
		}
	})
}
