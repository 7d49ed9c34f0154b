package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Tests for the conversation loop: nothing the user or Clanker started is lost, and nothing
// traps the user.

func bannersWith(h *harness, key string) []engine.Command {
	var out []engine.Command
	for _, c := range h.page.Commands(engine.CmdBanner) {
		if c.Key == key {
			out = append(out, c)
		}
	}
	return out
}

// A request refused before it was sent because the stored settings cannot be used (an http://
// endpoint that is not loopback, say) shows a banner instead of a toast per message, keeps the
// conversation's mode, and the banner goes when the settings are saved again.
func TestUnusableStoredSettingsShowABannerKeepTheModeAndClearOnSave(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		const why = "Clanker's AI settings cannot be used, so nothing was sent: use https:// for anything else. Open Settings to fix them."
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) {
			return engine.Reply{}, &engine.LLMError{Class: engine.ErrSettings, UserText: why}
		})
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "what's up"))
		h.wait(5 * time.Second)
		h.wantRequests(1, "one refused request")
		h.wantSent("after a refused request")
		if b := bannersWith(h, engine.BannerSettings); len(b) != 1 || b[0].Text != why {
			t.Fatalf("want one settings banner saying %q, got %+v", why, b)
		}
		if n := len(h.page.Commands(engine.CmdToast)); n != 0 {
			t.Fatalf("want no toast for unusable settings, got %d", n)
		}
		if h.store.Mode("c1") != engine.ModeActive {
			t.Fatalf("the mode changed to %q; fixing the settings must be enough", h.store.Mode("c1"))
		}
		h.llm.Set(0, nil)
		h.send(engine.SettingsChanged{Settings: testSettings(), HasAPIKey: true})
		b := bannersWith(h, engine.BannerSettings)
		if last := b[len(b)-1]; last.Text != "" {
			t.Fatalf("want the settings banner removed after a save, got %+v", b)
		}
		h.receive("c1", in("Ann", "and now?"))
		h.wait(10 * time.Second)
		h.wantSent("after the fix", "c1|"+engine.Prefix+"ok")
		if !strings.HasPrefix(h.page.Sent()[0].Text, engine.Prefix) {
			t.Fatal("reply without prefix")
		}
	})
}

// typingStarted waits until Clanker has typed at least n steps into the box.
func typingStarted(h *harness, n int) {
	h.t.Helper()
	for i := 0; len(h.page.Commands(engine.CmdTypeText)) < n; i++ {
		if i > 400 {
			h.t.Fatalf("Clanker did not start typing (insert %d, steps %d)", len(h.page.Commands(engine.CmdInsertText)), len(h.page.Commands(engine.CmdTypeText)))
		}
		h.wait(25 * time.Millisecond)
	}
}

// The user types while Clanker types: Clanker stops at once, takes out only its own partial
// text, shows nothing, and sends the whole reply once the user clears their draft.
func TestUserTypingWhileClankerTypesStopsAndSendsAfterTheDraftIsCleared(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		const reply = "sure, seven works for me and I will bring the salad"
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: reply}, nil })
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "dinner at seven?"))
		typingStarted(h, 3)
		h.userTypes("c1", "wait")
		steps := len(h.page.Commands(engine.CmdTypeText))
		if n := len(h.page.Commands(engine.CmdRemoveText)); n != 1 {
			t.Fatalf("want Clanker's partial text removed once, got %d removes", n)
		}
		if got := h.userText("c1"); got != "wait" {
			t.Fatalf("the box holds %q besides Clanker's text, want the user's %q", got, "wait")
		}
		h.page.Lock()
		box := h.page.Box["c1"]
		h.page.Unlock()
		if box != "wait" {
			t.Fatalf("the box holds %q, want only the user's text", box)
		}
		h.userTypes("c1", "... ok")
		h.wait(30 * time.Second)
		if n := len(h.page.Commands(engine.CmdTypeText)); n != steps {
			t.Fatalf("Clanker typed %d more steps into the user's draft", n-steps)
		}
		if n := len(h.page.Commands(engine.CmdToast)); n != 0 {
			t.Fatalf("want no toast when the user types, got %+v", h.page.Commands(engine.CmdToast))
		}
		h.wantSent("while the user has a draft")
		if got := h.userText("c1"); got != "wait... ok" {
			t.Fatalf("the user's text became %q, want it exactly as typed", got)
		}
		h.userEmpties("c1", false)
		h.wait(20 * time.Second)
		h.wantSent("after the user cleared their draft", "c1|"+engine.Prefix+reply)
		h.wantRequests(1, "the held reply needs no new request")
	})
}

