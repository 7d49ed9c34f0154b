package engine

import (
	"testing"
	"time"
)

// Issue 28's engine side: whatever the page reports, a message triggers only if its id was
// never seen in that conversation and its label time is not older than the newest message
// processed there. Each check is broken on purpose below to show the other still holds.

// stamped is a message with a full label time, as the page's labels give it.
func stamped(m Message, at string) Message {
	m.Timestamp = at
	return m
}

// blindStore forgets which ids it has seen: the id check finds nothing.
type blindStore struct{ *fakeStore }

func (blindStore) MessageOwners([]string) (map[string]ConversationID, error) {
	return map[string]ConversationID{}, nil
}

func TestOldMessageReportedAsNewIsNotAnsweredByIdentity(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.setMode("c1", ModeActive)
		old := []Message{in("Ann", "first"), in("Bob", "second"), in("Ann", "third")}
		h.open("c1", old...)
		h.restart() // the seen ids live in the store, not only in the engine's memory
		// The page draws only the newest row after the restart (a virtual list's window).
		h.page.mu.Lock()
		h.page.conv("c1").msgs = old[2:]
		h.page.mu.Unlock()
		h.reopen("c1")
		h.wait(time.Minute)
		h.wantRequests(0, "a reopened view")
		// A recycled row: the page reports "second" again as a new message at the bottom. No
		// label time here, so only identity can tell.
		h.send(MessageAdded{Conversation: "c1", Message: old[1]})
		h.wait(time.Minute)
		h.wantRequests(0, "an old message reported as new")
	})
}

func TestOldMessageReportedAsNewIsNotAnsweredByTimeWhenIdentityIsBlind(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.cfg.Store = blindStore{h.store}
		h.restart()
		h.store.setMode("c1", ModeActive)
		h.open("c1",
			stamped(in("Ann", "first"), "February 3, 2026 at 6:40 PM"),
			stamped(in("Bob", "second"), "February 3, 2026 at 6:41 PM"),
			stamped(in("Ann", "third"), "February 3, 2026 at 6:45 PM"))
		h.wait(time.Minute)
		// An older message the engine never saw (its id is new to it: a view opened away from
		// the live end loaded it below) is history by its time.
		h.send(MessageAdded{Conversation: "c1", Message: stamped(in("Cat", "way back"), "February 2, 2026 at 9:00 AM")})
		h.wait(time.Minute)
		h.wantRequests(0, "a message older than the newest processed")
		// A message of the same minute as the newest, or later, is new.
		h.send(MessageAdded{Conversation: "c1", Message: stamped(in("Cat", "now"), "February 3, 2026 at 6:45 PM")})
		h.wait(time.Minute)
		h.wantRequests(1, "a message as new as the newest")
	})
}

// The time check stands even across a restart: the newest label time is stored.
func TestNewestLabelTimeSurvivesARestart(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.cfg.Store = blindStore{h.store}
		h.restart()
		h.store.setMode("c1", ModeActive)
		h.open("c1", stamped(in("Ann", "late"), "March 1, 2026 at 11:59 PM"))
		h.restart()
		h.reopen("c1")
		h.send(MessageAdded{Conversation: "c1", Message: stamped(in("Ann", "earlier"), "March 1, 2026 at 10:00 PM")})
		h.wait(time.Minute)
		h.wantRequests(0, "older than the stored newest time")
	})
}

// With the time check blind (no label times), identity alone keeps the old message out; and
// an id change between two real ids (a reused row) renames nothing.
func TestIdChangeBetweenTwoRealIdsIsNotARename(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.setMode("c1", ModeActive)
		a, b := in("Ann", "older"), in("Bob", "newest")
		h.open("c1", a, b)
		h.send(MessageIDChanged{Conversation: "c1", OldID: b.ID, NewID: a.ID})
		if got := h.store.recs["c1"].LastProcessed.ID; got != b.ID {
			t.Fatalf("a swap between two real ids moved the last processed message to %q, want %q", got, b.ID)
		}
		h.send(MessageAdded{Conversation: "c1", Message: b})
		h.wait(time.Minute)
		h.wantRequests(0, "the 'newest' row reported again after the swap")
	})
}
