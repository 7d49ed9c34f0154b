package engine_test

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/enginefake"
)

// The prefix appears at once, the rest one character per step, then a native Enter.
func TestRepliesAreTypedPrefixFirstThenOneCharacterAtATime(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "Sure thing!"}, nil })
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "coffee?"))
		h.wait(time.Second) // request answered at the 800 ms floor
		ins := h.page.Commands(engine.CmdInsertText)
		if len(ins) != 1 || ins[0].Text != engine.Prefix {
			t.Fatalf("want the prefix inserted at once, got %+v", ins)
		}
		start := time.Now()
		h.wait(10 * time.Second)
		steps := h.page.Commands(engine.CmdTypeText)
		var typed strings.Builder
		for _, s := range steps {
			typed.WriteString(s.Text)
		}
		if len(steps) != len("Sure thing!") || typed.String() != "Sure thing!" {
			t.Fatalf("want one step per character spelling %q, got %d steps spelling %q", "Sure thing!", len(steps), typed.String())
		}
		sent := h.page.Sent()
		if len(sent) != 1 || sent[0].Text != "[clanker] Sure thing!" {
			t.Fatalf("want one sent reply, got %+v", sent)
		}
		took := sent[0].At.Sub(start) + 200*time.Millisecond // typing began at ~0.8 s
		if took < 11*(time.Second/450+time.Millisecond) || took > 11*(time.Second/350+150*time.Millisecond)+time.Second {
			t.Fatalf("typing 11 characters took %v, outside 350-450 cps plus 1-150 ms jitter", took)
		}
	})
}

func TestRepliesAreInsertedWholeWhenRelaxedIsOff(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "No typing"}, nil })
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "go"))
		h.wait(3 * time.Second)
		if n := len(h.page.Commands(engine.CmdTypeText)); n != 0 {
			t.Fatalf("want no typing steps, got %d", n)
		}
		h.wantSent("whole insert", "c1|[clanker] No typing")
	})
}

// The user typing wins: a ready reply waits for the empty box and is sent if nothing newer came.
func TestReadyReplyIsHeldWhileTheUserHasADraftThenSent(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		h.llm.Set(time.Second, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "held"}, nil })
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "thoughts?"))
		h.wait(2500 * time.Millisecond) // request in flight
		h.setDraft("c1", true)
		h.wait(5 * time.Minute)
		h.wantSent("while the user has a draft")
		if n := len(h.page.Commands(engine.CmdInsertText)); n != 0 {
			t.Fatalf("want nothing inserted into a draft, got %d inserts", n)
		}
		h.setDraft("c1", false)
		h.wait(999 * time.Millisecond)
		h.wantSent("within the settle second after the box emptied")
		h.wait(2 * time.Millisecond)
		h.wantSent("after the box is empty", "c1|[clanker] held")
	})
}

func TestHeldReplyIsDroppedAndReevaluatedWhenANewerMessageArrived(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		n := 0
		h.llm.Set(time.Second, func(engine.LLMRequest) (engine.Reply, error) {
			n++
			return engine.Reply{Text: []string{"stale", "fresh"}[min(n-1, 1)]}, nil
		})
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "first"))
		h.wait(2500 * time.Millisecond)
		h.setDraft("c1", true)
		h.wait(2 * time.Second) // reply ready, held
		h.setDraft("c1", false)
		h.receive("c1", out("my own answer")) // the user sent their draft
		h.wait(10 * time.Second)
		reqs := h.wantRequests(2, "re-evaluation after the user's message")
		if last := reqs[1].History[len(reqs[1].History)-1].Text; last != "my own answer" {
			t.Fatalf("want the second request to see the user's message, got %q", last)
		}
		h.wantSent("only the fresh reply", "c1|[clanker] fresh")
	})
}

// Found by tests/chaos (seed 5000435): the user sends the draft a ready reply was held behind.
// With relaxed timing the user's short message is answered (800 ms floor plus the model's
// latency) before the settle second ends, so that answer is already queued when the held reply
// is found stale. Re-evaluating then must not ask again, or the user's message is answered twice.
func TestStaleHeldReplyIsNotReevaluatedWhenTheNewerMessageIsAlreadyAnswered(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = true })
		n := 0
		answer := func(engine.LLMRequest) (engine.Reply, error) {
			n++
			return engine.Reply{Text: fmt.Sprintf("answer %d", n)}, nil
		}
		h.llm.Set(time.Second, answer)
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "thoughts?"))
		h.wait(1200 * time.Millisecond) // asked after the 800 ms floor
		h.wantRequests(1, "Ann's message")
		h.setDraft("c1", true) // the user starts typing while the model thinks
		h.wait(5 * time.Second)
		h.wantSent("the answer is held behind the draft")
		h.llm.Set(100*time.Millisecond, answer)
		h.receive("c1", out("ok")) // the user sends their draft
		h.setDraft("c1", false)
		h.wait(time.Minute)
		reqs := h.wantRequests(2, "one request for the user's message, none from re-evaluating the stale reply")
		if last := reqs[1].History[len(reqs[1].History)-1].Text; last != "ok" {
			t.Fatalf("want the second request to answer the user's message, got %q last", last)
		}
		h.wantSent("only the answer to the newest message, once", "c1|[clanker] answer 2")
	})
}

