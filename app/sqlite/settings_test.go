package sqlite

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

func TestSettingsDefaultUntilSavedThenRoundTripIncludingHourZero(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	got, err := s.Settings(ctx)
	if err != nil || !reflect.DeepEqual(got, engine.DefaultSettings()) {
		t.Fatalf("unsaved settings = %+v (%v), want defaults", got, err)
	}
	in := engine.DefaultSettings()
	in.Endpoint = "https://api.x.ai/v1/"
	in.Model, in.UserName = "grok-4", "Ann"
	in.QuietStartHour, in.QuietStopHour = 0, 0 // the extension could never save 0
	in.InactiveMode = engine.InactiveIdle
	in.Budget = engine.Budget{Kind: engine.BudgetCost, MonthlyCost: 20, Prices: map[string]engine.Price{"grok-4": {PromptPerMillion: 3, CompletionPerMillion: 15}}}
	saved, err := s.SaveSettings(ctx, in)
	if err != nil {
		t.Fatalf("save valid settings: %v", err)
	}
	if saved.Endpoint != "https://api.x.ai/v1" {
		t.Errorf("saved endpoint = %q, want trailing slash removed", saved.Endpoint)
	}
	got, err = s.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Endpoint != "https://api.x.ai/v1" || got.QuietStartHour != 0 || got.QuietStopHour != 0 ||
		got.InactiveMode != engine.InactiveIdle || got.Budget.Prices["grok-4"].CompletionPerMillion != 15 {
		t.Errorf("reloaded settings = %+v", got)
	}
}

func TestInvalidSettingsAreRefusedAndNothingIsWritten(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	good := engine.DefaultSettings()
	good.Model = "first"
	if _, err := s.SaveSettings(ctx, good); err != nil {
		t.Fatal(err)
	}
	bad := good
	bad.Model = "second"
	bad.Endpoint = "http://api.openai.com/v1"
	bad.HistorySize = 5000
	_, err := s.SaveSettings(ctx, bad)
	var es engine.FieldErrors
	if !errors.As(err, &es) || es.For(engine.FieldEndpoint) == "" || es.For(engine.FieldHistorySize) == "" {
		t.Fatalf("want field errors for endpoint and history size, got %v", err)
	}
	if got, _ := s.Settings(ctx); got.Model != "first" {
		t.Errorf("a refused save changed stored settings: model %q", got.Model)
	}
}

func TestStoredSettingsFromAnOlderVersionGetDefaultsAndClamping(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	if _, err := s.db.Exec(`INSERT INTO settings (key, value, updated_at) VALUES ('settings', '{"model":"m","historySize":3,"unknownFutureField":1}', 0)`); err != nil {
		t.Fatal(err)
	}
	got, err := s.Settings(ctx)
	if err != nil || got.Model != "m" || got.HistorySize != 10 || !got.RelaxedResponsiveness || got.NewsMaxSearches != 10 {
		t.Errorf("old settings = %+v (%v); want model m, history clamped to 10, other defaults", got, err)
	}
	if _, err := s.db.Exec(`UPDATE settings SET value = '{broken' WHERE key = 'settings'`); err != nil {
		t.Fatal(err)
	}
	got, err = s.Settings(ctx)
	if err == nil || got.HistorySize != 20 {
		t.Errorf("unreadable settings should give defaults and an error, got %+v, %v", got, err)
	}
	var raw string
	s.db.QueryRow(`SELECT value FROM settings WHERE key = 'settings'`).Scan(&raw)
	if raw != "{broken" {
		t.Errorf("reading unreadable settings must not overwrite them, row is now %q", raw)
	}
}

// captureLog returns a logger that records everything, at every level.
func captureLog() (*slog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	return slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})), &buf
}

const testKey = "sk-test-0123456789abcdefWXYZ"

// memKeychain is an in-memory keychain; fail makes every call fail, as on a desktop whose
// secret service is missing.
type memKeychain struct {
	key  string
	fail error
}

func (k *memKeychain) GetSecret() (string, error) {
	switch {
	case k.fail != nil:
		return "", k.fail
	case k.key == "":
		return "", engine.ErrNoSecret
	}
	return k.key, nil
}

func (k *memKeychain) SetSecret(key string) error {
	if k.fail != nil {
		return k.fail
	}
	k.key = key
	return nil
}

func (k *memKeychain) DeleteSecret() error {
	if k.fail != nil {
		return k.fail
	}
	k.key = ""
	return nil
}

