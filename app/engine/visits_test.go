package engine_test

import (
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// visitHarness has c1 on screen, c2..c4 in the sidebar, and the sidebar baseline taken.
func visitHarness(t *testing.T, policy engine.InactivePolicy, modes map[engine.ConversationID]engine.Mode) *harness {
	t.Helper()
	h := newHarness(t, func(s *engine.Settings) { s.InactiveMode = policy })
	for id, m := range modes {
		h.store.SetMode(id, m)
	}
	h.page.Lock()
	for _, id := range []engine.ConversationID{"c2", "c3", "c4"} {
		h.page.Conv(id).Msgs = []engine.Message{in("Zed", "old news in "+string(id))}
	}
	h.page.Unlock()
	h.open("c1", in("Ann", "hi"))
	h.send(h.sidebar()) // baseline
	return h
}

func navigations(h *harness) []engine.ConversationID {
	var out []engine.ConversationID
	for _, c := range h.page.Commands(engine.CmdNavigate) {
		out = append(out, c.Conversation)
	}
	return out
}

// Behaviour 23: process mode answers at once, without typing, and returns.
func TestProcessModeVisitsAnswersInstantlyAndReturns(t *testing.T) {
	run(t, func(t *testing.T) {
		h := visitHarness(t, engine.InactiveProcess, map[engine.ConversationID]engine.Mode{"c2": engine.ModeActive})
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "on it"}, nil })
		at := time.Now()
		h.receive("c2", in("Bob", "anyone up for tennis?"))
		h.wait(10 * time.Second)
		reqs := h.wantRequests(1, "the visited conversation")
		if reqs[0].Conversation != "c2" {
			t.Fatalf("want the request for c2, got %q", reqs[0].Conversation)
		}
		if d := h.llm.Times()[0].Sub(at); d != 0 {
			t.Fatalf("want no reading delay in process mode, waited %v", d)
		}
		if n := len(h.page.Commands(engine.CmdTypeText)); n != 0 {
			t.Fatalf("want no typing simulation in process mode, got %d steps", n)
		}
		h.wantSent("the answer", "c2|[clanker] on it")
		if got := navigations(h); len(got) != 2 || got[0] != "c2" || got[1] != "c1" {
			t.Fatalf("want navigation to c2 and back to c1, got %v", got)
		}
		ov := h.page.Commands(engine.CmdOverlay)
		if len(ov) != 2 || ov[0].Text != engine.OverlayText || ov[1].Text != "" {
			t.Fatalf("want the overlay shown then hidden, got %+v", ov)
		}
		if s := h.snap(); s.Foreground.ID != "c1" || s.Visiting != "" {
			t.Fatalf("want to be back on c1 with no visit running, got fg=%q visiting=%q", s.Foreground.ID, s.Visiting)
		}
	})
}

func TestSnippetEvaluationUsesTheStoredMode(t *testing.T) {
	cases := []struct {
		name    string
		mode    engine.Mode
		msg     engine.Message
		visited bool
	}{
		{"active any message", engine.ModeActive, in("Bob", "hello"), true},
		{"available with mention", engine.ModeAvailable, in("Bob", "clanker, settle this"), true},
		{"available without mention", engine.ModeAvailable, in("Bob", "hello"), false},
		{"available, another Clanker's prefix only", engine.ModeAvailable, in("Bob", "[clanker] hello"), false},
		{"deactivated", engine.ModeDeactivated, in("Bob", "clanker!"), false},
		{"own outgoing snippet", engine.ModeActive, out("sent from my phone"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run(t, func(t *testing.T) {
				h := visitHarness(t, engine.InactiveProcess, map[engine.ConversationID]engine.Mode{"c2": c.mode})
				h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{}, nil })
				h.receive("c2", c.msg)
				h.wait(time.Minute)
				if got := len(navigations(h)) > 0; got != c.visited {
					t.Fatalf("want visited=%v, got navigations %v", c.visited, navigations(h))
				}
			})
		})
	}
}

func TestVisitsWaitForTheForegroundToBeAvailable(t *testing.T) {
	run(t, func(t *testing.T) {
		h := visitHarness(t, engine.InactiveProcess, map[engine.ConversationID]engine.Mode{"c2": engine.ModeActive})
		h.setDraft("c1", true)
		h.receive("c2", in("Bob", "hello"))
		h.wait(time.Hour)
		if got := navigations(h); len(got) != 0 {
			t.Fatalf("want no visit while the user has a draft, got %v", got)
		}
		h.setDraft("c1", false)
		h.wait(10 * time.Second)
		if got := navigations(h); len(got) == 0 || got[0] != "c2" {
			t.Fatalf("want the visit once the box is empty, got %v", got)
		}
	})
}

