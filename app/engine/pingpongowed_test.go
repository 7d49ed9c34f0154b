package engine_test

import (
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Chaos seed 60001857: Ann addressed Clanker in a conversation just switched from Active to
// Available; the Available notice went out, and while Clanker typed its answer to Ann another
// Clanker answered the notice and the user typed and cleared a draft. The held answer was stale
// (someone wrote since), and the new request was dropped as a ping-pong: Ann's question was
// released without a word. It is asked with the conversation up to Ann's message instead, the
// other Clanker's words left out.
func TestMentionBeforeAnotherClankerAnsweredOurNoticeIsStillAnswered(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = true })
		h.llm.Set(2*time.Second, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "half past four"}, nil })
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.setDraft("c1", true)
		h.send(engine.SetMode{Mode: engine.ModeAvailable}) // the notice waits behind the draft
		h.receive("c1", in("Ann", "clanker, what time is it?"))
		h.setDraft("c1", false)
		h.wait(1500 * time.Millisecond)
		h.wantSent("the notice, after the settle second", "c1|"+engine.AvailableText)
		typingStarted(h, 2) // the answer is being typed
		h.receive("c1", in("Bob", "[clanker] another bot says hi"))
		h.userTypes("c1", "x") // Clanker stops for the user
		h.wait(time.Second)
		h.userEmpties("c1", false) // the held answer is stale now: Bob's Clanker wrote since
		h.wait(time.Minute)
		reqs := h.llm.Requests()
		if len(reqs) == 0 {
			t.Fatal("Ann's question was never asked about")
		}
		last := reqs[len(reqs)-1].History
		if m := last[len(last)-1]; m.Text != "clanker, what time is it?" {
			t.Fatalf("want the request to end at Ann's question, it ends with %q", m.Text)
		}
		if got := answers(h, "c1"); len(got) != 1 || got[0] != "[clanker] half past four" {
			t.Fatalf("want Ann's question answered once, got %q", got)
		}
	})
}