// The user sends their own message instead: that is a newer message, so the held reply is not
// posted as it was; Clanker decides again with the user's message in view.
func TestUserTypingWhileClankerTypesAndSendingRedecides(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.llm.Set(0, func(r engine.LLMRequest) (engine.Reply, error) {
			last := r.History[len(r.History)-1]
			return engine.Reply{Text: "answer to " + last.Text + " and a little more text to type"}, nil
		})
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "dinner?"))
		typingStarted(h, 3)
		h.userTypes("c1", "yes at 7")
		h.wait(5 * time.Second)
		h.wantSent("while the user has a draft")
		h.userEmpties("c1", true)
		h.wait(30 * time.Second)
		reqs := h.wantRequests(2, "the user's message makes Clanker decide again")
		if last := reqs[1].History[len(reqs[1].History)-1]; last.Text != "yes at 7" {
			t.Fatalf("the second request ends with %q, want the user's message", last.Text)
		}
		h.wantSent("only the re-decided reply", "c1|"+engine.Prefix+"answer to yes at 7 and a little more text to type")
	})
}

// Answers in flight for several conversations: the user asks in A, hops to B and C while the
// answers are on their way. Each answer is kept for its own conversation and delivered when
// the user returns there, unless newer messages arrived there.
func TestAnswersInFlightAcrossSeveralConversationsAreEachDeliveredOnReturn(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.llm.Set(10*time.Second, func(r engine.LLMRequest) (engine.Reply, error) {
			return engine.Reply{Text: "for " + string(r.Conversation)}, nil
		})
		for _, id := range []engine.ConversationID{"A", "B", "C", "D"} {
			h.store.SetMode(id, engine.ModeActive)
		}
		h.open("A", in("Ann", "hi"))
		h.receive("A", in("Ann", "question for A"))
		h.wait(2 * time.Second) // A's request is in flight
		h.open("B", in("Bob", "hi"))
		h.receive("B", in("Bob", "question for B"))
		h.wait(12 * time.Second) // A answered while the user was in B; B's request is in flight
		h.open("C", in("Cat", "hi"))
		h.receive("C", in("Cat", "question for C"))
		h.wait(12 * time.Second) // B answered while the user was in C
		h.open("D", in("Dan", "hi"))
		h.wait(12 * time.Second) // C answered while the user was in D
		h.wantRequests(3, "one request per question")
		h.wantSent("nothing is sent into a conversation that is not on screen")
		if s := h.snap(); strings.Join(convIDs(s.Deferred), ",") != "A,B,C" {
			t.Fatalf("deferred replies for %v, want A, B and C", s.Deferred)
		}
		h.receive("B", in("Bob", "never mind")) // B moved on while the user was away
		h.reopen("A")
		h.wait(10 * time.Second)
		h.reopen("C")
		h.wait(10 * time.Second)
		h.reopen("B")
		h.wait(10 * time.Second)
		sent := h.page.Sent()
		if len(sent) < 2 || sent[0].Conversation != "A" || sent[0].Text != engine.Prefix+"for A" || sent[1].Conversation != "C" || sent[1].Text != engine.Prefix+"for C" {
			t.Fatalf("sent %+v; want A's answer in A, then C's answer in C", sent)
		}
		for _, st := range sent[2:] {
			if st.Text == engine.Prefix+"for B" && len(h.llm.Requests()) == 3 {
				t.Fatalf("B's old answer was posted although B has a newer message")
			}
		}
		for _, st := range sent {
			if !strings.HasSuffix(st.Text, "for "+string(st.Conversation)) {
				t.Fatalf("%q was sent into %s, the wrong conversation", st.Text, st.Conversation)
			}
		}
	})
}