// Behaviour 24: idle mode waits for 10 minutes without foreground activity.
func TestIdleModeWaitsForTenMinutesWithoutActivity(t *testing.T) {
	run(t, func(t *testing.T) {
		h := visitHarness(t, engine.InactiveIdle, map[engine.ConversationID]engine.Mode{"c2": engine.ModeActive})
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{}, nil })
		start := time.Now()
		h.receive("c2", in("Bob", "hello"))
		h.wait(5 * time.Minute)
		h.send(engine.ComposeState{Conversation: "c1", Focused: true}) // activity at 5 min
		h.wait(9*time.Minute + 59*time.Second)
		if got := navigations(h); len(got) != 0 {
			t.Fatalf("want no visit before 10 idle minutes, got %v at %v", got, time.Since(start))
		}
		h.wait(2 * time.Second)
		if got := navigations(h); len(got) == 0 || got[0] != "c2" {
			t.Fatalf("want the visit after 10 idle minutes, got %v", got)
		}
	})
}

// New behaviour: with the window hidden in the tray nobody is interrupted, so queued
// conversations are handled at once even in idle mode.
func TestHiddenWindowProcessesQueuedConversationsAtOnce(t *testing.T) {
	run(t, func(t *testing.T) {
		h := visitHarness(t, engine.InactiveIdle, map[engine.ConversationID]engine.Mode{"c2": engine.ModeActive})
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{}, nil })
		h.send(engine.WindowVisibility{Hidden: true})
		h.receive("c2", in("Bob", "hello"))
		h.wait(time.Second)
		if got := navigations(h); len(got) == 0 || got[0] != "c2" {
			t.Fatalf("want an immediate visit while hidden, got %v", got)
		}
	})
}

func TestIgnorePolicyNeverVisits(t *testing.T) {
	run(t, func(t *testing.T) {
		h := visitHarness(t, engine.InactiveIgnore, map[engine.ConversationID]engine.Mode{"c2": engine.ModeActive})
		h.receive("c2", in("Bob", "hello"))
		h.wait(time.Hour)
		if got := navigations(h); len(got) != 0 {
			t.Fatalf("want no visit with the ignore setting, got %v", got)
		}
	})
}

// The foreground conversation's sidebar snippet baseline follows what the user sees, so it is
// not queued for a visit as "new" right after the user leaves it.
func TestForegroundSnippetBaselineStaysFreshSoItIsNotQueuedLater(t *testing.T) {
	run(t, func(t *testing.T) {
		h := visitHarness(t, engine.InactiveProcess, map[engine.ConversationID]engine.Mode{"c1": engine.ModeActive})
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{}, nil })
		h.receive("c1", in("Ann", "news while on screen"))
		h.send(h.sidebar()) // the sidebar shows c1's new snippet while c1 is foreground
		h.wait(5 * time.Second)
		h.open("c2")
		h.send(h.sidebar()) // nothing new anywhere
		h.wait(time.Minute)
		if got := navigations(h); len(got) != 0 {
			t.Fatalf("want no visit to c1, whose snippet did not change since it was on screen; got %v", got)
		}
	})
}

func TestVisitThatNeverOpensReturnsHome(t *testing.T) {
	run(t, func(t *testing.T) {
		h := visitHarness(t, engine.InactiveProcess, map[engine.ConversationID]engine.Mode{"c2": engine.ModeActive})
		h.page.Lock()
		h.page.NoNav = true
		h.page.Unlock()
		h.receive("c2", in("Bob", "hello"))
		h.wait(11 * time.Second)
		if s := h.snap(); s.Visiting != "" || s.Foreground.ID != "c1" {
			t.Fatalf("want the failed visit abandoned on c1, got visiting=%q fg=%q", s.Visiting, s.Foreground.ID)
		}
		if ov := h.page.Commands(engine.CmdOverlay); len(ov) != 2 || ov[1].Text != "" {
			t.Fatalf("want the overlay removed, got %+v", ov)
		}
	})
}

