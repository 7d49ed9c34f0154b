package engine_test

import (
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// These tests are about a conversation that owes both the Active notice and an answer: the
// user chose Active for a conversation whose people know Clanker as Available, and someone
// there addresses Clanker before or while the notice goes out. The person who asked is not
// kept waiting for a greeting the engine is going to throw away.

// Chaos seed 13400000002585: c1 was Available (and announced); the user chose Active for it
// while it was not on screen, and someone addressed Clanker there. Back in c1 the engine asked
// the model for the Active greeting, superseded that request at once by scheduling the answer
// owed to the mention, posted the fixed notice instead, and made the answer wait for the
// discarded greeting's request to come back: the person got the answer a whole model latency
// late (34 s after the user's return with a 17 s model), and a request was paid for nothing.
// With an answer owed, the fixed notice goes out at once and the answer is asked for straight
// away.
func TestAnswerOwedWhenTheActiveNoticeIsDueIsNotHeldBehindAGreeting(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		const latency = 15 * time.Second
		h.llm.Set(latency, func(r engine.LLMRequest) (engine.Reply, error) {
			if r.Kind == engine.RequestActivation {
				return engine.Reply{Text: "hello all"}, nil
			}
			return engine.Reply{Text: "Thursday at eight."}, nil
		})
		h.open("c1", in("Ann", "hi"))
		h.send(engine.SetMode{Mode: engine.ModeAvailable, Source: "pill"})
		h.wait(5 * time.Second)
		h.wantSent("the Available notice", "c1|"+engine.AvailableText)
		h.open("c2", in("Bob", "yo"))
		h.send(engine.SetMode{Conversation: "c1", Mode: engine.ModeActive, Source: "tray"})
		h.receive("c1", in("Ann", "clanker, when is the quiz?"))
		h.wait(10 * time.Second)
		h.wantRequests(0, "nothing is asked for c1 while it is not on screen")
		h.reopen("c1")
		back := time.Now()
		h.wait(latency + 5*time.Second)
		h.wantSent("the Active notice at once, then the answer after one model latency",
			"c1|"+engine.AvailableText, "c1|"+engine.ActiveFallbackText, "c1|[clanker] Thursday at eight.")
		for _, s := range h.page.Sent()[1:] {
			if d := s.At.Sub(back); d > latency+5*time.Second {
				t.Fatalf("%q posted %v after the return, want within %v", s.Text, d, latency+5*time.Second)
			}
		}
		reqs := h.wantRequests(1, "only the answer is asked for: no greeting request is thrown away")
		if reqs[0].Kind != engine.RequestReply {
			t.Fatalf("want the answer's request, got %q", reqs[0].Kind)
		}
		h.wait(2 * time.Minute)
		h.wantRequests(1, "nothing more is asked afterwards")
		if got := answers(h, "c1"); len(got) != 1 {
			t.Fatalf("want Ann answered once, got %q", got)
		}
	})
}

// The same conversation on screen: the user chooses Active in a conversation told Available,
// and while the model writes the greeting someone addresses Clanker. The answer has to wait
// for the request in flight either way (one at a time), so the greeting is kept and posted, not
// superseded by the mention and replaced by the fixed text after its request was paid for.
func TestMentionWhileTheActiveGreetingIsWrittenKeepsTheGreeting(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		const latency = 15 * time.Second
		h.llm.Set(latency, func(r engine.LLMRequest) (engine.Reply, error) {
			if r.Kind == engine.RequestActivation {
				return engine.Reply{Text: "hello all"}, nil
			}
			return engine.Reply{Text: "Thursday at eight."}, nil
		})
		h.open("c1", in("Ann", "hi"))
		h.send(engine.SetMode{Mode: engine.ModeAvailable, Source: "pill"})
		h.wait(5 * time.Second)
		h.send(engine.SetMode{Mode: engine.ModeActive, Source: "pill"})
		h.wait(3 * time.Second)
		h.wantRequests(1, "the greeting is being written")
		h.receive("c1", in("Ann", "clanker, when is the quiz?"))
		h.wait(2*latency + 10*time.Second)
		h.wantSent("the model's greeting, then the answer",
			"c1|"+engine.AvailableText, "c1|[clanker] hello all", "c1|[clanker] Thursday at eight.")
		reqs := h.wantRequests(2, "the greeting and the answer")
		if reqs[1].Kind != engine.RequestReply {
			t.Fatalf("want the answer's request second, got %q", reqs[1].Kind)
		}
	})
}
