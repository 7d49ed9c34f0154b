package engine

import (
	"testing"
	"time"
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
		h := newHarness(t, func(s *Settings) { s.RelaxedResponsiveness = false })
		notice := MessageRef{ID: "tmp_1", Sender: "You", Text: AvailableText}
		h.store.mu.Lock()
		h.store.recs["c1"] = Conversation{ID: "c1", Mode: ModeAvailable, Announced: ModeActive, Decided: notice, LastProcessed: notice}
		h.store.mu.Unlock()
		h.llm.set(10*time.Second, func(LLMRequest) (Reply, error) { return Reply{Text: "Sunday at ten."}, nil })
		// The notice is shown under its permanent id now; after it, Clanker's Active notice and
		// a question that came while the conversation was not on screen.
		h.open("c1",
			Message{ID: "s1", Sender: "You", Direction: Outgoing, Text: AvailableText},
			Message{ID: "s2", Sender: "You", Direction: Outgoing, Text: ActiveFallbackText},
			in("Ann", "hey clanker, when is the match?"))
		h.wait(2 * time.Minute)
		if n := countSent(h, "c1", AvailableText); n != 1 {
			t.Fatalf("the Available notice owed since the tray switch was posted %d times, want once", n)
		}
		if got := answers(h, "c1"); len(got) != 1 || got[0] != "[clanker] Sunday at ten." {
			t.Fatalf("want Ann's question answered once, got %q (requests: %d)", got, len(h.llm.requests()))
		}
	})
}

// countSent is how many times text was sent in conv.
func countSent(h *harness, conv ConversationID, text string) int {
	n := 0
	for _, s := range h.page.sentTexts() {
		if s.conv == conv && s.text == text {
			n++
		}
	}
	return n
}

// The hybrid match finds a message by sender and text only where its id may have changed: a
// pending id that became permanent. Another pending id is another message.
func TestMessageRefMatchesByTextOnlyWhereTheIDMayHaveChanged(t *testing.T) {
	ref := MessageRef{ID: "tmp_1", Sender: "You", Text: "ok"}
	perm := MessageRef{ID: "s1", Sender: "You", Text: "ok"}
	for _, c := range []struct {
		ref  MessageRef
		m    Message
		want bool
	}{
		{ref, Message{ID: "tmp_1", Sender: "You", Text: "changed"}, true},
		{ref, Message{ID: "s7", Sender: "You", Text: "ok"}, true}, // got its permanent id
		{ref, Message{ID: "tmp_2", Sender: "You", Text: "ok"}, false},
		{ref, Message{ID: "s7", Sender: "Ann", Text: "ok"}, false},
		{perm, Message{ID: "tmp_3", Sender: "You", Text: "ok"}, false}, // sent again, still pending
		{MessageRef{Sender: "You", Text: "ok"}, Message{ID: "tmp_4", Sender: "You", Text: "ok"}, true},
	} {
		if got := c.ref.matches(c.m); got != c.want {
			t.Errorf("%+v matches %+v = %v, want %v", c.ref, c.m, got, c.want)
		}
	}
}
