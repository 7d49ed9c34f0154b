package engine_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Behaviour 2: Available answers only when addressed by name, any case.
func TestAvailableRepliesOnlyToMessagesThatNameClanker(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeAvailable)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "what a day"))
		h.wait(10 * time.Second)
		h.wantRequests(0, "no mention")
		h.receive("c1", in("Ann", "hey CLANK"))
		h.wait(10 * time.Second)
		h.wantRequests(1, "a mention")
		h.receive("c1", out("Clanker, what do you think?"))
		h.wait(10 * time.Second)
		h.wantRequests(2, "the local user's own mention")
	})
}

// Behaviour 3: Active considers every human message, the local user's included, never its own.
func TestActiveConsidersEveryHumanMessageButNeverItsOwn(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{}, nil })
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "lunch?"))
		h.wait(10 * time.Second)
		h.wantRequests(1, "a remote message")
		h.receive("c1", out("sure, noon"))
		h.wait(10 * time.Second)
		h.wantRequests(2, "the local user's ordinary message")
		h.receive("c1", out("[clanker] enjoy!"))
		h.wait(10 * time.Second)
		h.wantRequests(2, "our own clanker message")
	})
}

// Behaviour 4: replies carry the prefix exactly once; silence posts nothing.
func TestRepliesArePrefixedOnceAndSilencePostsNothing(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		replies := []engine.Reply{{Text: "Sounds fun"}, {Text: ""}, {Text: "[clanker] doubled?"}}
		n := 0
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { r := replies[n]; n++; return r, nil })
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		for _, text := range []string{"one", "two", "three"} {
			h.receive("c1", in("Ann", text))
			h.wait(10 * time.Second)
		}
		h.wantSent("three answers, one silent", "c1|[clanker] Sounds fun", "c1|[clanker] doubled?")
	})
}

// Another Clanker's "[clanker] " prefix is a signature, not a mention, in Available mode.
func TestAnotherClankersPrefixIsNotAMention(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeAvailable)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Bob", "[clanker] The weather is nice today."))
		h.wait(10 * time.Second)
		h.wantRequests(0, "another Clanker's message without a mention")
		h.receive("c1", in("Bob", "[clanker] Dana's Clanker, do you agree?"))
		h.wait(10 * time.Second)
		h.wantRequests(1, "another Clanker addressing us by name")
	})
}

// Two Clankers can never ping-pong: after our reply, another Clanker triggers nothing until a
// human writes.
func TestTwoClankersCannotPingPongWithoutAHuman(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "Hello Bob's Clanker"}, nil })
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Bob", "[clanker] Hi, I am Bob's Clanker."))
		h.wait(5 * time.Second)
		h.wantRequests(1, "first other-Clanker message, no reply of ours yet")
		h.wantSent("our answer", "c1|[clanker] Hello Bob's Clanker")
		h.receive("c1", in("Bob", "[clanker] Hello Dana's Clanker!"))
		h.receive("c1", in("Bob", "[clanker] Clanker, still there?"))
		h.wait(time.Minute)
		h.wantRequests(1, "other Clanker after our reply, no human in between")
		h.receive("c1", in("Ann", "you two are funny"))
		h.wait(5 * time.Second)
		h.wantRequests(2, "a human wrote")
		h.receive("c1", in("Bob", "[clanker] Indeed."))
		h.wait(5 * time.Second)
		h.wantRequests(2, "other Clanker right after our second reply")
	})
}

// Found by tests/chaos (seed 3141592653590595): the trigger itself was fine (the user named
// Clanker, then Bob's Clanker wrote), but our notice, held behind the user's draft, went out
// after it and Bob's Clanker answered the notice before the reply timer fired. A request with
// the whole conversation would hand the model one whose last word is another Clanker answering
// us: a ping-pong with no human in between. The request used to be dropped, and with it the
// answer to the user's question (chaos seed 60001857: a question of Ann's the same way). Now the
// model is asked with the conversation up to the newest human message, the Clankers' words after
// it left out, and nothing more is asked until a human writes.
func TestAnotherClankerAnsweringOurNoticeIsLeftOutOfTheAnswerOwedBefore(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = true })
		h.open("c1", in("Ann", "hi"))
		h.setDraft("c1", true)
		h.send(engine.SetMode{Mode: engine.ModeAvailable}) // the notice waits behind the draft
		h.receive("c1", out("what do you think, clanker?"))
		h.setDraft("c1", false)
		h.receive("c1", in("Bob", "[clanker] hello fellow clanker"))
		h.wait(1500 * time.Millisecond)
		h.wantSent("the notice, after the settle second", "c1|"+engine.AvailableText)
		h.receive("c1", in("Bob", "[clanker] another bot says hi"))
		h.wait(time.Minute)
		req := h.wantRequests(1, "the user's question is owed an answer")[0]
		if last := req.History[len(req.History)-1]; last.Text != "what do you think, clanker?" {
			t.Fatalf("want the request to end at the user's question, it ends with %q", last.Text)
		}
		for _, m := range req.History {
			if m.OtherClanker {
				t.Fatalf("want no other Clanker's message in the request, got %q", m.Text)
			}
		}
		h.wantSent("the notice, then the answer to the user", "c1|"+engine.AvailableText, "c1|[clanker] ok")
		h.receive("c1", in("Bob", "[clanker] Clanker, nice answer"))
		h.wait(time.Minute)
		h.wantRequests(1, "Bob's Clanker answered ours and no human wrote since")
		h.receive("c1", in("Ann", "so, clanker?"))
		h.wait(time.Minute)
		h.wantRequests(2, "a human wrote and named Clanker")
	})
}