func TestAPIKeyGoesToTheKeychainAndNotTheDatabase(t *testing.T) {
	s, _ := openTest(t)
	s.Secrets = &memKeychain{}
	ctx := context.Background()
	loc, err := s.SetAPIKey(ctx, "  "+testKey+"\n")
	if err != nil || loc != engine.KeyKeychain {
		t.Fatalf("SetAPIKey = %v, %v; want keychain", loc, err)
	}
	var n int
	s.db.QueryRow(`SELECT count(*) FROM settings WHERE value LIKE '%' || ? || '%'`, testKey).Scan(&n)
	if n != 0 {
		t.Errorf("key stored in the database although the keychain worked")
	}
	got, loc, err := s.APIKey(ctx)
	if err != nil || got != testKey || loc != engine.KeyKeychain {
		t.Errorf("APIKey = %q, %v, %v; want the trimmed key from the keychain", got, loc, err)
	}
	masked, _, _ := s.MaskedAPIKey(ctx)
	if masked != "sk-…WXYZ" {
		t.Errorf("masked key = %q, want sk-…WXYZ", masked)
	}
	if _, err := s.SetAPIKey(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if got, loc, _ := s.APIKey(ctx); got != "" || loc != engine.KeyNone {
		t.Errorf("after clearing, APIKey = %q at %v; want none", got, loc)
	}
}

func TestAPIKeyFallsBackToTheDatabaseWithoutLoggingIt(t *testing.T) {
	s, _ := openTest(t)
	s.Secrets = &memKeychain{fail: errors.New("no secret service on this bus")}
	log, buf := captureLog()
	s.Log = log
	ctx := context.Background()
	loc, err := s.SetAPIKey(ctx, testKey)
	if err != nil || loc != engine.KeyDatabase {
		t.Fatalf("SetAPIKey without keychain = %v, %v; want database", loc, err)
	}
	got, loc, err := s.APIKey(ctx)
	if err != nil || got != testKey || loc != engine.KeyDatabase {
		t.Errorf("APIKey = %q, %v, %v; want the key from the database", got, loc, err)
	}
	if !strings.Contains(buf.String(), "keychain unavailable") {
		t.Errorf("fallback should be logged as a warning, log was %q", buf.String())
	}
	if p := s.KeychainProblem(); p == nil || p.Error() != "no secret service on this bus" {
		t.Errorf("KeychainProblem = %v, want the keychain's failure (why the key is in the database)", p)
	}
	// Once the keychain answers again, there is no problem to report.
	s.Secrets = &memKeychain{}
	if _, _, err := s.APIKey(ctx); err != nil {
		t.Fatal(err)
	}
	if p := s.KeychainProblem(); p != nil {
		t.Errorf("KeychainProblem after the keychain answered = %v, want nil", p)
	}
	if strings.Contains(buf.String(), testKey) || strings.Contains(buf.String(), "0123456789abcdef") {
		t.Errorf("the log contains the API key: %q", buf.String())
	}
}

func TestAPIKeyWithNoKeychainConfiguredUsesTheDatabase(t *testing.T) {
	s, _ := openTest(t)
	s.Secrets = nil
	ctx := context.Background()
	if loc, err := s.SetAPIKey(ctx, testKey); err != nil || loc != engine.KeyDatabase {
		t.Fatalf("SetAPIKey = %v, %v", loc, err)
	}
	if got, _, _ := s.APIKey(ctx); got != testKey {
		t.Errorf("APIKey = %q", got)
	}
}

func TestAPIKeyWithWhitespaceInsideIsRefused(t *testing.T) {
	s, _ := openTest(t)
	if _, err := s.SetAPIKey(context.Background(), "sk-abc def"); err == nil {
		t.Errorf("a key with a space inside was accepted")
	}
	if _, err := s.SetAPIKey(context.Background(), strings.Repeat("k", engine.MaxAPIKeyLength+1)); err == nil {
		t.Errorf("an oversized key was accepted")
	}
}

// waitChange waits up to limit for a change on ch and returns it.
func waitChange(t *testing.T, ch <-chan Change, limit time.Duration) (Change, time.Duration) {
	t.Helper()
	start := time.Now()
	select {
	case c, ok := <-ch:
		if !ok {
			t.Fatalf("watch channel closed early")
		}
		return c, time.Since(start)
	case <-time.After(limit):
		t.Fatalf("no change reported within %v", limit)
		return Change{}, 0
	}
}

func TestSavedChangeReachesAnotherHandleWithinASecond(t *testing.T) {
	dir := t.TempDir()
	app := openAt(t, dir)    // the running app
	window := openAt(t, dir) // the settings window, another connection pool on the same file
	if window.Recovery() != nil {
		t.Fatalf("second handle on a live database recovered: %+v", window.Recovery())
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes, err := app.Watch(ctx, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}

	st := engine.DefaultSettings()
	st.Model = "changed-in-window"
	if _, err := window.SaveSettings(ctx, st); err != nil {
		t.Fatal(err)
	}
	c, took := waitChange(t, changes, time.Second)
	if !c.Settings || c.Conversations {
		t.Errorf("settings save reported as %+v, want Settings only", c)
	}
	t.Logf("settings change seen after %v", took)
	if got, _ := app.Settings(ctx); got.Model != "changed-in-window" {
		t.Errorf("app reloaded model %q, want changed-in-window", got.Model)
	}

	if _, err := window.SetAPIKey(ctx, testKey); err != nil {
		t.Fatal(err)
	}
	if c, _ := waitChange(t, changes, time.Second); !c.Settings {
		t.Errorf("API key change reported as %+v, want Settings", c)
	}

	if err := window.SetMode(ctx, "c1", engine.ModeActive); err != nil {
		t.Fatal(err)
	}
	if _, err := window.DeactivateAll(ctx); err != nil {
		t.Fatal(err)
	}
	if c, _ := waitChange(t, changes, time.Second); !c.Conversations {
		t.Errorf("deactivate all reported as %+v, want Conversations", c)
	}

	cancel()
	select {
	case _, ok := <-changes:
		if ok {
			// A change may have been pending; the next receive must see the close.
			if _, ok := <-changes; ok {
				t.Errorf("watch channel still open after cancel")
			}
		}
	case <-time.After(2 * time.Second):
		t.Errorf("watch channel not closed after cancel")
	}
}

func TestWatchRejectsANonPositiveInterval(t *testing.T) {
	s, _ := openTest(t)
	if _, err := s.Watch(context.Background(), 0); err == nil {
		t.Errorf("Watch(0) should be refused")
	}
}
