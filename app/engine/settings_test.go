package engine

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestDefaultsMatchTheExtension(t *testing.T) {
	d := DefaultSettings()
	checks := []struct {
		name      string
		got, want any
	}{
		{"history size", d.HistorySize, 20},
		{"inactive mode", d.InactiveMode, InactiveIgnore},
		{"relaxed responsiveness", d.RelaxedResponsiveness, true},
		{"web search", d.WebSearch, false},
		{"news search", d.NewsSearch, false},
		{"max news searches", d.NewsMaxSearches, 10},
		{"quiet start", d.QuietStartHour, 21},
		{"quiet stop", d.QuietStopHour, 9},
		{"budget kind", d.Budget.Kind, BudgetNone},
		{"error notifications", d.Notifications.Errors, true},
		{"start hidden", d.StartHidden, false},
		{"autostart", d.Autostart, false},
		{"endpoint", d.Endpoint, ""},
		{"update check", d.Updates.Check, true},
		{"update feed", d.Updates.Feed, ""},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("default %s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if err := d.Validate(); err != nil {
		t.Errorf("defaults should validate, got %v", err)
	}
}

func TestValidateReportsEachOutOfRangeFieldWithASentence(t *testing.T) {
	cases := []struct {
		field string
		edit  func(*Settings)
	}{
		{FieldHistorySize, func(s *Settings) { s.HistorySize = 9 }},
		{FieldHistorySize, func(s *Settings) { s.HistorySize = 501 }},
		{FieldNewsMaxSearches, func(s *Settings) { s.NewsMaxSearches = 0 }},
		{FieldNewsMaxSearches, func(s *Settings) { s.NewsMaxSearches = 101 }},
		{FieldQuietStartHour, func(s *Settings) { s.QuietStartHour = -1 }},
		{FieldQuietStopHour, func(s *Settings) { s.QuietStopHour = 24 }},
		{FieldInactiveMode, func(s *Settings) { s.InactiveMode = "sometimes" }},
		{FieldEndpoint, func(s *Settings) { s.Endpoint = "ftp://x" }},
		{FieldModel, func(s *Settings) { s.Model = "gpt\n4" }},
		{FieldUserName, func(s *Settings) { s.UserName = strings.Repeat("a", MaxUserNameLength+1) }},
		{FieldBudget, func(s *Settings) { s.Budget = Budget{Kind: BudgetTokens} }},
		{FieldPrices, func(s *Settings) {
			s.Budget = Budget{Kind: BudgetCost, MonthlyCost: 5, Prices: map[string]Price{"m": {PromptPerMillion: -1}}}
		}},
		{FieldPrices, func(s *Settings) {
			s.Model = "grok-4"
			s.Budget = Budget{Kind: BudgetCost, MonthlyCost: 5, Prices: map[string]Price{"other": {}}}
		}},
		{FieldBudget, func(s *Settings) { s.Budget = Budget{Kind: "euros"} }},
		{FieldUpdateFeed, func(s *Settings) { s.Updates.Feed = "http://releases.example.com/latest" }},
	}
	for _, c := range cases {
		s := DefaultSettings()
		c.edit(&s)
		err := s.Validate()
		var es FieldErrors
		if !errors.As(err, &es) {
			t.Errorf("%s: expected FieldErrors, got %v", c.field, err)
			continue
		}
		if len(es) != 1 || es[0].Field != c.field {
			t.Errorf("expected exactly one error on %s, got %v", c.field, es)
			continue
		}
		msg := es.For(c.field)
		if !strings.HasSuffix(msg, ".") || msg[0] < 'A' || msg[0] > 'Z' {
			t.Errorf("message for %s should be a sentence, got %q", c.field, msg)
		}
	}
}

func TestValidateAcceptsRangeBoundsIncludingHourZero(t *testing.T) {
	s := DefaultSettings()
	s.HistorySize, s.NewsMaxSearches, s.QuietStartHour, s.QuietStopHour = 10, 1, 0, 23
	if err := s.Validate(); err != nil {
		t.Errorf("lower bounds rejected: %v", err)
	}
	s.HistorySize, s.NewsMaxSearches, s.QuietStartHour, s.QuietStopHour = 500, 100, 23, 0
	if err := s.Validate(); err != nil {
		t.Errorf("upper bounds rejected: %v", err)
	}
}

func TestClampRepairsStoredValuesWithoutLosingValidOnes(t *testing.T) {
	s := DefaultSettings()
	s.HistorySize, s.NewsMaxSearches, s.QuietStartHour, s.QuietStopHour = 3, 1000, 0, 99
	s.InactiveMode = "bogus"
	s.Updates = Updates{Check: false, Feed: "ftp://old.example/feed"}
	s.Clamp()
	if s.Updates.Check || s.Updates.Feed != "" {
		t.Errorf("clamp gave updates %+v; want the opt-out kept and the unusable feed replaced by the default", s.Updates)
	}
	if s.HistorySize != 10 || s.NewsMaxSearches != 100 || s.QuietStartHour != 0 || s.QuietStopHour != 9 || s.InactiveMode != InactiveIgnore {
		t.Errorf("clamp gave history=%d news=%d quiet=%d..%d mode=%q; want 10, 100, 0..9, ignore",
			s.HistorySize, s.NewsMaxSearches, s.QuietStartHour, s.QuietStopHour, s.InactiveMode)
	}
}

func TestMissingNamesEachAbsentConnectionField(t *testing.T) {
	s := DefaultSettings()
	if got, want := s.Missing(false), []string{FieldEndpoint, FieldAPIKey, FieldModel, FieldUserName}; !reflect.DeepEqual(got, want) {
		t.Errorf("fresh settings missing = %v, want %v", got, want)
	}
	s.Endpoint, s.Model, s.UserName = "https://api.x.ai/v1", "grok", "  "
	if got, want := s.Missing(true), []string{FieldUserName}; !reflect.DeepEqual(got, want) {
		t.Errorf("blank user name: missing = %v, want %v", got, want)
	}
	s.UserName = "Ann"
	if got := s.Missing(true); len(got) != 0 {
		t.Errorf("complete settings should miss nothing, got %v", got)
	}
}

func TestQuietHoursWrapMidnightAndEqualMeansNone(t *testing.T) {
	cases := []struct {
		hour, start, stop int
		want              bool
	}{
		{22, 21, 9, true}, {3, 21, 9, true}, {9, 21, 9, false}, {12, 21, 9, false},
		{0, 0, 6, true}, {5, 0, 6, true}, {6, 0, 6, false},
		{23, 22, 0, true}, {0, 22, 0, false},
		{7, 7, 7, false}, {0, 0, 0, false},
	}
	for _, c := range cases {
		s := Settings{QuietStartHour: c.start, QuietStopHour: c.stop}
		if got := s.QuietAt(c.hour); got != c.want {
			t.Errorf("hour %d with quiet %d-%d: want %v, got %v", c.hour, c.start, c.stop, c.want, got)
		}
	}
}

func TestModelOverrideWinsOverGlobalModel(t *testing.T) {
	s := DefaultSettings()
	s.Model = "grok-4"
	if got := s.ModelFor(""); got != "grok-4" {
		t.Errorf("no override: got %q, want grok-4", got)
	}
	if got := s.ModelFor(" gpt-5 "); got != "gpt-5" {
		t.Errorf("override: got %q, want gpt-5", got)
	}
}

func TestBudgetCheckByTokensAndByCost(t *testing.T) {
	used := map[string]Tokens{"a": {Prompt: 600_000, Completion: 100_000}, "b": {Prompt: 200_000, Completion: 100_000}}
	tok := Budget{Kind: BudgetTokens, MonthlyTokens: 1_000_000}
	if st := tok.Check(used); !st.Exceeded || st.Used != 1_000_000 {
		t.Errorf("token budget of 1M with 1M used: got %+v, want exceeded", st)
	}
	tok.MonthlyTokens = 1_000_001
	if st := tok.Check(used); st.Exceeded {
		t.Errorf("token budget above usage should not be exceeded: %+v", st)
	}
	cost := Budget{Kind: BudgetCost, MonthlyCost: 10, Prices: map[string]Price{
		"a": {PromptPerMillion: 5, CompletionPerMillion: 20},  // 3 + 2 = 5
		"b": {PromptPerMillion: 10, CompletionPerMillion: 10}, // 2 + 1 = 3
	}}
	if st := cost.Check(used); st.Exceeded || st.Used < 7.999 || st.Used > 8.001 {
		t.Errorf("cost 8 of 10: got %+v", st)
	}
	delete(cost.Prices, "b")
	st := cost.Check(used)
	if !st.Exceeded || !reflect.DeepEqual(st.UnpricedModels, []string{"b"}) {
		t.Errorf("unpriced model b should make the cost budget exceeded, got %+v", st)
	}
	if !strings.Contains(st.Message(BudgetCost), `"b"`) {
		t.Errorf("banner should name the unpriced model, got %q", st.Message(BudgetCost))
	}
	if st := (Budget{Kind: BudgetNone}).Check(used); st.Enforced || st.Exceeded {
		t.Errorf("no budget should never be exceeded: %+v", st)
	}
}

func TestMaskKeyNeverRevealsMoreThanPrefixAndLastFour(t *testing.T) {
	cases := map[string]string{
		"":                           "",
		"short":                      "••••",
		"sk-abcdefghijklmnop1234":    "sk-…1234",
		"xai-ABCDEFGHIJKLMNOPQRwxyz": "xai-…wxyz",
		"abcdefghijklmnopqrs":        "abc…pqrs",
	}
	for key, want := range cases {
		if got := MaskKey(key); got != want {
			t.Errorf("MaskKey(%q) = %q, want %q", key, got, want)
		}
	}
}

// Every setting has a limit and a sentence: the table covers each bound issue 19 named
// (endpoint length, control characters and escapes in names, a budget of 1e308) and the
// others next to them, and checks the value just inside each limit is accepted.
func TestEverySettingHasALimitWithASentence(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name  string
		field string // "" means the edit must be accepted
		edit  func(*Settings)
	}{
		{"endpoint at the limit", "", func(s *Settings) {
			s.Endpoint = "https://api.example.com/" + strings.Repeat("v", MaxEndpointLength-len("https://api.example.com/"))
		}},
		{"release feed over https", "", func(s *Settings) { s.Updates.Feed = "https://api.github.com/repos/o/r/releases/latest" }},
		{"release feed over http on this computer", "", func(s *Settings) { s.Updates.Feed = "http://127.0.0.1:8080/feed.json?x=1" }},
		{"release feed over http elsewhere", FieldUpdateFeed, func(s *Settings) { s.Updates.Feed = "http://example.com/feed" }},
		{"release feed with a password in it", FieldUpdateFeed, func(s *Settings) { s.Updates.Feed = "https://u:p@example.com/feed" }},
		{"release feed that is a file", FieldUpdateFeed, func(s *Settings) { s.Updates.Feed = "file:///etc/passwd" }},
		{"release feed with a line break", FieldUpdateFeed, func(s *Settings) { s.Updates.Feed = "https://example.com/a\nb" }},
		{"release feed of 120 KB", FieldUpdateFeed, func(s *Settings) { s.Updates.Feed = "https://" + strings.Repeat("a", 120<<10) + ".com" }},
		{"endpoint of 120 KB", FieldEndpoint, func(s *Settings) { s.Endpoint = "https://" + strings.Repeat("a", 120<<10) + ".com" }},
		{"user name with an escape sequence", FieldUserName, func(s *Settings) { s.UserName = "Ann\x1b[2J" }},
		{"user name with a bell", FieldUserName, func(s *Settings) { s.UserName = "Ann\a" }},
		{"user name with a NUL", FieldUserName, func(s *Settings) { s.UserName = "Ann\x00" }},
		{"user name with a C1 control", FieldUserName, func(s *Settings) { s.UserName = "Ann\u009b31m" }},
		{"user name with a bidi override", FieldUserName, func(s *Settings) { s.UserName = "Ann\u202egnp.exe" }},
		{"user name that is not UTF-8", FieldUserName, func(s *Settings) { s.UserName = "Ann\xff" }},
		{"user name in Persian with a joiner", "", func(s *Settings) { s.UserName = "می\u200cخواهم" }},
		{"user name of 100 letters outside ASCII", "", func(s *Settings) { s.UserName = strings.Repeat("é", MaxUserNameLength) }},
		{"user name of 101 letters", FieldUserName, func(s *Settings) { s.UserName = strings.Repeat("é", MaxUserNameLength+1) }},
		{"model with an escape", FieldModel, func(s *Settings) { s.Model = "gpt\x1b]0;x\a" }},
		{"model of 201 characters", FieldModel, func(s *Settings) { s.Model = strings.Repeat("m", MaxModelLength+1) }},
		{"cost budget of 1e308", FieldBudget, func(s *Settings) { s.Budget = Budget{Kind: BudgetCost, MonthlyCost: 1e308} }},
		{"cost budget of infinity", FieldBudget, func(s *Settings) { s.Budget = Budget{Kind: BudgetCost, MonthlyCost: inf} }},
		{"cost budget at the limit", "", func(s *Settings) { s.Budget = Budget{Kind: BudgetCost, MonthlyCost: MaxMonthlyCost} }},
		{"token budget over the limit", FieldBudget, func(s *Settings) { s.Budget = Budget{Kind: BudgetTokens, MonthlyTokens: MaxMonthlyTokens + 1} }},
		{"token budget at the limit", "", func(s *Settings) { s.Budget = Budget{Kind: BudgetTokens, MonthlyTokens: MaxMonthlyTokens} }},
		{"price of infinity", FieldPrices, func(s *Settings) {
			s.Budget = Budget{Kind: BudgetCost, MonthlyCost: 5, Prices: map[string]Price{"m": {PromptPerMillion: inf}}}
		}},
		{"price over the limit", FieldPrices, func(s *Settings) {
			s.Budget = Budget{Kind: BudgetCost, MonthlyCost: 5, Prices: map[string]Price{"m": {CompletionPerMillion: MaxPricePerMillion * 2}}}
		}},
		{"priced model name with a newline", FieldPrices, func(s *Settings) {
			s.Budget = Budget{Kind: BudgetCost, MonthlyCost: 5, Prices: map[string]Price{"m\n": {}}}
		}},
		{"price of NaN under no budget", FieldPrices, func(s *Settings) {
			s.Budget = Budget{Kind: BudgetNone, Prices: map[string]Price{"m": {CompletionPerMillion: math.NaN()}}}
		}},
		{"negative price under a token budget", FieldPrices, func(s *Settings) {
			s.Budget = Budget{Kind: BudgetTokens, MonthlyTokens: 5, Prices: map[string]Price{"m": {PromptPerMillion: -0.5}}}
		}},
		{"price for a blank model name", FieldPrices, func(s *Settings) {
			s.Budget = Budget{Kind: BudgetNone, Prices: map[string]Price{" ": {PromptPerMillion: 1}}}
		}},
		{"price at the limit", "", func(s *Settings) {
			s.Budget = Budget{Kind: BudgetCost, MonthlyCost: 5, Prices: map[string]Price{"m": {PromptPerMillion: MaxPricePerMillion}}}
		}},
		{"cost budget whose model has no price", FieldPrices, func(s *Settings) {
			s.Model = "grok-4"
			s.Budget = Budget{Kind: BudgetCost, MonthlyCost: 5}
		}},
		{"cost budget whose model has a price", "", func(s *Settings) {
			s.Model = "grok-4"
			s.Budget = Budget{Kind: BudgetCost, MonthlyCost: 5, Prices: map[string]Price{"grok-4": {}}}
		}},
		{"token budget whose model has no price", "", func(s *Settings) {
			s.Model = "grok-4"
			s.Budget = Budget{Kind: BudgetTokens, MonthlyTokens: 5}
		}},
		{"too many prices", FieldPrices, func(s *Settings) {
			p := map[string]Price{}
			for i := 0; i <= MaxPrices; i++ {
				p[fmt.Sprintf("m%d", i)] = Price{PromptPerMillion: 1}
			}
			s.Budget = Budget{Kind: BudgetCost, MonthlyCost: 5, Prices: p}
		}},
	}
	for _, c := range cases {
		s := DefaultSettings()
		c.edit(&s)
		err := s.Validate()
		if c.field == "" {
			if err != nil {
				t.Errorf("%s: refused: %v", c.name, err)
			}
			continue
		}
		var es FieldErrors
		if !errors.As(err, &es) || es.For(c.field) == "" {
			t.Errorf("%s: want an error on %s, got %v", c.name, c.field, err)
			continue
		}
		msg := es.For(c.field)
		if !strings.HasSuffix(msg, ".") || msg[0] < 'A' || msg[0] > 'Z' || len(msg) > 300 {
			t.Errorf("%s: the message should be one short sentence, got %q", c.name, msg)
		}
	}
}