// A navigation that does not complete within 10 s is retried after a 30 s pause instead of
// silently losing the conversation's new message.
func TestFailedVisitIsRetriedAfterTheThirtySecondPause(t *testing.T) {
	run(t, func(t *testing.T) {
		h := visitHarness(t, engine.InactiveProcess, map[engine.ConversationID]engine.Mode{"c2": engine.ModeActive})
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "sorry, late"}, nil })
		h.page.SetNoNav(true)
		h.receive("c2", in("Bob", "anyone?"))
		h.wait(engine.NavigationTimeout)
		s := h.snap()
		if s.Visiting != "" || len(s.VisitQueue) != 1 || s.VisitQueue[0] != "c2" || s.VisitPauseLeft != engine.VisitRetryPause {
			t.Fatalf("want c2 back in the queue with a %v pause after the failed navigation, got queue=%v visiting=%q pause=%v",
				engine.VisitRetryPause, s.VisitQueue, s.Visiting, s.VisitPauseLeft)
		}
		h.page.SetNoNav(false)
		h.wait(engine.VisitRetryPause - time.Millisecond)
		if got := navigations(h); len(got) != 1 {
			t.Fatalf("want no second attempt before the pause ends, got navigations %v", got)
		}
		h.wait(time.Millisecond)
		h.wait(10 * time.Second)
		if got := navigations(h); len(got) != 3 || got[1] != "c2" || got[2] != "c1" {
			t.Fatalf("want the retry to visit c2 and return to c1, got %v", got)
		}
		h.wantSent("the answer after the retry", "c2|[clanker] sorry, late")
	})
}

// The page refuses a visit's first navigation while the user is using the window (the
// engine's view of the compose box lags the page's). Nothing moves: the overlay goes, the
// user's conversation stays on screen with their draft, and the visit is tried again after
// a short pause, once the user has gone quiet. The return leg and the hop to a next
// queued conversation are not marked as visits: only leaving the user's conversation is.
func TestVisitTheUserIsBusyForWaitsAndComesBackWhenTheyAreQuiet(t *testing.T) {
	run(t, func(t *testing.T) {
		h := visitHarness(t, engine.InactiveProcess, map[engine.ConversationID]engine.Mode{"c2": engine.ModeActive, "c3": engine.ModeActive})
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "here"}, nil })
		h.page.SetUserActive(true)
		h.receive("c2", in("Bob", "anyone?"))
		h.receive("c3", in("Cy", "hello?"))
		h.wait(time.Second)
		s := h.snap()
		if s.Visiting != "" || s.Foreground.ID != "c1" {
			t.Fatalf("want no visit while the user is busy, got visiting=%q fg=%q", s.Visiting, s.Foreground.ID)
		}
		if len(s.VisitQueue) != 2 || s.VisitQueue[0] != "c2" || s.VisitQueue[1] != "c3" {
			t.Fatalf("want c2 then c3 still queued, got %v", s.VisitQueue)
		}
		if s.VisitPauseLeft <= 0 || s.VisitPauseLeft > engine.VisitUserPause {
			t.Fatalf("want a pause of at most %v before the next try, got %v", engine.VisitUserPause, s.VisitPauseLeft)
		}
		if ov := h.page.Commands(engine.CmdOverlay); len(ov) != 2 || ov[0].Text != engine.OverlayText || ov[1].Text != "" {
			t.Fatalf("want the overlay shown and taken down again, got %+v", ov)
		}
		if n := len(h.llm.Requests()); n != 0 {
			t.Fatalf("want no request while the visit waits, got %d", n)
		}
		// Still busy at the next try: it waits again; it never counts as a failed navigation.
		h.wait(engine.VisitUserPause)
		if got := navigations(h); len(got) != 2 || got[0] != "c2" || got[1] != "c2" {
			t.Fatalf("want two refused tries of c2, got %v", got)
		}
		h.page.SetUserActive(false)
		h.wait(engine.VisitUserPause)
		h.wait(20 * time.Second)
		got := navigations(h)
		if len(got) != 5 || got[2] != "c2" || got[3] != "c3" || got[4] != "c1" {
			t.Fatalf("want c2, c3 and back to c1 once the user is quiet, got %v", got)
		}
		for i, c := range h.page.Commands(engine.CmdNavigate) {
			if want := i <= 2; c.Visit != want {
				t.Fatalf("navigation %d to %s: want Visit=%v, got %v", i, c.Conversation, want, c.Visit)
			}
		}
		h.wantSent("both answers after the wait", "c2|[clanker] here", "c3|[clanker] here")
	})
}

func TestConversationThatNeverOpensIsDroppedAfterThreeAttemptsWhileOthersAreStillVisited(t *testing.T) {
	run(t, func(t *testing.T) {
		h := visitHarness(t, engine.InactiveProcess, map[engine.ConversationID]engine.Mode{"c2": engine.ModeActive, "c3": engine.ModeActive})
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "hi"}, nil })
		h.page.SetNoNav(true)
		h.receive("c2", in("Bob", "one"))
		h.receive("c3", in("Cy", "two"))
		// Three attempts on c2, each a 10 s wait followed by a 30 s pause.
		h.wait(3*engine.NavigationTimeout + 2*engine.VisitRetryPause)
		if got := navigations(h); len(got) != 3 || got[0] != "c2" || got[2] != "c2" {
			t.Fatalf("want three attempts on c2, got %v", got)
		}
		if s := h.snap(); len(s.VisitQueue) != 1 || s.VisitQueue[0] != "c3" {
			t.Fatalf("want c2 dropped and c3 still queued after three failures, got %v", s.VisitQueue)
		}
		h.page.SetNoNav(false)
		h.wait(engine.VisitRetryPause + 10*time.Second)
		h.wantSent("c3 is still answered", "c3|[clanker] hi")
	})
}