// Behaviour 21 (engine side): only labels that name the local user are rewritten; other
// people's text keeps its "You".
func TestYouIsReplacedOnlyWhereItNamesTheLocalUser(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", out("I'm in"))
		h.receive("c1", in("Ann", "You rock, and this is to you"))
		h.wait(10 * time.Second)
		req := h.wantRequests(1, "one trigger")[0]
		if got := req.History[0].Sender; got != "Dana" {
			t.Fatalf("want the local user's sender label to be %q, got %q", "Dana", got)
		}
		if got := req.History[1].Text; got != "You rock, and this is to you" {
			t.Fatalf("want Ann's text untouched, got %q", got)
		}
		if got := req.History[1].Sender; got != "Ann" {
			t.Fatalf("want Ann's label untouched, got %q", got)
		}
		for _, p := range req.Participants {
			if p == "You" {
				t.Fatalf("want participants with the user's name, got %q", req.Participants)
			}
		}
	})
}

// The engine hands the LLM side every message it holds and the history size; the LLM side
// shows the model the window engine.HistoryWindow picks (app/llm
// TestHistorySentToTheModelIsBoundedByHistorySize).
func TestEngineHandsTheLLMSideItsMessagesAndTheHistorySize(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.HistorySize = 10 })
		h.store.SetMode("c1", engine.ModeActive)
		var msgs []engine.Message
		for range 30 {
			msgs = append(msgs, in("Ann", "old"))
		}
		h.open("c1", msgs...)
		h.receive("c1", in("Ann", "new"))
		h.wait(10 * time.Second)
		req := h.wantRequests(1, "one trigger")[0]
		if len(req.History) != 31 || req.HistorySize != 10 || req.History[30].Text != "new" {
			t.Fatalf("want all 31 messages and history size 10, got %d and %d, last %q", len(req.History), req.HistorySize, req.History[len(req.History)-1].Text)
		}
	})
}

// Behaviour 7: messages that arrived while the user was elsewhere.
func TestMessagesWhileAwayAnswerTheLastNewTrigger(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeActive)
		first := in("Ann", "hi")
		h.open("c1", first)
		h.open("c2", in("Bob", "yo"))
		a1, a2 := in("Ann", "are you there"), in("Cat", "dinner at 8?")
		h.open("c1", first, a1, a2)
		h.wait(10 * time.Second)
		req := h.wantRequests(1, "new messages while away")[0]
		if last := req.History[len(req.History)-1]; last.ID != a2.ID {
			t.Fatalf("want the request to include the newest message %q last, got %q", a2.ID, last.ID)
		}
	})
}

func TestMessagesWhileAwayInAvailableAnswerOnlyAMention(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeAvailable)
		first := in("Ann", "hi")
		h.open("c1", first)
		h.open("c2", in("Bob", "yo"))
		h.open("c1", first, in("Ann", "nothing for the bot"), in("Cat", "ok"))
		h.wait(10 * time.Second)
		h.wantRequests(0, "no mention while away")
		h.open("c2")
		h.open("c1", first, in("Ann", "nothing for the bot"), in("Cat", "ok"), in("Ann", "clanker pick a film"), in("Cat", "yes"))
		h.wait(10 * time.Second)
		h.wantRequests(1, "a mention while away")
	})
}

func TestMessagesWhileAwayAreSkippedWhenOurReplyAlreadyFollows(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeActive)
		first := in("Ann", "hi")
		h.open("c1", first)
		h.open("c2", in("Bob", "yo"))
		h.open("c1", first, in("Ann", "question?"), out("[clanker] answered from another device"))
		h.wait(10 * time.Second)
		h.wantRequests(0, "our reply already follows the trigger")
	})
}

func TestMessagesWhileAwayWithoutAStoredPointerTriggerNothing(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeActive) // mode but no last-processed message
		h.open("c1", in("Ann", "hi"), in("Ann", "hello?"))
		h.wait(10 * time.Second)
		h.wantRequests(0, "no stored pointer")
	})
}

