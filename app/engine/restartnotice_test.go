package engine_test

import (
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Chaos seed 4100001298: Ann addressed Clanker in c1 while its Available notice was owed; the
// notice went out after her message and the engine stopped (a restart) while her answer was
// being computed. The new engine, which had not posted the notice itself, took it for an answer
// given elsewhere (another device, an earlier run) to everything before it, and Ann's question
// was never answered. A mode notice answers nothing, whoever posted it.
func TestNoticePostedBeforeARestartDoesNotAnswerTheMentionBeforeIt(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		h.llm.Set(30*time.Second, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "at the station"}, nil })
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.open("c2", in("Bob", "hello"))
		h.send(engine.SetMode{Conversation: "c1", Mode: engine.ModeAvailable, Source: "tray"})
		h.receive("c1", in("Ann", "clanker, where do we meet?"))
		h.reopen("c1")
		h.wait(5 * time.Second)
		h.wantSent("the notice, after Ann's question", "c1|"+engine.AvailableText)
		h.wantRequests(1, "Ann's question is asked about")
		h.restart() // the answer in flight goes with the stopped engine
		h.reopen("c1")
		h.wait(2 * time.Minute)
		if got := answers(h, "c1"); len(got) != 1 || got[0] != "[clanker] at the station" {
			t.Fatalf("want Ann's question answered once by the new engine, got %q", got)
		}
	})
}