// The user leaves A and comes back before A's answer arrives: the answer is posted in A.
func TestAnswerArrivingAfterTheUserCameBackIsPosted(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.llm.Set(10*time.Second, func(r engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "back to you"}, nil })
		h.store.SetMode("A", engine.ModeActive)
		h.open("A", in("Ann", "hi"))
		h.receive("A", in("Ann", "question"))
		h.wait(2 * time.Second)
		h.open("B", in("Bob", "hi"))
		h.wait(time.Second)
		h.reopen("A")
		h.wait(20 * time.Second)
		h.wantSent("the answer once the user is back", "A|"+engine.Prefix+"back to you")
	})
}

func convIDs(ids []engine.ConversationID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(id)
	}
	return out
}

func lastBanner(h *harness, key string) (string, bool) {
	b := bannersWith(h, key)
	if len(b) == 0 {
		return "", false
	}
	return b[len(b)-1].Text, true
}

// The deactivated banner of an auth failure goes when its cause is gone: the mode switched on
// again, the settings saved, or a request succeeding; it comes back when the cause recurs.
func TestDeactivatedBannerIsClearedWhenItsCauseIsGone(t *testing.T) {
	for _, fix := range []string{"mode", "settings", "success"} {
		t.Run(fix, func(t *testing.T) {
			run(t, func(t *testing.T) {
				h := newHarness(t)
				fail := func(engine.LLMRequest) (engine.Reply, error) {
					return engine.Reply{}, &engine.LLMError{Class: engine.ErrAuth, Status: 401, UserText: "Invalid API key."}
				}
				h.llm.Set(0, fail)
				h.store.SetMode("c1", engine.ModeActive)
				h.open("c1", in("Ann", "hi"))
				h.receive("c1", in("Ann", "hello?"))
				h.wait(5 * time.Second)
				if text, _ := lastBanner(h, engine.BannerDeactivated); text == "" {
					t.Fatal("want the deactivated banner after the auth failure")
				}
				h.llm.Set(0, nil)
				switch fix {
				case "mode":
					h.send(engine.SetMode{Mode: engine.ModeAvailable})
				case "settings":
					h.send(engine.SettingsChanged{Settings: testSettings(), HasAPIKey: true})
				case "success":
					h.store.SetMode("c2", engine.ModeActive)
					h.open("c2", in("Bob", "hi"))
					h.receive("c2", in("Bob", "still there?"))
					h.wait(5 * time.Second)
				}
				if text, ok := lastBanner(h, engine.BannerDeactivated); !ok || text != "" {
					t.Fatalf("after %s the deactivated banner is %q, want it removed", fix, text)
				}
				// The cause recurs: the banner is shown again.
				h.llm.Set(0, fail)
				h.store.SetMode("c3", engine.ModeActive)
				h.open("c3", in("Cy", "hi"))
				h.receive("c3", in("Cy", "hey"))
				h.wait(5 * time.Second)
				if text, _ := lastBanner(h, engine.BannerDeactivated); text == "" {
					t.Fatal("want the banner back when the cause recurs")
				}
			})
		})
	}
}

// A spent monthly budget's banner goes when the next month begins.
func TestSpentBudgetBannerIsClearedInTheNextMonth(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) {
			return engine.Reply{}, &engine.LLMError{Class: engine.ErrBudget, UserText: "Your monthly budget is spent; Clanker is off until next month or until you raise it."}
		})
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "hello?"))
		h.wait(5 * time.Second)
		if text, _ := lastBanner(h, engine.BannerDeactivated); text == "" {
			t.Fatal("want the budget banner")
		}
		now := time.Now().In(time.UTC)
		nextMonth := time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, time.UTC)
		h.wait(time.Until(nextMonth) - time.Hour)
		if text, _ := lastBanner(h, engine.BannerDeactivated); text == "" {
			t.Fatal("the budget banner went before the month ended")
		}
		h.wait(2 * time.Hour)
		if text, ok := lastBanner(h, engine.BannerDeactivated); !ok || text != "" {
			t.Fatalf("in the next month the budget banner is %q, want it removed", text)
		}
	})
}