// Behaviour 11: a draft that appears at the last moment holds the reply instead of a few
// quick retries that end by dropping it, so nothing is lost.
func TestDraftAppearingAtInsertTimeHoldsTheReplyInsteadOfDroppingIt(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		h.store.SetMode("c1", engine.ModeActive)
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "patient"}, nil })
		h.open("c1", in("Ann", "hi"))
		// The page has a draft the engine has not been told about yet.
		h.page.Lock()
		h.page.Conv("c1").Draft = true
		h.page.Unlock()
		h.receive("c1", in("Ann", "go"))
		h.wait(10 * time.Second)
		h.wantSent("the page refused to overwrite the draft")
		h.wait(time.Hour)
		h.setDraft("c1", false)
		h.wait(2 * time.Second)
		h.wantSent("an hour later, box empty", "c1|[clanker] patient")
	})
}

// Behaviour 10: sends are strictly one at a time.
func TestSendsAreStrictlyOneAtATime(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) {
			return engine.Reply{Text: strings.Repeat("long reply ", 10)}, nil
		})
		h.store.SetMode("c1", engine.ModeAvailable)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "clanker?"))
		h.wait(time.Second) // typing has started
		h.send(engine.SetMode{Mode: engine.ModeActive})
		h.wait(time.Minute)
		cmds := h.page.Commands()
		open := false
		for _, c := range cmds {
			switch c.Kind {
			case engine.CmdInsertText:
				if open {
					t.Fatalf("want no insert before the previous Enter, got commands %+v", cmds)
				}
				open = true
			case engine.CmdPressEnter, engine.CmdRemoveText:
				open = false
			}
		}
	})
}

// Switching conversation mid-typing sends nothing anywhere and leaves the other conversation's
// box alone: the reply belongs to the conversation it was written for. The remove goes out for
// c1 but meets c2's box (as the bridge's would), so c1 keeps the partial text until the user
// returns (see TestPartialTextLeftWhenTheUserSwitchedAwayIsTakenOutOnReturn).
func TestSwitchingConversationMidTypingSendsNothingAndLeavesTheOtherBoxAlone(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) {
			return engine.Reply{Text: strings.Repeat("typing slowly ", 8), Update: engine.ContextUpdate{Summary: ptr("c1 summary")}}, nil
		})
		h.store.SetMode("c1", engine.ModeActive)
		h.store.SetMode("c2", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "tell me a story"))
		h.wait(1500 * time.Millisecond) // prefix and a few characters typed
		if len(h.page.Commands(engine.CmdTypeText)) == 0 {
			t.Fatal("want typing in progress before the switch")
		}
		h.open("c2", in("Bob", "hey"))
		h.wait(time.Minute)
		h.wantSent("after a switch mid-typing")
		rm := h.page.Commands(engine.CmdRemoveText)
		if len(rm) != 1 || rm[0].Conversation != "c1" || !strings.HasPrefix(rm[0].Text, engine.Prefix) {
			t.Fatalf("want the partial text removed from c1, got %+v", rm)
		}
		h.page.Lock()
		other := h.page.Box["c2"]
		h.page.Unlock()
		if other != "" {
			t.Fatalf("want nothing of Clanker's in c2's box, got %q", other)
		}
		h.store.Lock()
		c1, c2 := len(h.store.Updates["c1"]), len(h.store.Updates["c2"])
		h.store.Unlock()
		if c1 != 1 || c2 != 0 {
			t.Fatalf("want the summary saved under c1 only, got c1=%d c2=%d", c1, c2)
		}
	})
}

func ptr[T any](v T) *T { return &v }

