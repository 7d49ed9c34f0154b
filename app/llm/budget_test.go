package llm

import (
	"context"
	"errors"
	"testing"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/fakellm"
)

type emptyMemory struct{}

func (emptyMemory) LoadContext(context.Context, string) (string, string, map[string]string, error) {
	return "", "", nil, nil
}

type spentBudget struct{ asked int }

func (b *spentBudget) BudgetExceeded(context.Context) (bool, string, error) {
	b.asked++
	return true, "Monthly token budget reached (1200 of 1000 tokens). Clanker has been deactivated.", nil
}

// budgetMemory is a ContextSource that is also a BudgetGate, as the SQLite store is.
type budgetMemory struct {
	emptyMemory
	*spentBudget
}

func TestSpentBudgetStopsTheRequestBeforeItIsSent(t *testing.T) {
	srv, base := fakellm.StartNew(fakellm.Config{})
	defer srv.Close()
	cfg := func(string) (Config, error) { return Config{Endpoint: base, APIKey: "sk-test", Model: "m"}, nil }
	req := engine.LLMRequest{Kind: engine.RequestReply, Conversation: "c1", UserName: "Me",
		History: []engine.Message{{ID: "1", Sender: "Ann", Text: "hey clanker"}}}

	for name, a := range map[string]*EngineAdapter{
		"explicit gate":     {Config: cfg, Context: emptyMemory{}, Budget: &spentBudget{}},
		"context is a gate": {Config: cfg, Context: budgetMemory{spentBudget: &spentBudget{}}},
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