// A purge goes through the engine: an answer in flight for the purged conversation neither
// saves memory nor posts, a deferred reply is forgotten, and a short confirmation follows.
func TestPurgeStopsAnswersInFlightFromSavingMemoryOrPosting(t *testing.T) {
	for _, all := range []bool{false, true} {
		name := "conversation"
		if all {
			name = "all"
		}
		t.Run(name, func(t *testing.T) {
			run(t, func(t *testing.T) {
				h := newHarness(t)
				summary := "Ann likes tacos"
				h.llm.Set(10*time.Second, func(engine.LLMRequest) (engine.Reply, error) {
					return engine.Reply{Text: "tacos it is", Update: engine.ContextUpdate{Summary: &summary}}, nil
				})
				h.store.SetMode("c1", engine.ModeActive)
				h.store.SetMode("c2", engine.ModeActive)
				// c2 gets a deferred answer, c1 an answer in flight.
				h.open("c2", in("Bob", "hi"))
				h.receive("c2", in("Bob", "lunch?"))
				h.wait(2 * time.Second)
				h.open("c1", in("Ann", "hi"))
				h.receive("c1", in("Ann", "dinner?"))
				h.wait(15 * time.Second) // c2's answer deferred, c1's request in flight
				if len(h.store.Updates["c2"]) != 1 {
					t.Fatalf("setup: want c2's memory saved once before the purge, got %d", len(h.store.Updates["c2"]))
				}
				var applied bool
				done := make(chan error, 1)
				ev := engine.Purge{Conversation: "c1", All: all, What: "the memory", Apply: func() error { applied = true; return nil }, Done: done}
				h.send(ev)
				if err := <-done; err != nil || !applied {
					t.Fatalf("purge: applied=%v err=%v", applied, err)
				}
				h.wait(time.Minute)
				h.store.Lock()
				saved := len(h.store.Updates["c1"])
				h.store.Unlock()
				if saved != 0 {
					t.Fatalf("an answer computed before the purge saved memory %d times after it", saved)
				}
				h.wantSent("nothing computed from purged memory is posted")
				s := h.snap()
				if all && len(s.Deferred) != 0 {
					t.Fatalf("deferred replies %v survived purge all", s.Deferred)
				}
				if !all && strings.Join(convIDs(s.Deferred), ",") != "c2" {
					t.Fatalf("deferred replies %v; purging c1 must keep c2's", s.Deferred)
				}
				var confirmed bool
				for _, c := range h.page.Commands(engine.CmdToast) {
					confirmed = confirmed || (c.Level == "success" && c.Text == "Deleted the memory.")
				}
				if !confirmed {
					t.Fatalf("want a short confirmation toast, got %+v", h.page.Commands(engine.CmdToast))
				}
				// Clanker keeps working in c1 afterwards.
				h.receive("c1", in("Ann", "so?"))
				h.wait(time.Minute)
				h.wantSent("after the purge", "c1|"+engine.Prefix+"tacos it is")
			})
		})
	}
}

// The user ends a visit with the overlay's Cancel or by typing in the visited conversation's
// compose box: the overlay goes at once, nothing more is posted there, the queue is dropped
// and Clanker does not navigate back.
func TestCancellingAVisitEndsItAtOnceAndClankerDoesNotReturn(t *testing.T) {
	for _, how := range []string{"cancel", "key"} {
		t.Run(how, func(t *testing.T) {
			run(t, func(t *testing.T) {
				h := visitHarness(t, engine.InactiveProcess, map[engine.ConversationID]engine.Mode{"c2": engine.ModeActive, "c4": engine.ModeActive})
				h.llm.Set(30*time.Second, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "late"}, nil })
				h.receive("c2", in("Bob", "one"))
				h.receive("c4", in("Dee", "two"))
				h.wait(time.Second) // visiting c2, request in flight
				if s := h.snap(); s.Visiting != "c2" {
					t.Fatalf("setup: want a visit to c2, got %q", s.Visiting)
				}
				overlays := len(h.page.Commands(engine.CmdOverlay))
				switch how {
				case "cancel":
					h.send(engine.VisitCancelled{Reason: "the user pressed Cancel"})
				case "key":
					h.userTypes("c2", "h")
				}
				ov := h.page.Commands(engine.CmdOverlay)
				if len(ov) != overlays+1 || ov[len(ov)-1].Text != "" {
					t.Fatalf("want the overlay hidden at once, got %+v", ov[overlays:])
				}
				h.wait(engine.VisitTakeoverPause - time.Second)
				if got := navigations(h); len(got) != 1 || got[0] != "c2" {
					t.Fatalf("want only the navigation to c2 while the user is there (no return), got %v", got)
				}
				// c4's mention was not part of what the user cancelled: it stays queued.
				if s := h.snap(); s.Foreground.ID != "c2" || len(s.VisitQueue) != 1 || s.VisitQueue[0] != "c4" || s.Visiting != "" {
					t.Fatalf("want the user left in c2 with c4 still queued, got fg=%q queue=%v visiting=%q", s.Foreground.ID, s.VisitQueue, s.Visiting)
				}
				h.wantSent("the visit's answer is not posted after the user took over")
				h.wait(5 * time.Minute)
				switch how {
				case "cancel":
					// After the takeover pause c4 is visited, and Clanker comes back to c2,
					// where the user is, and still posts nothing there.
					if got := navigations(h); len(got) != 3 || got[1] != "c4" || got[2] != "c2" {
						t.Fatalf("want c4 visited after the pause and the way back to c2, got %v", got)
					}
					h.wantSent("only c4's answer", "c4|[clanker] late")
				case "key":
					// The user's draft in c2 holds every visit back.
					if got := navigations(h); len(got) != 1 {
						t.Fatalf("want no visit while the user's draft is in the box, got %v", got)
					}
					h.wantSent("nothing while the user's draft is in the box")
				}
			})
		})
	}
}

