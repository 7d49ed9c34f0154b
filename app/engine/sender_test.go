package engine_test

import (
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// unlabelled is a new message as the bridge reports a row whose label has not arrived: the
// visible text, no sender, the direction only guessed.
func unlabelled(text string) engine.Message {
	m := in("", text)
	m.LabelPending = true
	return m
}

// labelled is the same message once its label arrived.
func labelled(m engine.Message, sender string, dir engine.Direction) engine.Message {
	m.Sender = sender
	m.Direction = dir
	m.LabelPending = false
	return m
}

// A label that arrives within the wait decides: another person's Clanker addressing us is
// answered, although its "[clanker]" text alone would have counted as our own.
func TestSenderArrivingWithinTheWaitIsUsedForTheDecision(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeAvailable)
		h.open("c1", in("Ann", "hi"))
		m := unlabelled("[clanker] Bob's Clanker here: clank, what do you think?")
		h.receive("c1", m)
		h.wait(3 * time.Second)
		h.wantRequests(0, "while the decision waits for the sender")
		h.send(engine.MessageUpdated{Conversation: "c1", Message: labelled(m, "Bob", engine.Incoming)})
		h.wait(20 * time.Second)
		req := h.wantRequests(1, "the label named another person's Clanker")
		if last := req[0].History[len(req[0].History)-1]; last.Sender != "Bob" {
			t.Fatalf("the model saw the message from %q, want Bob", last.Sender)
		}
	})
}

// A label that arrives within the wait can also forbid the reply the text alone would get:
// an automated sender, or our own message.
func TestLateLabelCannotCauseAWrongReply(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		code := unlabelled("Your code is 123456")
		h.receive("c1", code)
		h.wait(3 * time.Second) // a reply to the text alone would be scheduled by now
		h.send(engine.MessageUpdated{Conversation: "c1", Message: labelled(code, "72975", engine.Incoming)})
		h.wait(time.Minute)
		h.wantRequests(0, "the sender turned out to be a short code")
		if got := h.page.Commands(engine.CmdSetAutomated); len(got) == 0 || got[len(got)-1].Text != "true" {
			t.Fatalf("the conversation was not marked automated: %+v", got)
		}

		h.store.SetMode("c2", engine.ModeActive)
		h.open("c2", in("Ann", "hi"))
		own := unlabelled("[clanker] see you there")
		h.receive("c2", own)
		h.wait(2 * time.Second)
		h.send(engine.MessageUpdated{Conversation: "c2", Message: labelled(own, "You", engine.Outgoing)})
		h.wait(time.Minute)
		h.wantRequests(0, "our own message, labelled late")
		// It is the latest word now: another Clanker right after it triggers nothing.
		h.receive("c2", in("Bob", "[clanker] Hello Dana's Clanker!"))
		h.wait(time.Minute)
		h.wantRequests(0, "another Clanker right after our own late-labelled message")
	})
}

// With no label at all, the wait is bounded: after senderWait the decision is made on the
// text. A human message is answered as the mode says; a "[clanker]" text counts as our own
// and is never answered.
func TestSenderThatNeverArrivesEndsTheWaitWithASafeDecision(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", unlabelled("lunch at noon?"))
		h.wait(engine.SenderWait - 10*time.Millisecond)
		h.wantRequests(0, "before the wait for the sender ends")
		h.wait(10*time.Millisecond + engine.ReadingCap)
		req := h.wantRequests(1, "the wait ended and the text alone decides")
		if last := req[0].History[len(req[0].History)-1]; last.Text != "lunch at noon?" || last.Sender != "" {
			t.Fatalf("the model saw %+v, want the unlabelled message as it is", last)
		}

		h.store.SetMode("c2", engine.ModeAvailable)
		h.open("c2", in("Ann", "hi"))
		h.receive("c2", unlabelled("[clanker] clank, are you there?"))
		h.wait(time.Minute)
		h.wantRequests(1, "a [clanker] text whose author never became known")
	})
}

// The sender arriving after the decision (the wait already ended) updates what the model
// sees and triggers nothing more; updates of a decided or labelled message never trigger.
func TestSenderArrivingAfterTheDecisionOnlyUpdatesTheMessage(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		m := unlabelled("lunch?")
		h.receive("c1", m)
		h.wait(engine.SenderWait + 100*time.Millisecond) // decided; the reply waits its reading delay (800 ms)
		h.wantRequests(0, "reading delay still running")
		h.send(engine.MessageUpdated{Conversation: "c1", Message: labelled(m, "Ann", engine.Incoming)})
		h.wait(time.Minute)
		req := h.wantRequests(1, "one reply for one message")
		if last := req[0].History[len(req[0].History)-1]; last.Sender != "Ann" {
			t.Fatalf("the model saw the message from %q, want the late sender Ann", last.Sender)
		}
		upd := labelled(m, "Ann", engine.Incoming)
		upd.Images = []engine.Image{{Src: "blob:https://messages.google.com/late"}}
		h.send(engine.MessageUpdated{Conversation: "c1", Message: upd})
		h.send(engine.MessageUpdated{Conversation: "c1", Message: labelled(in("Ann", "lunch?"), "Ann", engine.Incoming)}) // unknown id
		h.wait(time.Minute)
		h.wantRequests(1, "updates after the decision")

		// An update that still has no label (an image's src arrived first) keeps waiting.
		n := unlabelled("and dinner?")
		h.receive("c1", n)
		h.wait(time.Second)
		still := n
		still.Images = []engine.Image{{Src: "blob:https://messages.google.com/x"}}
		h.send(engine.MessageUpdated{Conversation: "c1", Message: still})
		h.wait(2 * time.Second)
		h.wantRequests(1, "an update without the sender decides nothing")
		h.wait(engine.SenderWait + engine.ReadingCap)
		h.wantRequests(2, "the held message, decided at the end of its wait")
	})
}
