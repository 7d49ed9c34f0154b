package llm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/app/engine"
)

func conversationOf(n int) Request {
	c := Request{
		LLMRequest: engine.LLMRequest{UserName: "Dana", Participants: []string{"You", "Ann", "Bob", "Cy"}},
		Memory: engine.Memory{
			Summary:       strings.Repeat("Ann and Bob are planning a trip to the coast in June; Cy may join. ", 12),
			Customization: "Speak like a cheerful sailor.",
			Profiles:      map[string]string{"Ann": "runs marathons", "Bob": "vegetarian, into chess", "Cy": "new in town"},
		},
	}
	senders := []string{"Ann", "Bob", "Cy", "You"}
	for i := range n {
		m := engine.Message{Sender: senders[i%4], Text: fmt.Sprintf("message %d about the trip, dates and who brings what", i)}
		if i%7 == 6 {
			m = engine.Message{Sender: "You", Direction: engine.Outgoing, Text: fmt.Sprintf("[clanker] reply %d from Clanker", i)}
		}
		if i%11 == 10 {
			m = engine.Message{Sender: "Bob", Images: []engine.Image{{Src: fmt.Sprintf("blob:https://messages.google.com/%d", i), Alt: "beach photo"}}}
		}
		c.History = append(c.History, m)
	}
	return c
}