// box is the whole text of id's compose box, Clanker's and the user's.
func box(h *harness, id engine.ConversationID) string {
	h.page.Lock()
	defer h.page.Unlock()
	return h.page.Box[id]
}

// The user switches away while Clanker types: the remove meets the other conversation's box,
// so Clanker's partial text stays in the first box (Messages keeps a box per conversation).
// When the user comes back, Clanker takes that text out before anything else and posts the
// kept reply once, whole; what the user types afterwards stays exactly as typed. The half-typed
// reply used to be dropped and its partial text left in the box, where the engine no longer
// knew it was its own.
func TestPartialTextLeftWhenTheUserSwitchedAwayIsTakenOutOnReturn(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		const reply = "sure, seven works for me and I will bring the salad"
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: reply}, nil })
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "dinner at seven?"))
		typingStarted(h, 3)
		h.open("c2", in("Bob", "hello"))
		left := box(h, "c1")
		if !strings.HasPrefix(left, engine.Prefix) {
			t.Fatalf("c1's box holds %q after the switch; the test needs Clanker's partial text left there", left)
		}
		if got := box(h, "c2"); got != "" {
			t.Fatalf("c2's box holds %q, want it untouched", got)
		}
		h.wait(5 * time.Second)
		h.wantSent("while the user is in c2")
		removes := len(h.page.Commands(engine.CmdRemoveText))
		h.reopen("c1")
		rm := h.page.Commands(engine.CmdRemoveText)
		if len(rm) != removes+1 || rm[removes].Conversation != "c1" || rm[removes].Text != left {
			t.Fatalf("on return want one remove of %q in c1, got %+v", left, rm[removes:])
		}
		h.wait(30 * time.Second)
		h.wantSent("after the user came back", "c1|"+engine.Prefix+reply)
		h.wantRequests(1, "the kept reply needs no new request")
		h.userTypes("c1", "ok")
		if got := box(h, "c1"); got != "ok" {
			t.Fatalf("c1's box holds %q once the user typed there, want only the user's %q", got, "ok")
		}
	})
}

// A reply held behind the user's draft is not stale because Clanker's own message (here the
// activation greeting that waited for the same draft) went out after the message it answers:
// only a message from someone else makes it stale. It used to be re-decided and dropped, so the
// question went unanswered.
func TestHeldReplyStaysCurrentWhenOnlyClankersOwnMessageFollowedItsTrigger(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		const reply = "sure, seven works for me and I will bring the salad"
		h.llm.Set(0, func(r engine.LLMRequest) (engine.Reply, error) {
			if r.Kind == engine.RequestActivation {
				return engine.Reply{Text: "hello everyone"}, nil
			}
			return engine.Reply{Text: reply}, nil
		})
		h.open("c1", in("Ann", "hi"))
		h.userTypes("c1", "draft")
		h.send(engine.SetMode{Conversation: "c1", Mode: engine.ModeActive, Source: "test"})
		h.wait(5 * time.Second)
		h.receive("c1", in("Ann", "Clanker, dinner at seven?"))
		h.wait(60 * time.Second)
		h.wantSent("while the user has a draft")
		h.userEmpties("c1", false)
		typingStarted(h, 3)
		h.userTypes("c1", "wait")
		h.wait(5 * time.Second)
		h.userEmpties("c1", false)
		h.wait(30 * time.Second)
		h.wantSent("after the user cleared their draft twice", "c1|"+engine.Prefix+"hello everyone", "c1|"+engine.Prefix+reply)
		h.wantRequests(2, "the greeting and one reply")
	})
}

