package engine_test

import (
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// The mention corpus: what people write to Clanker, and the near-misses that name something
// else (issue 27.5: "clank-free" was answered).
func TestMentionRuleOnACorpusOfAddressesAndNearMisses(t *testing.T) {
	addresses := []string{
		"Clanker, what is the capital of Peru?",
		"clanker what time is it",
		"hey clanker",
		"Hey Clanker!",
		"what do you think, clanker?",
		"thanks clanker",
		"@clanker can you settle this",
		"@Clanker",
		"can clanker tell us the score?",
		"I asked Clanker yesterday and it said no",
		"is clanker's answer right?",
		"CLANKER HELP",
		"ok, clank, your turn",
		"hi clank.",
		"hey clank",
		"clank: where do we eat",
		"thanks, clank!",
		"where should we go clank?",
		"klanker where are you",   // misspellings
		"clankr pls",              // misspelling
		"Clnaker, help us out",    // transposed letters
		"hey clamker",             // n/m typo
		"so clanker, what now?",   // after a filler word
		"Bob: clanker, you there", // a sidebar snippet
		"#clanker",
		"(clanker) are you there",
		"[clanker] said hi earlier; Clanker, say it again", // a signature and a real mention
		"Clanker’s take?", // typographic apostrophe
	}
	for _, s := range addresses {
		if !engine.MentionsClanker(s) {
			t.Errorf("%q should address Clanker", s)
		}
	}
	misses := []string{
		"this place is clank-free",
		"the pipes clank all night",
		"clanking noises again",
		"it clanked twice",
		"those clankers are taking our jobs",
		"you're such a clanker lol",
		"ugh, a clanker wrote this",
		"the clanker at work is broken",
		"clanker2000 is my gamertag",
		"re-clanker the thing",
		"Clankerton is a nice town",
		"unclankered",
		"clanky old car",
		"[clanker] I'm Bob's bot",       // another Clanker's signature
		"Bob: [clanker] hello everyone", // its snippet
		"[Clanker]",
		"",
		"clan kerr",
		"the pipes go clank and then stop",
		"what a clank",
	}
	for _, s := range misses {
		if engine.MentionsClanker(s) {
			t.Errorf("%q should not count as addressing Clanker", s)
		}
	}
}

func TestAReplyToClankersOwnMessageAddressesIt(t *testing.T) {
	cases := []struct {
		m    engine.Message
		want bool
	}{
		{engine.Message{Text: "lol yes", Quoted: "[clanker] Tacos it is.", QuotedSender: "You"}, true},
		{engine.Message{Text: "lol yes", Quoted: "[clanker] Tacos it is."}, true}, // the page named nobody
		{engine.Message{Text: "lol yes", Quoted: "[clanker] Bob's bot here", QuotedSender: "Bob"}, false},
		{engine.Message{Text: "lol yes", Quoted: "tacos?", QuotedSender: "You"}, false},
		{engine.Message{Text: "lol yes"}, false},
	}
	for _, c := range cases {
		if got := engine.AddressesClanker(c.m); got != c.want {
			t.Errorf("addressesClanker(text %q, quote %q by %q) = %v, want %v", c.m.Text, c.m.Quoted, c.m.QuotedSender, got, c.want)
		}
	}
}

func FuzzMentionRuleNeverPanics(f *testing.F) {
	for _, s := range []string{"clanker", "@clank!", "clank-", "-clanker", "clanker's", "’", "a clanker"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		engine.MentionsClanker(s)
	})
}

// In Available mode the mention rule decides which messages are answered: a near-miss asks
// nothing, a reply to Clanker's own message is answered like its name.
func TestAvailableAnswersAddressesNotNearMisses(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeAvailable)
		h.open("c1", in("Ann", "hi"))
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "here"}, nil })
		h.receive("c1", in("Ann", "this bar is clank-free"))
		h.wait(time.Minute)
		h.receive("c1", in("Bob", "those clankers, honestly"))
		h.wait(time.Minute)
		h.wantRequests(0, "near-misses of the name")
		quote := in("Ann", "ha, true")
		quote.Quoted, quote.QuotedSender = "[clanker] here", "You"
		h.receive("c1", quote)
		h.wait(time.Minute)
		h.wantRequests(1, "a reply to Clanker's own message")
		h.wantSent("the answer to the reply", "c1|[clanker] here")
	})
}
