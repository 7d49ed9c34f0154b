package engine_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Issue 33.1, the engine's side: a view of a conversation is believed only when it agrees with
// what the engine knows of that conversation; a bridge that lets another pane's rows into it
// cannot get them answered, posted or stored.

// jane sets up a one-to-one conversation with Jane that the engine has seen, and Mom's, which
// it has seen too, both Available; the user is in Jane's.
func janeAndMom(t *testing.T) (h *harness, janes []engine.Message) {
	h = newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
	h.store.SetMode("jane", engine.ModeAvailable)
	h.store.SetMode("mom", engine.ModeAvailable)
	h.page.Lock()
	h.page.Conv("jane").Name = "Jane"
	h.page.Conv("mom").Name = "Mom"
	h.page.Unlock()
	h.llm.Set(0, func(r engine.LLMRequest) (engine.Reply, error) {
		return engine.Reply{Text: "answer in " + string(r.Conversation)}, nil
	})
	h.open("mom", in("Mom", "dinner sunday?"))
	janes = []engine.Message{in("Jane", "hey"), in("Jane", "Clanker, what is the capital of Peru?")}
	h.open("jane", janes[0])
	h.send(h.sidebar())
	return h, janes
}

// Jane's old pane lingers (hidden) when the user quickly opens Mom: the first view of Mom holds
// Jane's rows. It is not believed: nothing is answered in Mom, nothing of Jane's is stored under
// Mom, and once the page reports Mom consistently she settles.
func TestAViewHoldingAnotherConversationsRowsIsNotBelieved(t *testing.T) {
	run(t, func(t *testing.T) {
		h, janes := janeAndMom(t)
		h.receive("jane", janes[1])
		h.wait(30 * time.Second)
		h.wantSent("Jane's question answered in Jane's", "jane|[clanker] answer in jane")
		h.page.Lock()
		h.page.Lingering, h.page.LingerHeader, h.page.LingerViews = janes, "Jane", 1
		h.page.Unlock()
		h.reopen("mom")
		h.wait(30 * time.Second)
		for _, r := range h.llm.Requests() {
			if r.Conversation != "mom" {
				continue
			}
			for _, m := range r.History {
				if m.Sender == "Jane" {
					t.Fatalf("a request for Mom carried Jane's message %q", m.Text)
				}
			}
		}
		h.wantSent("nothing answered in Mom", "jane|[clanker] answer in jane")
		if got := h.store.Owners[janes[1].ID]; got != "jane" {
			t.Fatalf("Jane's message is stored under %q, want jane", got)
		}
		if len(h.page.Commands(engine.CmdResync)) == 0 {
			t.Fatal("the engine never asked the page to report Mom again")
		}
		if s := h.snap(); s.Foreground == nil || s.Foreground.ID != "mom" {
			t.Fatalf("want Mom settled once reported consistently, got %+v", s.Foreground)
		}
		h.receive("mom", in("Mom", "clanker, are you coming?"))
		h.wait(30 * time.Second)
		h.wantSent("then Mom is answered in Mom", "jane|[clanker] answer in jane", "mom|[clanker] answer in mom")
	})
}

// The same with Jane's conversation never settled (the user clicked through it too fast for
// her ids to be recorded): the names give it away. Mom's conversation has only ever had Mom in
// it, so a Jane in its view is a stranger, and the question she asked is not answered in Mom.
func TestAStrangerInAOneToOneViewMakesItDoubtful(t *testing.T) {
	run(t, func(t *testing.T) {
		h, _ := janeAndMom(t)
		stray := in("Jane", "Clanker, what is the capital of Peru?")
		h.page.Lock()
		h.page.Lingering, h.page.LingerViews = []engine.Message{stray}, 1
		h.page.Unlock()
		h.reopen("mom")
		h.wait(time.Minute)
		h.wantSent("nothing answered in Mom")
		if _, ok := h.store.Owners[stray.ID]; ok {
			t.Fatal("the stranger's message was stored")
		}
		if s := h.snap(); s.Foreground == nil || s.Foreground.ID != "mom" {
			t.Fatalf("want Mom settled once reported consistently, got %+v", s.Foreground)
		}
	})
}

// A header that names another conversation's person, in a view whose rows are new to the
// engine, is doubtful too.
func TestAHeaderThatMatchesNothingKnownMakesTheViewDoubtful(t *testing.T) {
	run(t, func(t *testing.T) {
		h, _ := janeAndMom(t)
		h.page.Lock()
		h.page.LingerHeader, h.page.LingerViews = "Jane", 1
		h.page.Unlock()
		h.reopen("mom")
		if s := h.snap(); s.Foreground != nil {
			t.Fatalf("a view of Mom with Jane's header was believed: %+v", s.Foreground)
		}
		h.wait(10 * time.Second)
		if s := h.snap(); s.Foreground == nil || s.Foreground.ID != "mom" {
			t.Fatalf("want Mom settled once reported consistently, got %+v", s.Foreground)
		}
	})
}

