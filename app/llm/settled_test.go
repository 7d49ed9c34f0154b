package llm

import (
	"testing"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Settled counts the engine's messages; a message with two photos becomes three prompt
// messages, all of them before the memory.
func TestSettledCountsEngineMessages(t *testing.T) {
	hist := []engine.Message{
		{ID: "1", Sender: "Ann", Text: "two photos", Images: []engine.Image{{Src: "blob:a"}, {Src: "blob:b"}}},
		{ID: "2", Sender: "Bob", Text: "nice"},
		{ID: "3", Sender: "Ann", Text: "newer"},
	}
	p := BuildPrompt(Request{LLMRequest: engine.LLMRequest{UserName: "Dana", History: hist, Settled: 2},
		Memory: engine.Memory{Summary: "a summary"}})
	var heads []string
	for _, part := range p.Parts[1:] {
		heads = append(heads, part.Text[:min(len(part.Text), 8)])
	}
	want := []string{"Ann: two", "Ann: [IM", "Ann: [IM", "Bob: nic", "[MEMORY ", "Ann: new"}
	if len(heads) != len(want) {
		t.Fatalf("parts %q, want %q", heads, want)
	}
	for i := range want {
		if heads[i] != want[i] {
			t.Fatalf("parts %q, want %q", heads, want)
		}
	}
}