// The hybrid match: a pointer saved under a tmp_ id still matches by sender and text.
func TestMessagesWhileAwayMatchByTextWhenTheIDChanged(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		mine := engine.Message{ID: "tmp_123", Sender: "You", Direction: engine.Outgoing, Text: "see you"}
		h.receive("c1", mine)
		h.wait(10 * time.Second)
		base := len(h.llm.Requests())
		h.open("c2", in("Bob", "yo"))
		perm := mine
		perm.ID = "b3c1-uuid"
		h.open("c1", in("Ann", "hi"), perm)
		h.wait(10 * time.Second)
		h.wantRequests(base, "reopening with the same last message under its permanent id")
		h.open("c2")
		h.open("c1", in("Ann", "hi"), perm, in("Ann", "new one"))
		h.wait(10 * time.Second)
		h.wantRequests(base+1, "a genuinely new message after the matched pointer")
	})
}

func TestMessageIDChangeMovesThePointer(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", engine.Message{ID: "tmp_9", Sender: "You", Direction: engine.Outgoing, Text: "ok"})
		h.send(engine.MessageIDChanged{Conversation: "c1", OldID: "tmp_9", NewID: "perm-9"})
		h.store.Lock()
		got := h.store.Recs["c1"].LastProcessed.ID
		h.store.Unlock()
		if got != "perm-9" {
			t.Fatalf("want the stored pointer to follow the permanent id, got %q", got)
		}
	})
}

// Older messages loaded by scrolling up are context, never new: they neither trigger nor move
// the last-processed pointer back.
func TestHistoryLoadedByScrollingNeverTriggersNorMovesThePointerBack(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeActive)
		newest := in("Ann", "latest")
		h.open("c1", newest)
		h.send(engine.HistoryLoaded{Conversation: "c1", Messages: []engine.Message{in("Ann", "clanker, old question"), in("Bob", "old answer")}})
		h.wait(time.Minute)
		h.wantRequests(0, "history loaded above")
		h.store.Lock()
		got := h.store.Recs["c1"].LastProcessed.ID
		h.store.Unlock()
		if got != newest.ID {
			t.Fatalf("want the pointer to stay on the newest message %q, got %q", newest.ID, got)
		}
		if n := h.snap().Foreground.Messages; n != 3 {
			t.Fatalf("want the older messages kept as context (3 in all), got %d", n)
		}
	})
}

func TestDuplicateMessageEventsTriggerOnce(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		m := in("Ann", "once")
		h.send(engine.MessageAdded{Conversation: "c1", Message: m})
		h.send(engine.MessageAdded{Conversation: "c1", Message: m})
		h.wait(10 * time.Second)
		h.wantRequests(1, "the same message reported twice")
	})
}

func TestSeenIDsAreBoundedAndForgottenMessagesNeverTriggerAgain(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{}, nil }) // always silent
		h.store.SetMode("c1", engine.ModeActive)
		first := in("Ann", "first")
		h.open("c1", first)
		var all []engine.Message
		for i := range engine.KeepMessages + 100 {
			m := in("Ann", fmt.Sprintf("clanker, message %d", i))
			all = append(all, m)
			h.send(engine.MessageAdded{Conversation: "c1", Message: m})
		}
		h.wait(3 * time.Second)
		h.wantRequests(1, "one debounced request for the burst")
		if s := h.snap(); s.Foreground.SeenIDs > engine.KeepMessages || s.Foreground.Messages > engine.KeepMessages {
			t.Fatalf("want at most %d remembered ids and messages, got %d ids and %d messages", engine.KeepMessages, s.Foreground.SeenIDs, s.Foreground.Messages)
		}

		// A refresh whose top rows are long forgotten, followed by known ones: nothing is new.
		view := append(append([]engine.Message{first}, all[:40]...), all[len(all)-5:]...)
		h.send(engine.ConversationOpened{ID: "c1", Participants: []engine.Participant{{Name: "Ann"}}, Messages: view})
		// A refresh holding only forgotten messages cannot be placed in time and is ignored.
		h.send(engine.ConversationOpened{ID: "c1", Participants: []engine.Participant{{Name: "Ann"}}, Messages: all[:30]})
		// Scrolling far up once the window is full changes nothing.
		h.send(engine.HistoryLoaded{Conversation: "c1", Messages: all[:50]})
		h.wait(5 * time.Second)
		h.wantRequests(1, "forgotten messages reported again")
		if got := h.store.Recs["c1"].LastProcessed.ID; got != all[len(all)-1].ID {
			t.Fatalf("want the last-processed pointer to stay on the newest message %s, got %s", all[len(all)-1].ID, got)
		}

		h.receive("c1", in("Bob", "clanker, a genuinely new one"))
		h.wait(3 * time.Second)
		h.wantRequests(2, "a new message after pruning")
	})
}