func TestEveryQueuedTextMustCarryThePrefixAndIsCapped(t *testing.T) {
	cases := []struct {
		in     string
		ok     bool
		length int // runes after the prefix, when ok
	}{
		{"[clanker] hello", true, 5},
		{"hello", false, 0},
		{"[Clanker] hello", false, 0},
		{" [clanker] hello", false, 0},
		{"[clanker]    ", false, 0},
		{engine.Prefix + strings.Repeat("word ", 1000), true, -1},
	}
	for _, c := range cases {
		got, ok := engine.GuardText(c.in)
		if ok != c.ok {
			t.Errorf("guardText(%.30q): want ok=%v, got %v", c.in, c.ok, ok)
			continue
		}
		if !ok {
			continue
		}
		if !strings.HasPrefix(got, engine.Prefix) {
			t.Errorf("guardText(%.30q) = %.30q: want the prefix kept", c.in, got)
		}
		n := utf8.RuneCountInString(strings.TrimPrefix(got, engine.Prefix))
		if c.length >= 0 && n != c.length || n > engine.MaxReplyRunes {
			t.Errorf("guardText(%.30q): want %d runes after the prefix (at most %d), got %d", c.in, c.length, engine.MaxReplyRunes, n)
		}
	}

	// The engine's own queue refuses a text without the prefix.
	e, err := engine.New(engine.Config{Page: enginefake.NewPage(), Store: enginefake.NewStore(), LLM: &enginefake.LLM{}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if n := e.EnqueueText("c1", "no prefix here"); n != 0 {
		t.Fatalf("want a text without the prefix refused, got %d queued", n)
	}
}

func TestOverlongModelReplyIsCutToTheEnginesCap(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) {
			return engine.Reply{Text: strings.Repeat("blah ", 2000)}, nil
		})
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "tell me everything"))
		h.wait(5 * time.Second)
		sent := h.page.Sent()
		if len(sent) != 1 {
			t.Fatalf("want one reply, got %d", len(sent))
		}
		if n := utf8.RuneCountInString(sent[0].Text); !strings.HasPrefix(sent[0].Text, engine.Prefix) || n > len(engine.Prefix)+engine.MaxReplyRunes {
			t.Fatalf("want a prefixed reply of at most %d runes, got %d runes starting %.20q", len(engine.Prefix)+engine.MaxReplyRunes, n, sent[0].Text)
		}
	})
}

// The user typing into the box while Clanker's text is in it (the page refuses the next
// typing step, or the Enter) takes Clanker's text out again and holds the reply until their
// draft clears: the two are never sent together, and the reply is not lost or toasted as a
// failure.
func TestUserTypingIntoClankersTextHoldsTheReplyInsteadOfSendingBoth(t *testing.T) {
	for _, c := range []struct {
		name    string
		relaxed bool
		refused engine.CommandKind
	}{
		{"mid-typing", true, engine.CmdTypeText},
		{"before the Enter", false, engine.CmdPressEnter},
	} {
		t.Run(c.name, func(t *testing.T) {
			run(t, func(t *testing.T) {
				h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = c.relaxed })
				h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "on my way"}, nil })
				h.store.SetMode("c1", engine.ModeActive)
				h.open("c1", in("Ann", "hi"))
				h.page.Lock()
				h.page.TypeAfterInsert = true
				h.page.Unlock()
				h.receive("c1", in("Ann", "where are you?"))
				h.wait(time.Minute)
				h.wantSent("the user typed into the box after Clanker's insert")
				if len(h.page.Commands(engine.CmdRemoveText)) == 0 {
					t.Errorf("Clanker's text was not taken out of the box after the page refused the %s", c.refused)
				}
				for _, tc := range h.page.Commands(engine.CmdToast) {
					if strings.Contains(tc.Text, "Failed to send") {
						t.Errorf("toast %q: a reply held for the user's draft is not a failure", tc.Text)
					}
				}
				h.setDraft("c1", false)
				h.wait(time.Minute)
				h.wantSent("the user's draft cleared", "c1|[clanker] on my way")
			})
		})
	}
}

// Issue 27.3: when the page had to take Clanker's text out of what the user was typing (by
// position, or by clearing the mixed text and putting the user's characters back), the user is
// told; a removal of Clanker's text in one piece needs no word.
func TestTheUserIsToldWhenClankersTextWasTakenOutOfTheirs(t *testing.T) {
	for how, want := range map[string]string{"by_position": "what you typed is kept", "restored": "your characters put back", "whole": ""} {
		t.Run(how, func(t *testing.T) {
			run(t, func(t *testing.T) {
				h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = true })
				h.store.SetMode("c1", engine.ModeAvailable)
				h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) {
					return engine.Reply{Text: "a reply long enough to be typed"}, nil
				})
				h.page.Lock()
				h.page.RemoveHow = how
				h.page.Unlock()
				h.open("c1", in("Ann", "hi"))
				h.receive("c1", in("Ann", "clanker?"))
				for i := 0; i < 100 && len(h.page.Commands(engine.CmdTypeText)) < 3; i++ {
					h.wait(100 * time.Millisecond)
				}
				h.userTypes("c1", "x")
				h.wait(time.Second)
				told := ""
				for _, c := range h.page.Commands(engine.CmdToast) {
					told += c.Text
				}
				if want == "" && told != "" || want != "" && !strings.Contains(told, want) {
					t.Fatalf("toasts %q, want one saying %q", told, want)
				}
			})
		})
	}
}

