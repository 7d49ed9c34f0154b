package engine_test

import (
	"slices"
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
		h.send(engine.VisitCancelled{Reason: "the user pressed a key in the compose box", KeyIn: "c2"})
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

// Chaos seed 13400000005591: Clanker was visiting c2 for a mention, its answer being computed,
// when the user clicked c3 in the sidebar and typed there before the page reported the switch.
// The bridge reports the key as a cancel of the visit, and the engine took it for the user
// typing in c2: it released the mention and threw the answer away, and the person who asked
// was never answered. The key was in c3's box (the bridge says where): the user left c2, as
// with any click elsewhere, and cancelled nothing there. The same goes for a key in the user's
// own conversation before the visit's navigation took the page away from it (the visited
// conversation was dropped from the queue without a word). Either way the mention stays owed,
// and Clanker visits c2 for it once the user is done and the takeover pause is over.
func TestKeyPressedInAnotherConversationDuringAVisitReleasesNothing(t *testing.T) {
	cases := []struct {
		name string
		// noNav leaves the page on c1 when the visit navigates to c2.
		noNav bool
		// in is where the user types; moved says the page had switched there unreported.
		in    engine.ConversationID
		moved bool
		// navs are the navigations the engine makes in all.
		navs []engine.ConversationID
	}{
		{name: "the user opened another conversation, unreported, and typed there", in: "c3", moved: true,
			navs: []engine.ConversationID{"c2", "c2", "c3"}},
		{name: "the user typed in their own conversation before the visit's navigation", noNav: true, in: "c1",
			navs: []engine.ConversationID{"c2", "c2", "c1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run(t, func(t *testing.T) {
				h := visitHarness(t, engine.InactiveProcess, map[engine.ConversationID]engine.Mode{"c2": engine.ModeAvailable})
				h.llm.Set(2*time.Second, reply("Tuesday."))
				h.page.SetNoNav(c.noNav)
				h.receive("c2", in("Bob", "clanker, which day is the dentist?"))
				if s := h.snap(); s.Visiting != "c2" {
					t.Fatalf("setup: want Clanker visiting c2, got %q", s.Visiting)
				}
				h.page.SetNoNav(false)
				if c.moved {
					h.page.Show(c.in) // the user's click; the page reports it only later
				}
				h.send(engine.VisitCancelled{Reason: "the user pressed a key in the compose box", KeyIn: c.in})
				h.userTypes(c.in, "on my way")
				if s := h.snap(); s.Visiting != "" {
					t.Fatalf("want the visit over once the user typed in %s, got visiting=%q", c.in, s.Visiting)
				}
				h.wait(300 * time.Millisecond)
				if c.moved {
					h.reopen(c.in) // the page's report of the switch, late
				}
				h.wait(time.Minute)
				h.wantSent("nothing is posted while the user is busy in " + string(c.in))
				h.userEmpties(c.in, true)
				h.wait(5 * time.Minute)
				if got := answers(h, "c2"); len(got) != 1 || got[0] != "[clanker] Tuesday." {
					t.Fatalf("want Bob's question in c2 answered once, got %q (navigations %v)", got, navigations(h))
				}
				if got := navigations(h); !slices.Equal(got, c.navs) {
					t.Errorf("want navigations %v (c2 visited again after the pause, then back to %s), got %v", c.navs, c.in, got)
				}
				if s := h.snap(); s.Visiting != "" || len(s.VisitQueue) != 0 || s.Foreground == nil || s.Foreground.ID != c.in {
					t.Errorf("want the user back in %s with nothing left to visit, got fg=%v visiting=%q queue=%v", c.in, s.Foreground, s.Visiting, s.VisitQueue)
				}
			})
		})
	}
}
