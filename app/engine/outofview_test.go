package engine_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Issue 32's soak: about half an hour in, Clanker stopped answering for good. Each conversation
// it was Available in had been away from the screen long enough for more messages to arrive than
// the page shows at once, so its decided point (the last message a decision covered) was no
// longer among the messages shown when it came back. Two things then went wrong:
//
//   - nothing shown was owed, so a question that came while the user was elsewhere, or while the
//     page was still drawing the conversation, was never answered;
//   - the decided point, not found by its id, was found by its sender and words in a newer
//     message that said the same thing ("hey clanker, any idea for a rainy afternoon?" again), so
//     the newer mention looked decided and its answer was dropped.
//
// The page in these tests shows what a window of the newest messages would.

// soakClock stamps the soak's messages a minute apart, as the simulator's clock does.
type soakClock struct{ at time.Time }

func (c *soakClock) stamp(m engine.Message) engine.Message {
	c.at = c.at.Add(time.Minute)
	return stamped(m, c.at.Format("January 2, 2006 at 3:04 PM"))
}

// chatter is n plain messages from Dad and Mom, none addressing Clanker.
func chatter(c *soakClock, n int) []engine.Message {
	var out []engine.Message
	for i := range n {
		out = append(out, c.stamp(in([]string{"Dad", "Mom"}[i%2], fmt.Sprintf("plain message %d", i))))
	}
	return out
}

// awayLongerThanTheWindow answers a mention in c1, leaves for c2 while more messages than the
// window holds arrive in c1 (the last ones Dad's, saying extra), and comes back to a page that
// shows only the newest window of them. It returns the messages shown.
func awayLongerThanTheWindow(t *testing.T, h *harness, c *soakClock, extra ...string) []engine.Message {
	t.Helper()
	h.open("c1", chatter(c, 3)...)
	h.receive("c1", c.stamp(in("Dad", "hey clanker, any idea for a rainy afternoon?")))
	h.wait(time.Minute)
	if got := answers(h, "c1"); len(got) != 1 {
		t.Fatalf("the first mention got %d answers, want 1: %q", len(got), got)
	}
	h.open("c2", in("Ann", "hello"))
	const window = 35
	shown := chatter(c, 40)
	for _, text := range extra {
		shown = append(shown, c.stamp(in("Dad", text)))
	}
	shown = shown[len(shown)-window:]
	h.page.Lock()
	h.page.Conv("c1").Msgs = shown
	h.page.Unlock()
	h.reopen("c1")
	return shown
}

func soakHarness(t *testing.T) *harness {
	h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
	h.store.SetMode("c1", engine.ModeAvailable)
	h.llm.Set(time.Second, func(r engine.LLMRequest) (engine.Reply, error) {
		last := r.History[len(r.History)-1]
		return engine.Reply{Text: "re: " + last.Text}, nil
	})
	return h
}

// The question about a picture came while the page was still drawing the conversation, so it is
// one of the messages the conversation opened with; the decided message is no longer shown.
func TestQuestionShownOnReturnIsAnsweredWhenTheDecidedMessageScrolledOut(t *testing.T) {
	run(t, func(t *testing.T) {
		h := soakHarness(t)
		c := &soakClock{at: time.Date(2026, 2, 5, 18, 0, 0, 0, time.UTC)}
		awayLongerThanTheWindow(t, h, c, "Clanker, what do you see in this picture?")
		h.wait(time.Minute)
		got := answers(h, "c1")
		if len(got) != 2 || got[1] != "[clanker] re: Clanker, what do you see in this picture?" {
			t.Fatalf("answers in c1 %q, want the question shown on return answered once", got)
		}
		// Answered once: nothing else shown is owed.
		h.wait(5 * time.Minute)
		if got := answers(h, "c1"); len(got) != 2 {
			t.Fatalf("answers in c1 %q, want 2", got)
		}
	})
}

