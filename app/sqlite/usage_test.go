package sqlite

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

func TestUsageTotalsPerConversationPerDayAndMonthToDate(t *testing.T) {
	s, clk := openTest(t)
	ctx := context.Background()
	loc := time.FixedZone("UTC-5", -5*3600)
	rows := []engine.Usage{
		{Conversation: "a", Model: "m1", Tokens: engine.Tokens{Prompt: 100, Completion: 10}, At: time.Date(2026, 2, 28, 12, 0, 0, 0, loc)}, // last month
		{Conversation: "a", Model: "m1", Tokens: engine.Tokens{Prompt: 200, Completion: 20}, At: time.Date(2026, 3, 1, 0, 30, 0, 0, loc)},
		{Conversation: "b", Model: "m2", Tokens: engine.Tokens{Prompt: 300, Completion: 30}, At: time.Date(2026, 3, 1, 23, 59, 0, 0, loc)},
		{Conversation: "a", Model: "m2", Tokens: engine.Tokens{Prompt: 400, Completion: 40}, At: time.Date(2026, 3, 2, 0, 1, 0, 0, loc)},
	}
	for _, u := range rows {
		if err := s.RecordUsage(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	clk.t = time.Date(2026, 3, 2, 8, 0, 0, 0, loc)
	if err := s.RecordUsage(ctx, engine.Usage{Conversation: "b", Model: "m1", Tokens: engine.Tokens{Prompt: 1, Completion: 1}}); err != nil {
		t.Fatal(err) // At zero: stamped with the store clock
	}

	from, to := time.Date(2026, 3, 1, 0, 0, 0, 0, loc), time.Date(2026, 4, 1, 0, 0, 0, 0, loc)
	byConv, err := s.UsageByConversation(ctx, from, to)
	want := []UsageTotal{
		{Key: "a", Tokens: engine.Tokens{Prompt: 600, Completion: 60}, Requests: 2},
		{Key: "b", Tokens: engine.Tokens{Prompt: 301, Completion: 31}, Requests: 2},
	}
	if err != nil || !reflect.DeepEqual(byConv, want) {
		t.Errorf("by conversation = %+v (%v)\nwant %+v", byConv, err, want)
	}
	byDay, err := s.UsageByDay(ctx, from, to, loc)
	wantDays := []UsageTotal{
		{Key: "2026-03-01", Tokens: engine.Tokens{Prompt: 500, Completion: 50}, Requests: 2},
		{Key: "2026-03-02", Tokens: engine.Tokens{Prompt: 401, Completion: 41}, Requests: 2},
	}
	if err != nil || !reflect.DeepEqual(byDay, wantDays) {
		t.Errorf("by day in UTC-5 = %+v (%v)\nwant %+v", byDay, err, wantDays)
	}
	mtd, err := s.MonthToDate(ctx, loc)
	wantMTD := map[string]engine.Tokens{"m1": {Prompt: 201, Completion: 21}, "m2": {Prompt: 700, Completion: 70}}
	if err != nil || !reflect.DeepEqual(mtd, wantMTD) {
		t.Errorf("month to date = %+v (%v), want %+v (February excluded)", mtd, err, wantMTD)
	}

	st := engine.DefaultSettings()
	st.Budget = engine.Budget{Kind: engine.BudgetTokens, MonthlyTokens: 992}
	if b, err := s.CheckBudget(ctx, st, loc); err != nil || !b.Exceeded || b.Used != 992 {
		t.Errorf("token budget 992 with 992 used: %+v (%v), want exceeded", b, err)
	}
	st.Budget.MonthlyTokens = 1000
	if b, _ := s.CheckBudget(ctx, st, loc); b.Exceeded {
		t.Errorf("token budget 1000 with 992 used reported exceeded: %+v", b)
	}
	if b, _ := s.CheckBudget(ctx, engine.DefaultSettings(), loc); b.Enforced {
		t.Errorf("no budget should not be enforced: %+v", b)
	}
}

func TestUsageWithNegativeTokensOrNoModelIsRefused(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	if err := s.RecordUsage(ctx, engine.Usage{Conversation: "a", Model: "m", Tokens: engine.Tokens{Prompt: -1}}); err == nil {
		t.Errorf("negative tokens accepted")
	}
	if err := s.RecordUsage(ctx, engine.Usage{Conversation: "a", Tokens: engine.Tokens{Prompt: 1}}); err == nil {
		t.Errorf("usage without a model accepted")
	}
}