// The same for an answer kept while the user was away: the greeting that waited for the user's
// draft went out once the draft was gone, while the question's answer was on the way. On the user's return
// the answer is still current, since only Clanker itself wrote after the question; it used to
// be discarded as if the conversation had moved on.
func TestKeptAnswerStaysCurrentWhenOnlyClankersOwnMessageFollowedItsTrigger(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.llm.Set(0, func(r engine.LLMRequest) (engine.Reply, error) {
			if r.Kind == engine.RequestActivation {
				return engine.Reply{Text: "hello everyone"}, nil
			}
			return engine.Reply{Text: "the answer"}, nil
		})
		h.open("c1", in("Ann", "hi"))
		h.userTypes("c1", "draft")
		h.send(engine.SetMode{Conversation: "c1", Mode: engine.ModeActive, Source: "test"})
		h.wait(5 * time.Second)
		h.wantSent("while the user has a draft")
		h.llm.Set(5*time.Second, func(r engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "the answer"}, nil })
		h.receive("c1", in("Ann", "Clanker, dinner at seven?"))
		h.wait(10 * time.Second) // the reply waits for the draft too
		h.userEmpties("c1", false)
		h.wait(2500 * time.Millisecond)
		h.wantRequests(2, "the greeting and the question's request, which is in flight")
		h.wantSent("the greeting goes out once the draft settled", "c1|"+engine.Prefix+"hello everyone")
		h.open("c2", in("Bob", "hey"))
		h.wait(10 * time.Second)
		h.reopen("c1")
		h.wait(10 * time.Second)
		h.wantSent("after the user came back", "c1|"+engine.Prefix+"hello everyone", "c1|"+engine.Prefix+"the answer")
		h.wantRequests(2, "the kept answer is posted as it is, not asked for again")
	})
}

// The partial text a switch left in c1's box outlives the engine: the app quits (or crashes)
// while the user is in c2, and Messages keeps c1's box as a draft. The engine started next
// time has only the store's record of that text, and the page (loaded again) has none at all;
// when the user comes back to c1, the text is still taken out, by name, before the user types,
// so what the user types stays exactly as typed.
func TestPartialTextLeftBeforeARestartIsTakenOutOnReturn(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		const reply = "sure, seven works for me and I will bring the salad"
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: reply}, nil })
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "dinner at seven?"))
		typingStarted(h, 3)
		h.open("c2", in("Bob", "hello"))
		left := box(h, "c1")
		if !strings.HasPrefix(left, engine.Prefix) {
			t.Fatalf("c1's box holds %q after the switch; the test needs Clanker's partial text left there", left)
		}
		if rec, _, _ := h.store.LoadConversation("c1"); rec.Leftover != left {
			t.Fatalf("stored leftover of c1 = %q, want the text left in its box %q", rec.Leftover, left)
		}

		h.restart()
		removes := len(h.page.Commands(engine.CmdRemoveText))
		h.reopen("c1")
		rm := h.page.Commands(engine.CmdRemoveText)
		if len(rm) != removes+1 || rm[removes].Conversation != "c1" || rm[removes].Text != left {
			t.Fatalf("on return after the restart want one remove of %q in c1, got %+v", left, rm[removes:])
		}
		if got := box(h, "c1"); got != "" {
			t.Fatalf("c1's box holds %q after the remove, want it empty", got)
		}
		if rec, _, _ := h.store.LoadConversation("c1"); rec.Leftover != "" {
			t.Fatalf("stored leftover of c1 = %q after it was taken out, want none", rec.Leftover)
		}
		h.userTypes("c1", "ok")
		h.wait(30 * time.Second)
		if got := box(h, "c1"); got != "ok" {
			t.Fatalf("c1's box holds %q once the user typed there, want only the user's %q", got, "ok")
		}
		for _, s := range h.page.Sent() {
			if strings.Contains(s.Text, "sure, sev") && s.Text != engine.Prefix+reply {
				t.Fatalf("a half reply was sent in %s: %q", s.Conversation, s.Text)
			}
		}
	})
}

