package engine_test

import (
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// waitingShown reports what the pill was last told about Clanker waiting for the user's
// draft, and checks that the snapshot the menus read says the same.
func waitingShown(t *testing.T, h *harness) bool {
	t.Helper()
	st := h.page.Commands(engine.CmdStatus)
	if len(st) == 0 {
		t.Fatal("no status was ever sent to the page")
	}
	last := st[len(st)-1].Waiting
	if s := h.snap(); s.WaitingForDraft != last {
		t.Fatalf("the pill says waiting=%v but the snapshot the menus read says %v", last, s.WaitingForDraft)
	}
	return last
}

// A draft the user leaves in the box holds the answer Clanker has ready there; the pill and
// the menus say that Clanker waits for it, and stop saying so once the answer is out.
func TestAnAnswerHeldBehindTheDraftIsShownAsWaiting(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		h.llm.Set(time.Second, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "held"}, nil })
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		if waitingShown(t, h) {
			t.Fatal("want no waiting shown with nothing to say")
		}
		h.receive("c1", in("Ann", "thoughts?"))
		h.wait(2500 * time.Millisecond) // request in flight
		h.setDraft("c1", true)
		h.wait(time.Minute)
		h.wantSent("while the user has a draft")
		if !waitingShown(t, h) {
			t.Fatal("want the pill to say Clanker waits for the draft while its answer is held")
		}
		h.setDraft("c1", false)
		h.wait(time.Minute)
		h.wantSent("after the box is empty", "c1|[clanker] held")
		if waitingShown(t, h) {
			t.Fatal("want the waiting gone once the answer is out")
		}
	})
}

// A visit owed to another conversation waits while the user's draft is in the box on screen
// (Clanker never leaves it for a visit); that too is shown, until the visit goes.
func TestAVisitHeldByTheDraftOnScreenIsShownAsWaiting(t *testing.T) {
	run(t, func(t *testing.T) {
		h := visitHarness(t, engine.InactiveProcess, map[engine.ConversationID]engine.Mode{"c2": engine.ModeAvailable})
		h.llm.Set(time.Second, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "Tuesday."}, nil })
		h.setDraft("c1", true)
		h.wait(time.Minute)
		if waitingShown(t, h) {
			t.Fatal("want no waiting shown for a draft that holds nothing")
		}
		h.receive("c2", in("Bob", "clanker, which day is the dentist?"))
		h.wait(10 * time.Minute)
		if got := navigations(h); len(got) != 0 {
			t.Fatalf("want no visit while the user's draft is in the box, got navigations %v", got)
		}
		if !waitingShown(t, h) {
			t.Fatal("want the pill to say Clanker waits for the draft while a visit is owed")
		}
		h.userEmpties("c1", false)
		h.wait(10 * time.Minute)
		if got := answers(h, "c2"); len(got) != 1 || got[0] != "[clanker] Tuesday." {
			t.Fatalf("want Bob answered once the box emptied, got %q", got)
		}
		if waitingShown(t, h) {
			t.Fatal("want the waiting gone once the visit went")
		}
	})
}

// Visits switched off never wait for anything, so a draft with news elsewhere shows no wait.
func TestNoWaitingIsShownForVisitsThatAreSwitchedOff(t *testing.T) {
	run(t, func(t *testing.T) {
		h := visitHarness(t, engine.InactiveIgnore, map[engine.ConversationID]engine.Mode{"c2": engine.ModeAvailable})
		h.setDraft("c1", true)
		h.receive("c2", in("Bob", "clanker, which day is the dentist?"))
		h.wait(10 * time.Minute)
		for _, c := range h.page.Commands(engine.CmdStatus) {
			if c.Waiting {
				t.Fatal("want no waiting shown: with visits off nothing waits for the draft")
			}
		}
	})
}