// Found by the chaos test through the bridge (seed 2): a mode switched back while its
// notice's insert was still on its way left that notice in the box for good. The abort knew
// of no inserted text (the insert's result had not come back), so nothing took it out, and
// once the user had been elsewhere the page took it for their draft. Whatever went to the page
// is taken out, confirmed or not: at once while the conversation is on screen, and on the
// user's return when they switched away first.
func TestAnAbortTakesOutTextWhoseInsertWasStillOnItsWay(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.open("c1", in("Ann", "hi"))
		h.page.SetHoldText(true)
		h.send(engine.SetMode{Mode: engine.ModeAvailable})
		h.wait(time.Second)
		if got := h.box("c1"); got != engine.AvailableText {
			t.Fatalf("want the notice in the box with its result held, got %q", got)
		}
		h.send(engine.SetMode{Mode: engine.ModeDeactivated}) // told is still deactivated: nothing owed
		h.page.SetHoldText(false)
		h.page.ReleaseHeld()
		h.wait(time.Minute)
		if got := h.box("c1"); got != "" {
			t.Fatalf("want the aborted notice out of the box, got %q", got)
		}
		h.wantSent("a notice aborted before its insert came back")
	})
}

// The same abort when the user switched away first: the remove meets the other box, and the
// notice is taken out when they come back.
func TestAnAbortOnASwitchTakesOutTextWhoseInsertWasStillOnItsWayOnReturn(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.open("c2", in("Bob", "yo"))
		h.open("c1", in("Ann", "hi"))
		h.page.Lock()
		h.page.SingleRecord = true
		h.page.Unlock()
		h.page.SetHoldText(true)
		h.send(engine.SetMode{Mode: engine.ModeAvailable})
		h.wait(time.Second)
		h.reopen("c2") // the user leaves before the insert's result came back
		h.page.SetHoldText(false)
		h.page.ReleaseHeld()
		h.wait(time.Second)
		if got := h.box("c1"); got != engine.AvailableText {
			t.Fatalf("want the notice still in c1's box while the user is away (the remove met c2's), got %q", got)
		}
		if got := h.box("c2"); got != "" {
			t.Fatalf("want c2's box untouched, got %q", got)
		}
		h.reopen("c1")
		h.wait(time.Minute)
		if snap := h.snap(); snap.Foreground == nil || snap.Foreground.Draft {
			t.Fatalf("want no draft believed in c1 on return, got %+v", snap.Foreground)
		}
		for _, s := range h.page.Sent() {
			if s.Conversation != "c1" || s.Text != engine.AvailableText {
				t.Fatalf("want at most the Available notice, in c1, got %+v", h.page.Sent())
			}
		}
		if got := h.box("c1"); got != "" {
			t.Fatalf("want c1's box empty after the return (the notice taken out or sent), got %q", got)
		}
	})
}

// A text whose Enter is on its way is out: a mode switch meanwhile does not abort it, so the
// engine records it as posted, and the chat that saw "available" is told "deactivated" next.
func TestAModeSwitchDuringTheEnterLetsTheNoticeCountAsPosted(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.open("c1", in("Ann", "hi"))
		h.page.SetHoldText(true)
		h.send(engine.SetMode{Mode: engine.ModeAvailable})
		h.wait(time.Second)
		h.page.ReleaseHeld() // the insert's result: the engine presses Enter
		h.wait(time.Second)
		if n := len(h.page.Commands(engine.CmdPressEnter)); n != 1 {
			t.Fatalf("want the notice's Enter pressed, got %d", n)
		}
		h.send(engine.SetMode{Mode: engine.ModeDeactivated})
		h.page.SetHoldText(false)
		h.page.ReleaseHeld()
		h.wait(time.Minute)
		h.wantSent("the notice sent during the switch, then the farewell it makes owed", "c1|"+engine.AvailableText, "c1|"+engine.DeactivatedText)
	})
}
