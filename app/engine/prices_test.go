package engine

import (
	"reflect"
	"strings"
	"testing"
)

func TestPricesFromEntriesReadsTheTypedListAndSaysWhatIsWrong(t *testing.T) {
	prices, msg := PricesFromEntries([]PriceEntry{
		{Model: " gpt-5-mini ", Prompt: "0.25", Completion: " 2 "},
		{Model: "free-model", Prompt: "0", Completion: "0"},
		{Model: "not-yet", Prompt: "", Completion: " "}, // offered, left empty: stays unpriced
		{}, // an added line left empty
	})
	want := map[string]Price{"gpt-5-mini": {PromptPerMillion: 0.25, CompletionPerMillion: 2}, "free-model": {}}
	if msg != "" || !reflect.DeepEqual(prices, want) {
		t.Fatalf("got %v %q, want %v", prices, msg, want)
	}

	cases := []struct {
		name    string
		entries []PriceEntry
		want    string
	}{
		{"price without a model name", []PriceEntry{{Prompt: "1", Completion: "2"}}, "Every model price needs a model name."},
		{"one price missing", []PriceEntry{{Model: "m", Prompt: "1"}}, `Enter both prices for model "m" (0 where it is free).`},
		{"same model twice", []PriceEntry{{Model: "m", Prompt: "1", Completion: "1"}, {Model: " m", Prompt: "2", Completion: "2"}}, `Model "m" has two price lines; keep one.`},
		{"text", []PriceEntry{{Model: "m", Prompt: "cheap", Completion: "1"}}, `The prompt price for model "m" is not a number`},
		{"comma", []PriceEntry{{Model: "m", Prompt: "1", Completion: "0,5"}}, `The completion price for model "m" is not a number`},
		{"NaN", []PriceEntry{{Model: "m", Prompt: "NaN", Completion: "1"}}, "is not a number"},
		{"hex float", []PriceEntry{{Model: "m", Prompt: "0x1p3", Completion: "1"}}, "is not a number"},
		{"too long", []PriceEntry{{Model: "m", Prompt: "1" + strings.Repeat("0", maxPriceText), Completion: "1"}}, "is not a number"},
		{"beyond a float", []PriceEntry{{Model: "m", Prompt: "1e400", Completion: "1"}}, "can be at most 1000000 per million tokens."},
		{"infinity", []PriceEntry{{Model: "m", Prompt: "1", Completion: "Inf"}}, "can be at most 1000000 per million tokens."},
		{"minus beyond a float", []PriceEntry{{Model: "m", Prompt: "-1e400", Completion: "1"}}, "must be zero or more."},
	}
	for _, c := range cases {
		got, msg := PricesFromEntries(c.entries)
		if got != nil || !strings.Contains(msg, c.want) {
			t.Errorf("%s: got %v %q, want the sentence %q", c.name, got, msg, c.want)
		}
	}

	many := make([]PriceEntry, MaxPrices+1)
	for i := range many {
		many[i] = PriceEntry{Model: strings.Repeat("m", i+1), Prompt: "1", Completion: "1"}
	}
	if _, msg := PricesFromEntries(many); msg != tooManyPrices(MaxPrices+1) {
		t.Errorf("too many lines: got %q", msg)
	}
}

// Negative and too high prices read fine as numbers; Validate names the limit, as it does for
// prices set through `clanker config`.
func TestTypedPricesOutsideTheLimitsAreRefusedByValidate(t *testing.T) {
	for _, typed := range []string{"-1", "1000001"} {
		prices, msg := PricesFromEntries([]PriceEntry{{Model: "m", Prompt: typed, Completion: "1"}})
		if msg != "" {
			t.Fatalf("%s: %q", typed, msg)
		}
		s := DefaultSettings()
		s.Budget.Prices = prices
		es, _ := s.Validate().(FieldErrors)
		if es.For(FieldPrices) == "" {
			t.Errorf("a price of %s was accepted", typed)
		}
	}
}

func TestPriceEntriesListPricedModelsThenTheOnesStillNeedingAPrice(t *testing.T) {
	got := PriceEntries(map[string]Price{"b": {PromptPerMillion: 0.25, CompletionPerMillion: 2}, "a": {PromptPerMillion: 1e-7}},
		[]string{"grok-4", "b", "", " grok-4 ", "local"})
	want := []PriceEntry{
		{Model: "a", Prompt: "0.0000001", Completion: "0"},
		{Model: "b", Prompt: "0.25", Completion: "2"},
		{Model: "grok-4"},
		{Model: "local"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	back, msg := PricesFromEntries(got)
	if msg != "" || len(back) != 2 || back["a"].PromptPerMillion != 1e-7 || back["b"].CompletionPerMillion != 2 {
		t.Fatalf("the listed prices do not read back: %v %q", back, msg)
	}
}

// Stored prices that would not validate are dropped one by one; the budget itself and the good
// prices stay, so a cost budget stops at the lost model instead of counting it as free.
func TestClampDropsOnlyTheBadStoredPrices(t *testing.T) {
	s := DefaultSettings()
	s.Budget = Budget{Kind: BudgetCost, MonthlyCost: 5, Prices: map[string]Price{
		"good": {PromptPerMillion: 1, CompletionPerMillion: 2}, "bad": {PromptPerMillion: -1}, "bad\n": {}}}
	s.Clamp()
	if s.Budget.Kind != BudgetCost || !reflect.DeepEqual(s.Budget.Prices, map[string]Price{"good": {PromptPerMillion: 1, CompletionPerMillion: 2}}) {
		t.Fatalf("after Clamp: %+v", s.Budget)
	}
	if st := s.Budget.Check(map[string]Tokens{"bad": {Prompt: 1}}); !st.Exceeded || len(st.UnpricedModels) != 1 {
		t.Fatalf("a model whose price was dropped must stop a cost budget: %+v", st)
	}
}

func TestUnpricedAndTheBannerNameWhereToAddThePrice(t *testing.T) {
	b := Budget{Kind: BudgetCost, MonthlyCost: 5, Prices: map[string]Price{"a": {}}}
	if got := b.Unpriced("a", "b", " b", "", "c"); !reflect.DeepEqual(got, []string{"b", "c"}) {
		t.Errorf("Unpriced = %v, want [b c]", got)
	}
	if got := (Budget{Kind: BudgetTokens, MonthlyTokens: 1}).Unpriced("b"); got != nil {
		t.Errorf("a token budget needs no prices, got %v", got)
	}
	banner := b.Check(map[string]Tokens{"b": {Prompt: 1}}).Message(BudgetCost)
	if !strings.Contains(banner, "Settings > Budget > Model prices") || !strings.Contains(banner, `"b"`) {
		t.Errorf("banner %q must name the model and where to add its price", banner)
	}
	if msg := NoPriceMessage("b"); !strings.Contains(msg, "Settings > Budget > Model prices") {
		t.Errorf("NoPriceMessage %q must name where to add the price", msg)
	}
}