func TestOwnMessagesAreAssistantTurnsWithoutPrefixAndOthersAreNamed(t *testing.T) {
	p := BuildPrompt(Request{LLMRequest: engine.LLMRequest{
		UserName: "Dana",
		History: []engine.Message{
			{Sender: "Ann", Text: "hi all"},
			{Sender: "You", Direction: engine.Outgoing, Text: "[clanker] Hello Ann!"},
			{Sender: "You", Direction: engine.Outgoing, Text: "I'm here too"},
			{Sender: "Bob", Text: "look", Images: []engine.Image{{Src: "blob:https://messages.google.com/a", Alt: "a dog"}}},
		},
	}})
	var got []string
	for _, part := range p.Parts[1:] { // after the rules; there is no memory to show
		got = append(got, string(part.Role)+"|"+part.Text)
	}
	want := []string{
		"user|Ann: hi all",
		"assistant|Hello Ann!",
		"user|Dana: I'm here too",
		"user|Bob: look",
		`user|Bob: [IMAGE: blob:https://messages.google.com/a] "a dog"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("history:\nwant %q\ngot  %q", want, got)
	}
}

func TestStablePrefixIsByteIdenticalAcrossConsecutiveRequests(t *testing.T) {
	conv := conversationOf(30)
	conv.Older = 12
	before := BuildPrompt(conv)
	mem := before.Parts[1].Text
	if !strings.HasPrefix(mem, "[MEMORY") || !strings.Contains(mem, "cheerful sailor") || !strings.Contains(mem, "runs marathons") ||
		!strings.Contains(mem, "trip to the coast") || !strings.HasSuffix(mem, "[12 older messages are not shown; the summary covers them]") {
		t.Fatalf("the memory must follow the rules with the profiles, summary, customization and, last, the count, got %q", mem)
	}
	if strings.Index(mem, "runs marathons") > strings.Index(mem, "trip to the coast") || strings.Index(mem, "trip to the coast") > strings.Index(mem, "cheerful sailor") {
		t.Fatal("the memory's parts must come as profiles, summary, persona")
	}
	// A new message arrives: everything before stays where it was and the message follows.
	conv.History = append(conv.History, engine.Message{Sender: "Ann", Text: "Clanker, thoughts?"})
	after := BuildPrompt(conv)
	if commonPrefixBytes(before, after) != before.bytes() || after.Stable != len(after.Parts) {
		t.Fatalf("the next request must repeat the whole previous one: shared %d of %d bytes", commonPrefixBytes(before, after), before.bytes())
	}
	// A notice that the messages are about to leave the view goes before the newest message and
	// is not part of what the next request repeats.
	noticed := conv
	noticed.Notice = true
	np := BuildPrompt(noticed)
	if np.Parts[len(np.Parts)-2].Text != leavingNotice || np.Stable != len(np.Parts)-2 || commonPrefixBytes(before, np) != before.bytes() {
		t.Fatalf("the notice must stand before the newest message, after everything the previous request held")
	}
	// A compaction with the same memory still shares the rules and the memory up to the count.
	compacted := conv
	compacted.History, compacted.Older = conv.History[20:], 32
	cp := BuildPrompt(compacted)
	counter := "[12 older messages are not shown; the summary covers them]"
	if got, want := commonPrefixBytes(after, cp), len(after.canonical(1))+len("user\n")+len(mem)-len(counter); got < want {
		t.Fatalf("a new layout with the same memory must share the rules and the memory before the count (%d bytes), shared %d", want, got)
	}
	// An activation or news instruction goes at the end, after the prefix.
	act := conv
	act.Kind = engine.RequestActivation
	actP := BuildPrompt(act)
	if commonPrefixBytes(after, actP) < after.bytes()-2 {
		t.Fatalf("the activation prompt must extend the normal prompt, shared %d of %d bytes", commonPrefixBytes(after, actP), after.bytes())
	}
	// The rules do not depend on the conversation: two conversations share them.
	other := BuildPrompt(Request{LLMRequest: engine.LLMRequest{UserName: "Eve"}})
	if commonPrefixBytes(after, other) < len(systemRules) {
		t.Fatalf("different conversations must share the rules (%d bytes), shared %d", len(systemRules), commonPrefixBytes(after, other))
	}
}

// The app's notes stand before the message they are placed at, in order; one placed after the
// last message comes last.
func TestNotesStandBetweenTheMessages(t *testing.T) {
	hist := []engine.Message{
		{ID: "1", Sender: "Ann", Text: "two photos", Images: []engine.Image{{Src: "blob:a"}, {Src: "blob:b"}}},
		{ID: "2", Sender: "Bob", Text: "nice"},
		{ID: "3", Sender: "Ann", Text: "newer"},
	}
	p := BuildPrompt(Request{LLMRequest: engine.LLMRequest{UserName: "Dana", History: hist}, Memory: engine.Memory{Summary: "a summary"},
		Notes: []Note{{At: 1, Text: gapNote(40)}, {At: 2, Text: personaNote("Speak like a pirate.")}, {At: 3, Text: personaNote("")}}})
	var heads []string
	for _, part := range p.Parts[1:] {
		heads = append(heads, part.Text[:min(len(part.Text), 12)])
	}
	want := []string{"[MEMORY - fr", "Ann: two pho", "Ann: [IMAGE:", "Ann: [IMAGE:", "[APP NOTE - ", "Bob: nice", "[MEMORY UPDA", "Ann: newer", "[MEMORY UPDA"}
	if fmt.Sprint(heads) != fmt.Sprint(want) {
		t.Fatalf("parts %q, want %q", heads, want)
	}
	if !strings.Contains(p.Parts[5].Text, "40 messages") || !strings.HasSuffix(p.Parts[7].Text, "Speak like a pirate.") || !strings.HasSuffix(p.Parts[9].Text, "was removed.") {
		t.Fatalf("note texts: %q, %q, %q", p.Parts[5].Text, p.Parts[7].Text, p.Parts[9].Text)
	}
}

func TestProfilesAreSerialisedDeterministically(t *testing.T) {
	conv := conversationOf(3)
	a := BuildPrompt(conv)
	for range 20 {
		if b := BuildPrompt(conv); commonPrefixBytes(a, b) != a.bytes() {
			t.Fatal("the same conversation produced different prompt bytes")
		}
	}
}

func TestFollowUpCarriesImageAfterHistory(t *testing.T) {
	conv := conversationOf(12)
	conv.Attachment = &ImageAttachment{Src: "blob:x", Alt: "beach", DataURL: "data:image/jpeg;base64,AA", Width: 448, Height: 336}
	p := BuildPrompt(conv)
	last := p.Parts[len(p.Parts)-1]
	if last.ImageURL == "" || !strings.Contains(last.Text, `Alt text: "beach"`) || !strings.Contains(last.Text, "cannot request another image") {
		t.Fatalf("want the image as the last part with alt text and a no-more-images note, got %+v", last)
	}
	if !strings.Contains(p.Parts[1].Text, "vegetarian, into chess") {
		t.Fatal("the follow-up must include the participant profiles")
	}
}

func TestNoConversationDataLeaksIntoTheRules(t *testing.T) {
	p := BuildPrompt(conversationOf(5))
	if !strings.HasPrefix(p.Parts[0].Text, systemRules+"\n\n[CONVERSATION]") {
		t.Fatal("the system message must start with the fixed rules")
	}
	for _, w := range []string{"[clanker]", "null", "requestImage", "customization", "profiles", "summary"} {
		if !strings.Contains(systemRules, w) {
			t.Errorf("the rules must mention %q", w)
		}
	}
}

func TestDetectProviderByHost(t *testing.T) {
	cases := map[string]Provider{
		"https://api.x.ai/v1":                         XAI,
		"https://api.openai.com/v1":                   OpenAI,
		"https://api.anthropic.com/v1/":               Anthropic,
		"https://claude-proxy.example.com/v1":         Anthropic,
		"http://localhost:11434/v1":                   Generic,
		"https://openrouter.ai/api/v1":                Generic,
		"https://example.com/openai-compatible/v1":    Generic, // the path does not count, only the host
		"::not a url":                                 Generic,
		"https://my-openai-resource.azure.com/openai": OpenAI,
	}
	for ep, want := range cases {
		if got := DetectProvider(ep); got != want {
			t.Errorf("DetectProvider(%q): want %v, got %v", ep, want, got)
		}
	}
	if Generic.SupportsWebSearch() || !XAI.SupportsWebSearch() || !strings.Contains(Generic.WebSearchNote(), "not available") {
		t.Error("generic endpoints must report no web search, known providers must report it")
	}
}