// The same with labels that carry no date (only the time of day): the messages the engine saw
// before place the decided point, and the question after them is owed.
func TestQuestionShownOnReturnIsAnsweredByWhatWasSeenWithoutLabelTimes(t *testing.T) {
	run(t, func(t *testing.T) {
		h := soakHarness(t)
		h.open("c1", in("Mom", "one"), in("Dad", "two"))
		h.receive("c1", in("Dad", "clanker are you there?"))
		h.wait(time.Minute)
		var seen []engine.Message
		for i := range 30 {
			m := in("Mom", fmt.Sprintf("seen %d", i))
			seen = append(seen, m)
			h.receive("c1", m)
		}
		h.open("c2", in("Ann", "hello"))
		shown := append(seen[25:], in("Dad", "lol"), in("Mom", "clanker, what should we cook tonight?"))
		h.page.Lock()
		h.page.Conv("c1").Msgs = shown
		h.page.Unlock()
		h.reopen("c1")
		h.wait(time.Minute)
		got := answers(h, "c1")
		if len(got) != 2 || got[1] != "[clanker] re: clanker, what should we cook tonight?" {
			t.Fatalf("answers in c1 %q, want the mention after the messages seen before answered", got)
		}
	})
}

// Safety: back in a conversation whose decided message scrolled out while it was on screen,
// every message shown was seen before: nothing is owed, and nothing is asked.
func TestNothingIsOwedWhenEveryMessageShownWasSeenBefore(t *testing.T) {
	run(t, func(t *testing.T) {
		h := soakHarness(t)
		c := &soakClock{at: time.Date(2026, 2, 5, 18, 0, 0, 0, time.UTC)}
		h.open("c1", chatter(c, 3)...)
		h.receive("c1", c.stamp(in("Dad", "clanker are you there?")))
		h.wait(time.Minute)
		all := chatter(c, 40)
		for _, m := range all {
			h.receive("c1", m)
		}
		h.open("c2", in("Ann", "hello"))
		h.page.Lock()
		h.page.Conv("c1").Msgs = all[len(all)-35:]
		h.page.Unlock()
		h.reopen("c1")
		h.wait(5 * time.Minute)
		h.wantRequests(1, "only the first mention")
	})
}

// Safety: when every message shown came later than anything processed, all of them are owed;
// older messages loaded by scrolling back are old news, never owed, whatever they say.
func TestHistoryLoadedAboveAWholeViewOfNewMessagesIsNotOwed(t *testing.T) {
	run(t, func(t *testing.T) {
		h := soakHarness(t)
		c := &soakClock{at: time.Date(2026, 2, 5, 18, 0, 0, 0, time.UTC)}
		awayLongerThanTheWindow(t, h, c)
		h.wait(time.Minute)
		old := stamped(in("Mom", "clanker, remind us what we decided"), "February 5, 2026 at 6:02 PM")
		h.send(engine.HistoryLoaded{Conversation: "c1", Messages: []engine.Message{old}})
		h.wait(5 * time.Minute)
		h.wantRequests(1, "only the first mention: nothing shown addressed Clanker, and history is never owed")
	})
}

// The second miss: the decided point names, by its permanent id, a mention that is no longer
// shown. The same person asks the same thing again; that newer message is not the decided one.
func TestNewMentionWithTheWordsOfTheDecidedMessageIsAnswered(t *testing.T) {
	run(t, func(t *testing.T) {
		h := soakHarness(t)
		const ask = "hey clanker, any idea for a rainy afternoon?"
		h.store.Lock()
		h.store.Recs["c1"] = engine.Conversation{ID: "c1", Mode: engine.ModeAvailable, Announced: engine.ModeAvailable,
			Decided: engine.MessageRef{ID: "UIEQ=old", Sender: "Dad", Text: ask}}
		h.store.Unlock()
		h.open("c1", in("Mom", "wait and maybe plan"), in("Dad", "lol rain sure"))
		h.receive("c1", in("Dad", ask))
		h.wait(time.Minute)
		if got := answers(h, "c1"); len(got) != 1 || !strings.Contains(got[0], ask) {
			t.Fatalf("answers in c1 %q, want the new mention answered (requests: %d)", got, len(h.llm.Requests()))
		}
	})
}