// A confirmed remove leaves no record behind: when the user types into Clanker's partial text
// in the conversation on screen, the text is taken out at once, and neither this engine nor a
// later one touches the box again.
func TestLeftoverRecordIsClearedOnceTheRemoveIsConfirmed(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) {
			return engine.Reply{Text: "sure, seven works for me and I will bring the salad"}, nil
		})
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "dinner at seven?"))
		typingStarted(h, 3)
		h.userTypes("c1", "mine")
		if rec, _, _ := h.store.LoadConversation("c1"); rec.Leftover != "" {
			t.Fatalf("stored leftover of c1 = %q after the page confirmed the remove, want none", rec.Leftover)
		}
		if got := h.userText("c1"); got != "mine" {
			t.Fatalf("user's text %q, want %q", got, "mine")
		}
	})
}

// The app stops while Clanker types in the conversation on screen: the partial text stays in
// the box. The engine stores it as it stops, and the next engine takes it out when the page
// reports that conversation, before the user types there.
func TestPartialTextOfAnEngineStoppedWhileTypingIsTakenOutByTheNext(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) {
			return engine.Reply{Text: "sure, seven works for me and I will bring the salad"}, nil
		})
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "dinner at seven?"))
		typingStarted(h, 3)
		left := box(h, "c1")
		if !strings.HasPrefix(left, engine.Prefix) {
			t.Fatalf("c1's box holds %q while Clanker types; the test needs its partial text there", left)
		}
		h.restart()
		if rec, _, _ := h.store.LoadConversation("c1"); rec.Leftover != left {
			t.Fatalf("stored leftover of c1 after the stop = %q, want the text in its box %q", rec.Leftover, left)
		}
		h.reopen("c1") // the page reports the conversation on screen to the new engine
		if got := box(h, "c1"); got != "" && !strings.HasPrefix(got, engine.Prefix+"sure") {
			t.Fatalf("c1's box holds %q after the new engine saw it, want the old partial text gone", got)
		}
		rm := h.page.Commands(engine.CmdRemoveText)
		if len(rm) == 0 || rm[len(rm)-1].Text != left {
			t.Fatalf("want a remove naming %q, got %+v", left, rm)
		}
	})
}

// Two replies for one conversation wait in the queue when the user switches away: the first
// held behind the draft the user just cleared (it is stale, a newer question came meanwhile),
// the second answering that newer question. The newer one is the answer kept for the return.
// The first used to take the conversation's slot and the second was dropped; on the return the
// first was discarded as stale, so the newer question went unanswered (tests/chaos seed
// 123456791716).
func TestLeavingWithTwoQueuedRepliesKeepsTheNewerOne(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.llm.Set(0, func(r engine.LLMRequest) (engine.Reply, error) {
			return engine.Reply{Text: "answer to " + r.History[len(r.History)-1].Text + " with some words to type"}, nil
		})
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "first?"))
		typingStarted(h, 3)
		h.userTypes("c1", "wait") // the reply to "first?" is held behind the draft
		h.receive("c1", in("Ann", "second?"))
		h.wait(5 * time.Second) // the reply to "second?" waits for the draft too
		h.wantRequests(1, "only the first question asked while the user has a draft")
		h.userEmpties("c1", false)
		h.wait(300 * time.Millisecond) // "second?" answered and queued; the held reply still waits for the box to settle
		h.wantRequests(2, "the second question asked once the draft is gone")
		h.wantSent("before the box settled")
		h.open("c2", in("Bob", "hey"))
		h.wait(5 * time.Second)
		h.reopen("c1")
		h.wait(30 * time.Second)
		h.wantSent("after the user came back", "c1|"+engine.Prefix+"answer to second? with some words to type")
		h.wantRequests(2, "the kept answer needs no new request")
	})
}
