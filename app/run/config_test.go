package run

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/llm"
	"github.com/clanker-desktop/clanker/app/sqlite"
)

func openTestStore(t *testing.T) *sqlite.Store {
	t.Helper()
	s, err := OpenStore(t.TempDir(), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestConfigSetStoresValuesAndGetReadsThemBackInEitherSpelling(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	for _, kv := range [][2]string{
		{"user_name", "Ada"}, {"endpoint", "http://127.0.0.1:9/v1"}, {"model", "m1"},
		{"historySize", "40"}, {"web_search", "true"}, {"notifications.errors", "false"},
	} {
		if err := ConfigSet(ctx, s, kv[0], kv[1]); err != nil {
			t.Fatalf("config set %s %s: %v", kv[0], kv[1], err)
		}
	}
	st, err := s.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.UserName != "Ada" || st.Model != "m1" || st.HistorySize != 40 || !st.WebSearch || st.Notifications.Errors {
		t.Fatalf("stored settings = %+v, want the values just set", st)
	}
	if got, err := ConfigGet(ctx, s, "userName"); err != nil || got != "Ada" {
		t.Fatalf("config get userName = %q, %v; want Ada", got, err)
	}
}

func TestConfigSetRefusesBadValuesAndChangesNothing(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	for _, kv := range [][2]string{{"historySize", "5"}, {"historySize", "many"}, {"endpoint", "ftp://x"}, {"nope", "1"}} {
		if err := ConfigSet(ctx, s, kv[0], kv[1]); err == nil {
			t.Errorf("config set %s %q succeeded; want a clear error", kv[0], kv[1])
		}
	}
	st, _ := s.Settings(ctx)
	if st.HistorySize != engine.DefaultHistorySize || st.Endpoint != "" {
		t.Fatalf("refused values changed the settings: %+v", st)
	}
}

func TestAPIKeyIsOnlyEverShownMasked(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	const key = "sk-test-0123456789abcdefghijklmnop"
	if err := ConfigSet(ctx, s, "api_key", key); err != nil {
		t.Fatal(err)
	}
	got, err := ConfigGet(ctx, s, "apiKey")
	if err != nil || strings.Contains(got, key) || got == "(not set)" {
		t.Fatalf("config get apiKey = %q, %v; want a masked key", got, err)
	}
	list, err := ConfigList(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range list {
		if strings.Contains(e.Value, key[6:]) {
			t.Fatalf("config list shows the key in %s=%s", e.Key, e.Value)
		}
	}
	if k, _, _ := s.APIKey(ctx); k != key {
		t.Fatalf("stored key = %q, want the key that was set", k)
	}
}

func TestMissingSettingsAreNamedInWords(t *testing.T) {
	want := "the endpoint,an API key,a model,your name"
	if got := strings.Join(engine.DefaultSettings().MissingLabels(false), ","); got != want {
		t.Fatalf("missing = %q, want %q", got, want)
	}
	st := engine.DefaultSettings()
	st.Endpoint, st.Model, st.UserName = "http://127.0.0.1:1/v1", "m", "Ada"
	if got := st.MissingLabels(true); len(got) != 0 || !st.Configured(true) {
		t.Fatalf("complete settings with a key: missing = %q, want none", got)
	}
}

func TestMessagesURLMustBeHTTPSOrLoopbackHTTP(t *testing.T) {
	for u, ok := range map[string]bool{
		"https://messages.google.com/web": true, "http://127.0.0.1:8080/web": true,
		"http://example.com/web": false, "file:///etc/passwd": false, "javascript:alert(1)": false,
	} {
		if err := CheckMessagesURL(u); (err == nil) != ok {
			t.Errorf("CheckMessagesURL(%q) = %v, want ok=%v", u, err, ok)
		}
	}
}

// A stored http:// endpoint that is not loopback (an older or hand-edited database) is
// refused when the client is built for a request, before the key can be sent, and the
// adapter turns that into the settings class the engine shows as a banner.
func TestStoredInsecureEndpointIsRefusedBeforeEveryRequest(t *testing.T) {
	st := engine.DefaultSettings()
	st.Endpoint, st.Model, st.UserName = "http://api.example.com/v1", "m", "Ada"
	a := &App{ctx: context.Background(), store: openTestStore(t)}
	a.cur.Store(&effective{st: st, key: "sk-secret-0123456789", hasKey: true})
	cfg, err := a.llmConfig("c1")
	if !errors.Is(err, engine.ErrEndpointInsecure) {
		t.Fatalf("llmConfig with a stored http endpoint = %+v, %v; want ErrEndpointInsecure", cfg, err)
	}
	if cfg.APIKey != "" {
		t.Fatal("the refused config still carries the API key")
	}
	adapter := &llm.EngineAdapter{Config: a.llmConfig, Memory: a.store, Usage: a.store, Logger: slog.New(slog.DiscardHandler)}
	_, err = adapter.Complete(context.Background(), engine.LLMRequest{Kind: engine.RequestReply, Conversation: "c1"})
	var le *engine.LLMError
	if !errors.As(err, &le) || le.Class != engine.ErrSettings || !strings.Contains(le.UserText, "https://") {
		t.Fatalf("adapter error = %v; want the settings class with the endpoint sentence", err)
	}

	st.Endpoint = "http://127.0.0.1:9/v1/"
	a.cur.Store(&effective{st: st, key: "k", hasKey: true})
	if cfg, err := a.llmConfig("c1"); err != nil || cfg.Endpoint != "http://127.0.0.1:9/v1" {
		t.Fatalf("loopback endpoint: llmConfig = %+v, %v; want it accepted and normalised", cfg, err)
	}
}

// A cost budget set from the command line while the model has no price is refused with the
// engine's sentence; with the price in the same value it is stored.
func TestConfigSetRefusesACostBudgetWithoutThePriceOfTheModel(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	if err := ConfigSet(ctx, s, "model", "grok-4"); err != nil {
		t.Fatal(err)
	}
	err := ConfigSet(ctx, s, "budget", `{"kind":"cost","monthlyCost":5}`)
	if err == nil || !strings.Contains(err.Error(), `no price is set for model "grok-4"`) {
		t.Fatalf("cost budget without the model's price: got %v", err)
	}
	if err := ConfigSet(ctx, s, "budget", `{"kind":"cost","monthlyCost":5,"prices":{"grok-4":{"promptPerMillion":3,"completionPerMillion":15}}}`); err != nil {
		t.Fatalf("cost budget with the model's price: %v", err)
	}
	if st, _ := s.Settings(ctx); st.Budget.Kind != engine.BudgetCost || st.Budget.Prices["grok-4"].CompletionPerMillion != 15 {
		t.Fatalf("stored budget %+v", st.Budget)
	}
}

// Every refused value gets a sentence that names the setting and what it takes, never the
// JSON decoder's text about Go types and struct fields, and nothing is stored.
func TestConfigSetErrorsAreSentencesWithoutGoInternals(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	for _, c := range []struct{ key, value, want string }{
		{"historySize", "abc", "historySize takes a number like 20"},
		{"historySize", "1e308", "historySize takes a whole number like 20"},
		{"historySize", "2.5", "historySize takes a whole number like 20"},
		{"webSearch", "3", "webSearch takes true or false"},
		{"notifications.errors", "yes", "notifications.errors takes true or false"},
		{"budget", `{"kind":"cost","monthlyCost":"x"}`, "budget.monthlyCost takes a number"},
		{"budget", `{"kind":"tokens","monthlyTokens":1e30}`, "budget.monthlyTokens takes a whole number"},
		{"budget", `[1]`, "budget takes a JSON object like {"},
		{"budget", `{"kind":"cost","monthlyCost":1e308}`, "A cost budget can be at most"},
		{"budget", `{"kind":"cost","monthlyCost":5,"bogus":1}`, "budget"},
		{"endpoint", "https://" + strings.Repeat("a", 120<<10) + ".com/v1", "The API endpoint is too long"},
		{"userName", "Ann\x1b[31m", "Your name cannot contain control characters"},
	} {
		err := ConfigSet(ctx, s, c.key, c.value)
		if err == nil {
			t.Errorf("config set %s %.40q was accepted", c.key, c.value)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) {
			t.Errorf("config set %s %.40q: want %q in the error, got %q", c.key, c.value, c.want, msg)
		}
		for _, internal := range []string{"Go struct", "json:", "unmarshal", "settings.Settings", "reflect", "int64", "float64"} {
			if strings.Contains(msg, internal) {
				t.Errorf("config set %s %.40q: the error quotes Go internals (%q): %s", c.key, c.value, internal, msg)
			}
		}
		if len(msg) > 400 {
			t.Errorf("config set %s: the error is %d bytes long; the value should be clipped", c.key, len(msg))
		}
	}
	if st, _ := s.Settings(ctx); st.HistorySize != engine.DefaultHistorySize || st.UserName != "" || st.Budget.Kind != engine.BudgetNone {
		t.Errorf("a refused value was stored: %+v", st)
	}
}
