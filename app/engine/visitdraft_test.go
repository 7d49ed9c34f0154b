package engine_test

import (
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Chaos seed 60000538: the user left a draft in c2's box and went elsewhere; someone then
// addressed Clanker in c2 and Clanker visited it. The page restored the draft when c2 opened
// and reported it, and the engine took that report for the user typing during the visit: it
// cancelled the visit as if the user had pressed Cancel, released the mention and kept quiet in
// c2 for good. The user cancelled nothing (a key pressed during a visit reaches the engine as
// VisitCancelled, the bridge's overlay_cancel): the mention stays owed and is answered once the
// user's draft is gone, as in any conversation the user has open.
func TestDraftFoundInAVisitedConversationReleasesNothing(t *testing.T) {
	run(t, func(t *testing.T) {
		h := visitHarness(t, engine.InactiveProcess, map[engine.ConversationID]engine.Mode{"c2": engine.ModeAvailable})
		h.llm.Set(2*time.Second, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "Tuesday."}, nil })
		h.page.Lock()
		h.page.Box["c2"] = "see you at "
		h.page.Unlock()
		h.receive("c2", in("Bob", "clanker, which day is the dentist?"))
		if s := h.snap(); s.Visiting != "c2" || s.Foreground == nil || s.Foreground.ID != "c2" {
			t.Fatalf("want Clanker visiting c2, got visiting=%q", s.Visiting)
		}
		h.setDraft("c2", true) // the bridge's report of the box once c2 settled
		h.wait(time.Minute)
		h.wantSent("nothing is typed over the user's draft")
		if s := h.snap(); s.Visiting != "" || s.Foreground.ID != "c2" {
			t.Fatalf("want the visit over and c2 left on screen with the user's draft, got visiting=%q fg=%q", s.Visiting, s.Foreground.ID)
		}
		if got := navigations(h); len(got) != 1 {
			t.Fatalf("want no navigation away from the box holding the user's draft, got %v", got)
		}
		h.userEmpties("c2", true) // the user sends their draft
		h.wait(time.Minute)
		if got := answers(h, "c2"); len(got) != 1 || got[0] != "[clanker] Tuesday." {
			t.Fatalf("want Bob's question answered once after the user's own message, got %q", got)
		}
	})
}

// A key the user presses in the compose box during a visit is the user cancelling it (the
// bridge reports it as overlay_cancel, reason "key"): as with Cancel, Clanker posts nothing in
// that conversation afterwards.
func TestKeyPressedDuringAVisitCancelsItLikeCancel(t *testing.T) {
	run(t, func(t *testing.T) {
		h := visitHarness(t, engine.InactiveProcess, map[engine.ConversationID]engine.Mode{"c2": engine.ModeAvailable})
		h.llm.Set(2*time.Second, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "Tuesday."}, nil })
		h.receive("c2", in("Bob", "clanker, which day is the dentist?"))
		h.send(engine.VisitCancelled{Reason: "the user pressed a key in the compose box"})
		h.userTypes("c2", "it is ")
		h.wait(time.Minute)
		h.userEmpties("c2", true)
		h.wait(time.Minute)
		if got := answers(h, "c2"); len(got) != 0 {
			t.Fatalf("want nothing posted in c2 after the user cancelled the visit, got %q", got)
		}
		if s := h.snap(); s.Visiting != "" || s.Foreground.ID != "c2" {
			t.Fatalf("want the visit over and the user left in c2, got visiting=%q fg=%q", s.Visiting, s.Foreground.ID)
		}
	})
}
