package engine_test

import (
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// These tests are about where the engine's stored pointers (the decided point, the last
// processed message) land when the message they name got its permanent id while its
// conversation was not on screen: the pointer still holds the pending (tmp_) id, and only the
// sender and text can find the message again. Clanker's notices repeat the same text, so a
// later notice must not be taken for the one the pointer names.

// Chaos seed 60000843: the decided point named the Available notice by its pending id, which
// the page replaced while the user was elsewhere. Someone addressed Clanker there meanwhile;
// back in the conversation Clanker posted the Available notice again (its mode had changed
// from the tray), and when the answer came back the decided point matched that newer notice
// by its text: the mention looked decided and the answer was dropped. Nothing was shown.
func TestDecidedPointOnARenamedNoticeIsNotMovedByTheSameNoticeAgain(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		notice := engine.MessageRef{ID: "tmp_1", Sender: "You", Text: engine.AvailableText}
		h.store.Lock()
		h.store.Recs["c1"] = engine.Conversation{ID: "c1", Mode: engine.ModeAvailable, Announced: engine.ModeActive, Decided: notice, LastProcessed: notice}
		h.store.Unlock()
		h.llm.Set(10*time.Second, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "Sunday at ten."}, nil })
		// The notice is shown under its permanent id now; after it, Clanker's Active notice and
		// a question that came while the conversation was not on screen.
		h.open("c1",
			engine.Message{ID: "s1", Sender: "You", Direction: engine.Outgoing, Text: engine.AvailableText},
			engine.Message{ID: "s2", Sender: "You", Direction: engine.Outgoing, Text: engine.ActiveFallbackText},
			in("Ann", "hey clanker, when is the match?"))
		h.wait(2 * time.Minute)
		if n := countSent(h, "c1", engine.AvailableText); n != 1 {
			t.Fatalf("the Available notice owed since the tray switch was posted %d times, want once", n)
		}
		if got := answers(h, "c1"); len(got) != 1 || got[0] != "[clanker] Sunday at ten." {
			t.Fatalf("want Ann's question answered once, got %q (requests: %d)", got, len(h.llm.Requests()))
		}
	})
}

// countSent is how many times text was sent in conv.
func countSent(h *harness, conv engine.ConversationID, text string) int {
	n := 0
	for _, s := range h.page.Sent() {
		if s.Conversation == conv && s.Text == text {
			n++
		}
	}
	return n
}

// The hybrid match finds a message by sender and text only where its id may have changed: a
// pending id that became permanent. Another pending id is another message, and so is another
// permanent id (issue 32's soak: a mention said again in the same words looked decided).
func TestMessageRefMatchesByTextOnlyWhereTheIDMayHaveChanged(t *testing.T) {
	ref := engine.MessageRef{ID: "tmp_1", Sender: "You", Text: "ok"}
	perm := engine.MessageRef{ID: "s1", Sender: "You", Text: "ok"}
	for _, c := range []struct {
		ref  engine.MessageRef
		m    engine.Message
		want bool
	}{
		{ref, engine.Message{ID: "tmp_1", Sender: "You", Text: "changed"}, true},
		{ref, engine.Message{ID: "s7", Sender: "You", Text: "ok"}, true}, // got its permanent id
		{ref, engine.Message{ID: "tmp_2", Sender: "You", Text: "ok"}, false},
		{ref, engine.Message{ID: "s7", Sender: "Ann", Text: "ok"}, false},
		{perm, engine.Message{ID: "tmp_3", Sender: "You", Text: "ok"}, false}, // sent again, still pending
		{perm, engine.Message{ID: "s9", Sender: "You", Text: "ok"}, false},    // said again: a permanent id never changes
		{engine.MessageRef{Sender: "You", Text: "ok"}, engine.Message{ID: "tmp_4", Sender: "You", Text: "ok"}, true},
	} {
		if got := c.ref.Matches(c.m); got != c.want {
			t.Errorf("%+v matches %+v = %v, want %v", c.ref, c.m, got, c.want)
		}
	}
}