// Names are weaker evidence than ids: someone new joins a group and writes. The view stays the
// same when the page reports it again, so after a few steady reports it is believed.
func TestASteadyViewWithANewPersonIsBelievedAfterAWhile(t *testing.T) {
	run(t, func(t *testing.T) {
		h, _ := janeAndMom(t)
		h.page.Lock()
		h.page.Conv("mom").Msgs = append(h.page.Conv("mom").Msgs, in("Uncle Bob", "hi all, I'm on Mom's phone"))
		h.page.Unlock()
		h.reopen("mom")
		if s := h.snap(); s.Foreground != nil {
			t.Fatal("want the first view with a stranger doubted")
		}
		h.wait(time.Minute)
		s := h.snap()
		if s.Foreground == nil || s.Foreground.ID != "mom" {
			t.Fatalf("want the steady view believed, got %+v", s.Foreground)
		}
		if n := len(h.page.Commands(engine.CmdResync)); n < engine.DoubtSteady-1 || n > 6 {
			t.Fatalf("want a few reports asked for, got %d", n)
		}
	})
}

// A new message whose id was seen in another conversation makes the conversation on screen
// doubtful: it is not answered there.
func TestANewMessageSeenInAnotherConversationIsNotAnswered(t *testing.T) {
	run(t, func(t *testing.T) {
		h, janes := janeAndMom(t)
		h.receive("jane", janes[1])
		h.wait(30 * time.Second)
		h.reopen("mom")
		h.wait(10 * time.Second)
		// Jane's question, reported as new in Mom's pane (with Mom's name on it, as a
		// recycled row could carry).
		q := janes[1]
		q.Sender = "Mom"
		h.send(engine.MessageAdded{Conversation: "mom", Message: q})
		h.wait(time.Minute)
		for _, s := range h.page.Sent() {
			if s.Conversation == "mom" {
				t.Fatalf("posted in Mom after a foreign message: %q", s.Text)
			}
		}
		for _, r := range h.llm.Requests() {
			if r.Conversation == "mom" {
				t.Fatalf("asked the model for Mom with %d messages", len(r.History))
			}
		}
	})
}

func TestCleanNameReadsNamesAsAPersonDoes(t *testing.T) {
	cases := map[string]string{
		"\u2068Jane Doe\u2069":       "Jane Doe",
		"Jane\u00a0Doe":              "Jane Doe",
		"\u200eJane  Doe\u200f ":     "Jane Doe",
		"\u202bمريم\u202c":           "مريم",
		"Ann 👩‍👩‍👧 Lee":              "Ann 👩‍👩‍👧 Lee", // the family emoji keeps its joiners
		"\ufeff(555) 555-7334\u2069": "(555) 555-7334",
	}
	for in, want := range cases {
		if got := engine.CleanName(in); got != want {
			t.Errorf("CleanName(%q) = %q, want %q", in, got, want)
		}
	}
	if !engine.SameName("\u2068jane doe\u2069", "Jane\u00a0Doe") || engine.SameName("", "") || strings.Contains(engine.CleanName("a\u200eb"), "\u200e") {
		t.Error("sameName must read names as a person does and never match empty names")
	}
}

// A named group's row in the sidebar shows its title and its header its members: the title says
// nothing about who is in it, so the first view is believed and a mention there is answered
// (the demo's Book club waited, doubted, for ever).
func TestANamedGroupsHeaderListingItsMembersIsBelieved(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		h.store.SetMode("book", engine.ModeAvailable)
		h.page.Lock()
		h.page.Conv("book").Name = "Book club"
		h.page.Conv("book").Header = []string{"Ana", "Priya", "Tom"}
		h.page.Unlock()
		h.llm.Set(0, func(r engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "chapter 3"}, nil })
		h.send(h.sidebar())
		h.open("book", in("Ana", "which chapter are we on?"))
		if s := h.snap(); s.Foreground == nil || s.Foreground.ID != "book" {
			t.Fatalf("the named group's first view was doubted: %+v", s.Foreground)
		}
		h.receive("book", in("Priya", "Clanker, which chapter?"))
		h.wait(time.Minute)
		if got := h.page.Sent(); len(got) != 1 || !strings.Contains(got[0].Text, "chapter 3") {
			t.Fatalf("want the mention answered once, got %+v", got)
		}
		if n := len(h.page.Commands(engine.CmdResync)); n != 0 {
			t.Fatalf("want no report asked for again, got %d", n)
		}
	})
}

// A doubtful view of a conversation that keeps talking (new messages between the page's
// reports) is still the same view: it is believed after a few steady reports, and the mention
// that came meanwhile is answered.
func TestADoubtedViewThatKeepsTalkingIsBelievedAfterAWhile(t *testing.T) {
	run(t, func(t *testing.T) {
		h, _ := janeAndMom(t)
		h.page.Lock()
		h.page.Conv("mom").Msgs = append(h.page.Conv("mom").Msgs, in("Uncle Bob", "hi all, I'm on Mom's phone"))
		h.page.Unlock()
		h.reopen("mom")
		if s := h.snap(); s.Foreground != nil {
			t.Fatal("want the first view with a stranger doubted")
		}
		// Mom's family keeps writing every 1.5 s for 45 s, a mention among the first.
		for i := range 30 {
			h.wait(1500 * time.Millisecond)
			text := fmt.Sprintf("message %d", i)
			if i == 2 {
				text = "Clanker, is Bob welcome?"
			}
			h.page.Lock()
			h.page.Conv("mom").Msgs = append(h.page.Conv("mom").Msgs, in("Mom", text))
			h.page.Unlock()
		}
		s := h.snap()
		if s.Foreground == nil || s.Foreground.ID != "mom" {
			t.Fatalf("want the steady view believed, got %+v", s.Foreground)
		}
		if got := h.page.Sent(); len(got) != 1 || got[0].Conversation != "mom" {
			t.Fatalf("want the mention in Mom's conversation answered once, got %+v", got)
		}
	})
}
