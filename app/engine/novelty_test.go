package engine_test

import (
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Issue 28's engine side: whatever the page reports, a message triggers only if its id was
// never seen in that conversation and its label time is not older than the newest message
// processed there. Each check is broken on purpose below to show the other still holds.

// stamped is a message with a full label time, as the page's labels give it.
func stamped(m engine.Message, at string) engine.Message {
	m.Timestamp = at
	return m
}

func TestOldMessageReportedAsNewIsNotAnsweredByIdentity(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeActive)
		old := []engine.Message{in("Ann", "first"), in("Bob", "second"), in("Ann", "third")}
		h.open("c1", old...)
		h.restart() // the seen ids live in the store, not only in the engine's memory
		// The page draws only the newest row after the restart (a virtual list's window).
		h.page.Lock()
		h.page.Conv("c1").Msgs = old[2:]
		h.page.Unlock()
		h.reopen("c1")
		h.wait(time.Minute)
		h.wantRequests(0, "a reopened view")
		// A recycled row: the page reports "second" again as a new message at the bottom. No
		// label time here, so only identity can tell.
		h.send(engine.MessageAdded{Conversation: "c1", Message: old[1]})
		h.wait(time.Minute)
		h.wantRequests(0, "an old message reported as new")
	})
}

func TestOldMessageReportedAsNewIsNotAnsweredByTimeWhenIdentityIsBlind(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		blind(h) // the store forgets which ids it has seen: the id check finds nothing
		h.restart()
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1",
			stamped(in("Ann", "first"), "February 3, 2026 at 6:40 PM"),
			stamped(in("Bob", "second"), "February 3, 2026 at 6:41 PM"),
			stamped(in("Ann", "third"), "February 3, 2026 at 6:45 PM"))
		h.wait(time.Minute)
		// An older message the engine never saw (its id is new to it: a view opened away from
		// the live end loaded it below) is history by its time.
		h.send(engine.MessageAdded{Conversation: "c1", Message: stamped(in("Cat", "way back"), "February 2, 2026 at 9:00 AM")})
		h.wait(time.Minute)
		h.wantRequests(0, "a message older than the newest processed")
		// A message of the same minute as the newest, or later, is new.
		h.send(engine.MessageAdded{Conversation: "c1", Message: stamped(in("Cat", "now"), "February 3, 2026 at 6:45 PM")})
		h.wait(time.Minute)
		h.wantRequests(1, "a message as new as the newest")
	})
}

// The time check stands even across a restart: the newest label time is stored.
func TestNewestLabelTimeSurvivesARestart(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		blind(h) // the store forgets which ids it has seen: the id check finds nothing
		h.restart()
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", stamped(in("Ann", "late"), "March 1, 2026 at 11:59 PM"))
		h.restart()
		h.reopen("c1")
		h.send(engine.MessageAdded{Conversation: "c1", Message: stamped(in("Ann", "earlier"), "March 1, 2026 at 10:00 PM")})
		h.wait(time.Minute)
		h.wantRequests(0, "older than the stored newest time")
	})
}

// With the time check blind (no label times), identity alone keeps the old message out; and
// an id change between two real ids (a reused row) renames nothing.
func TestIdChangeBetweenTwoRealIdsIsNotARename(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeActive)
		a, b := in("Ann", "older"), in("Bob", "newest")
		h.open("c1", a, b)
		h.send(engine.MessageIDChanged{Conversation: "c1", OldID: b.ID, NewID: a.ID})
		if got := h.store.Recs["c1"].LastProcessed.ID; got != b.ID {
			t.Fatalf("a swap between two real ids moved the last processed message to %q, want %q", got, b.ID)
		}
		h.send(engine.MessageAdded{Conversation: "c1", Message: b})
		h.wait(time.Minute)
		h.wantRequests(0, "the 'newest' row reported again after the swap")
	})
}

// blind makes the store forget which message ids it has seen.
func blind(h *harness) {
	h.store.Lock()
	h.store.Blind = true
	h.store.Unlock()
}