func TestAutomatedSidebarRowsAreNeverVisited(t *testing.T) {
	run(t, func(t *testing.T) {
		h := visitHarness(t, engine.InactiveProcess, map[engine.ConversationID]engine.Mode{"c2": engine.ModeActive})
		h.page.Lock()
		h.page.Conv("c2").Name = "72975"
		h.page.Unlock()
		h.send(h.sidebar()) // the row is renamed; its snippet did not change
		h.receive("c2", in("72975", "Your code is 123456"))
		h.wait(time.Minute)
		if got := navigations(h); len(got) != 0 {
			t.Fatalf("want no visit to an automated sender, got %v", got)
		}
	})
}

// A visit waits at most 60 s for the pipeline; then Clanker goes back, and the late answer is
// kept as the deferred reply of the visited conversation, never sent elsewhere. The
// conversation stays queued: once the answer is in and the retry pause has passed, the next
// visit posts it there.
func TestVisitWhoseAnswerNeverComesGoesBackAfterSixtySecondsAndPostsItOnTheNextVisit(t *testing.T) {
	run(t, func(t *testing.T) {
		h := visitHarness(t, engine.InactiveProcess, map[engine.ConversationID]engine.Mode{"c2": engine.ModeActive})
		h.llm.Set(2*time.Minute, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "slow answer"}, nil })
		h.receive("c2", in("Bob", "hello?"))
		h.wait(engine.ProcessingTimeout - time.Millisecond)
		if got := navigations(h); len(got) != 1 {
			t.Fatalf("want to stay on c2 until the 60 s processing timeout, got %v", got)
		}
		h.wait(time.Millisecond)
		if got := navigations(h); len(got) != 2 || got[1] != "c1" {
			t.Fatalf("want the return to c1 at 60 s, got %v", got)
		}
		if s := h.snap(); len(s.VisitQueue) != 1 || s.VisitQueue[0] != "c2" {
			t.Fatalf("want c2 queued again, its answer still to come, got %v", s.VisitQueue)
		}
		h.wait(time.Minute - time.Millisecond)
		if got := navigations(h); len(got) != 2 {
			t.Fatalf("want no visit while c2's answer is still being computed, got %v", got)
		}
		h.wait(time.Minute) // the answer lands while c1 is on screen, and c2 is visited again
		h.wantSent("the late answer, never sent into c1, posted in c2 by the next visit", "c2|[clanker] slow answer")
		if got := navigations(h); len(got) != 4 || got[2] != "c2" || got[3] != "c1" {
			t.Fatalf("want c2 visited again and the way back to c1, got %v", got)
		}
		if s := h.snap(); len(s.Deferred) != 0 || len(s.VisitQueue) != 0 {
			t.Fatalf("want nothing kept or queued any more, got deferred=%v queue=%v", s.Deferred, s.VisitQueue)
		}
	})
}

// Found by tests/browser/chaostest: a conversation queued for a visit while the user was busy
// stayed queued after the user opened it, so Clanker later "visited" the conversation already
// on screen, covered it with the overlay and retried the failed visit for minutes.
func TestConversationTheUserOpensIsNoLongerQueuedForAVisit(t *testing.T) {
	run(t, func(t *testing.T) {
		h := visitHarness(t, engine.InactiveProcess, map[engine.ConversationID]engine.Mode{"c2": engine.ModeActive})
		h.setDraft("c1", true)
		h.receive("c2", in("Bob", "hello"))
		h.wait(time.Second)
		if q := h.snap().VisitQueue; len(q) != 1 || q[0] != "c2" {
			t.Fatalf("want c2 queued while the user types in c1, got %v", q)
		}
		h.open("c2", in("Zed", "old news in c2"), in("Bob", "hello"))
		h.wait(time.Hour)
		if got := navigations(h); len(got) != 0 {
			t.Fatalf("want no visit to the conversation the user opened, got navigations %v", got)
		}
		if ov := h.page.Commands(engine.CmdOverlay); len(ov) != 0 {
			t.Fatalf("want no processing overlay, got %+v", ov)
		}
		if q := h.snap().VisitQueue; len(q) != 0 {
			t.Fatalf("want the queue empty once c2 is on screen, got %v", q)
		}
	})
}
