package sqlite

import (
	"context"
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/app/engine"
)

func TestBudgetGateReportsASpentMonthlyTokenBudget(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	gate := s

	if exceeded, _, err := gate.BudgetExceeded(ctx); err != nil || exceeded {
		t.Fatalf("no budget set: exceeded=%v err=%v, want false, nil", exceeded, err)
	}
	st := engine.DefaultSettings()
	st.Budget = engine.Budget{Kind: engine.BudgetTokens, MonthlyTokens: 1000}
	if _, err := s.SaveSettings(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordUsage(ctx, engine.Usage{Conversation: "c1", Model: "m", Tokens: engine.Tokens{Prompt: 600, Completion: 300}}); err != nil {
		t.Fatal(err)
	}
	if exceeded, _, err := gate.BudgetExceeded(ctx); err != nil || exceeded {
		t.Fatalf("900 of 1000 tokens used: exceeded=%v err=%v, want false", exceeded, err)
	}
	if err := s.RecordUsage(ctx, engine.Usage{Conversation: "c2", Model: "m", Tokens: engine.Tokens{Prompt: 200, Completion: 100}}); err != nil {
		t.Fatal(err)
	}
	exceeded, text, err := gate.BudgetExceeded(ctx)
	if err != nil || !exceeded {
		t.Fatalf("1200 of 1000 tokens used: exceeded=%v err=%v, want true", exceeded, err)
	}
	if !strings.Contains(text, "1200") || !strings.Contains(text, "1000") {
		t.Fatalf("banner text %q does not say how much was used of what", text)
	}
}
