package llm

import (
	"context"
	"errors"
	"testing"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/enginefake"
	"github.com/clanker-desktop/clanker/tests/fakellm"
)

type spentBudget struct{ asked int }

func (b *spentBudget) BudgetExceeded(context.Context) (bool, string, error) {
	b.asked++
	return true, "Monthly token budget reached (1200 of 1000 tokens). Clanker has been deactivated.", nil
}

func TestSpentBudgetStopsTheRequestBeforeItIsSent(t *testing.T) {
	srv, base := fakellm.StartNew(fakellm.Config{})
	defer srv.Close()
	cfg := func(string) (Config, error) { return Config{Endpoint: base, APIKey: "sk-test", Model: "m"}, nil }
	req := engine.LLMRequest{Kind: engine.RequestReply, Conversation: "c1", UserName: "Me",
		History: []engine.Message{{ID: "1", Sender: "Ann", Text: "hey clanker"}}}

	for name, a := range map[string]*EngineAdapter{
		"spent budget": {Config: cfg, Memory: enginefake.NewStore(), Budget: &spentBudget{}},
	} {
		_, err := a.Complete(context.Background(), req)
		var le *engine.LLMError
		if !errors.As(err, &le) || le.Class != engine.ErrBudget {
			t.Fatalf("%s: got %v, want an engine.LLMError of class budget", name, err)
		}
		if le.UserText == "" {
			t.Fatalf("%s: the budget error has no sentence for the banner", name)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times with the budget spent, want 0", n)
	}
}
