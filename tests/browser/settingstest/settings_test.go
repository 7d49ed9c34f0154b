// Package settingstest tests the settings window's page in headless Chromium against the
// real SettingsService (served through a JSON shim on loopback, which a stand-in for the
// Wails binding calls), a real SQLite store and the fake LLM server.
package settingstest

import (
	"context"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/clanker-desktop/clanker/app/desktop/settingswin"
	llmclient "github.com/clanker-desktop/clanker/app/llm"
	"github.com/clanker-desktop/clanker/app/sqlite"
	settingsui "github.com/clanker-desktop/clanker/frontend/settings"
	"github.com/clanker-desktop/clanker/tests/browser"
	"github.com/clanker-desktop/clanker/tests/fakellm"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

type fixture struct {
	store  *sqlite.Store
	url    string
	llm    *fakellm.Server
	llmURL string
	tab    context.Context
}

func setup(t *testing.T, opts ...func(*settingswin.SettingsService)) *fixture {
	t.Helper()
	store, err := sqlite.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return setupWith(t, store, opts...)
}

// setupWith serves the page on store (closed when the test ends).
func setupWith(t *testing.T, store *sqlite.Store, opts ...func(*settingswin.SettingsService)) *fixture {
	t.Helper()
	store.Secrets = nil // no keychain in tests: the key goes to the database
	t.Cleanup(func() { store.Close() })
	llm := fakellm.New(fakellm.Config{APIKey: "sk-test-123456"})
	llmURL := llm.Start()
	t.Cleanup(llm.Close)

	svc := &settingswin.SettingsService{Store: store, Probe: llmclient.Probe{}, Diagnostics: "engine: 2 conversations\nforeground: c-1 (active)",
		Memory: sqlite.MemoryEditor{Store: store, AppRunning: func() bool { return true }}}
	for _, o := range opts {
		o(svc)
	}
	standInApp(t, store)
	f := openPage(t, serveSettings(t, svc))
	f.store, f.llm, f.llmURL = store, llm, llmURL
	return f
}

// serveSettings serves the settings page and svc on loopback until the test ends, and
// returns the page's address.
func serveSettings(t *testing.T, svc *settingswin.SettingsService) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: settingsHandler(svc, settingsAssets())}
	go srv.Serve(ln) //nolint:errcheck // ends at Close
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

// settingsAssets are the settings page's files.
func settingsAssets() fs.FS {
	assets, _ := fs.Sub(settingsui.FS, ".")
	return assets
}

// openPage opens the settings page at url in a new browser, with the stand-in binding.
func openPage(t *testing.T, url string) *fixture {
	t.Helper()
	b := browser.New(t)
	f := &fixture{url: url, tab: b.NewTab(t)}
	f.run(t, chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := cdppage.AddScriptToEvaluateOnNewDocument(serviceStandIn).Do(ctx)
		return err
	}), chromedp.Navigate(f.url), chromedp.WaitVisible(`body[data-ready="true"]`))
	return f
}

func (f *fixture) run(t *testing.T, actions ...chromedp.Action) {
	t.Helper()
	ctx, cancel := context.WithTimeout(f.tab, 45*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// waitText polls the element's text until it contains want.
func (f *fixture) waitText(t *testing.T, sel, want string) string {
	t.Helper()
	var got string
	testkit.WaitFor(t, 45*time.Second, fmt.Sprintf("%s to contain %q", sel, want), func() (bool, string) {
		f.run(t, chromedp.TextContent(sel, &got, chromedp.ByQuery))
		return strings.Contains(got, want), fmt.Sprintf("it says %q", got)
	})
	return got
}

// setValue clears the field, then types v into it as a user would (key events, so the
// page's input handlers run).
func setValue(sel, v string) chromedp.Action {
	clear := fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.focus(); e.select && e.select(); e.value = ""; return true })()`, sel)
	var ok bool
	return chromedp.Tasks{chromedp.Evaluate(clear, &ok), chromedp.SendKeys(sel, v, chromedp.ByQuery)}
}

func TestFirstRunBannerNamesWhatIsMissing(t *testing.T) {
	f := setup(t)
	got := f.waitText(t, "#banner", "not set up yet")
	for _, want := range []string{"the endpoint, an API key, a model and your name"} {
		if !strings.Contains(got, want) {
			t.Errorf("first-run banner: want it to name %q, got %q", want, got)
		}
	}
}

// In the demo, with no endpoint stored, the demo model answers: the window says so and
// does not claim Clanker is not set up. Once a real endpoint is stored, the usual
// missing-fields banner is back.
func TestDemoSettingsSayTheDemoModelAnswers(t *testing.T) {
	f := setup(t, func(s *settingswin.SettingsService) { s.Demo = true })
	got := f.waitText(t, "#banner", "demo model answers")
	if strings.Contains(got, "not set up") {
		t.Fatalf("demo banner still says Clanker is not set up: %q", got)
	}
	st, err := f.store.Settings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	st.Endpoint = f.llmURL
	if _, err := f.store.SaveSettings(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	f.run(t, chromedp.Reload(), chromedp.WaitVisible(`body[data-ready="true"]`))
	f.waitText(t, "#banner", "not set up yet")
}

func TestInlineValidationShowsTheSettingsPackageSentences(t *testing.T) {
	f := setup(t)
	f.run(t, setValue("#historySize", "5"), setValue("#endpoint", "http://example.com/v1"))
	f.waitText(t, `.err[data-for="historySize"]`, "Message history size must be between 10 and 500 (you entered 5).")
	f.waitText(t, `.err[data-for="endpoint"]`, "https")
	// Saving with invalid fields stores nothing.
	f.run(t, chromedp.Click("#save", chromedp.ByQuery))
	f.waitText(t, "#saveResult", "Not saved")
	st, err := f.store.Settings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.HistorySize != 20 || st.Endpoint != "" {
		t.Fatalf("an invalid save must store nothing: history %d endpoint %q", st.HistorySize, st.Endpoint)
	}
	// Fixing the field clears its message.
	f.run(t, setValue("#historySize", "40"))
	testkit.WaitFor(t, 45*time.Second, "the history size message to go once the field is fixed", func() (bool, string) {
		var msg string
		f.run(t, chromedp.TextContent(`.err[data-for="historySize"]`, &msg, chromedp.ByQuery))
		return msg == "", fmt.Sprintf("the message still says %q", msg)
	})
}

func TestTestConnectionListsModelsAndReportsAWrongKey(t *testing.T) {
	f := setup(t)
	f.run(t, setValue("#endpoint", f.llmURL), setValue("#apiKey", "sk-wrong"), setValue("#model", "fake-model"))
	f.run(t, chromedp.Click("#test", chromedp.ByQuery))
	f.waitText(t, "#testResult.bad", "")
	bad := f.waitText(t, "#testResult", "")
	if bad == "" || strings.Contains(bad, "Connected") || strings.Contains(bad, "Testing") {
		t.Fatalf("a wrong key: want a failure message, got %q", bad)
	}

	f.run(t, setValue("#apiKey", "sk-test-123456"), chromedp.Click("#test", chromedp.ByQuery))
	f.waitText(t, "#testResult", "Connected")
	list := f.waitText(t, "#modelList", "fake-model")
	for _, m := range fakellm.DefaultModels {
		if !strings.Contains(list, m) {
			t.Errorf("model list: want %q listed, got %q", m, list)
		}
	}
	sawChat := false
	for _, r := range f.llm.Requests() {
		sawChat = sawChat || r.Endpoint == fakellm.EndpointChat
	}
	if !sawChat {
		t.Errorf("Test connection must send a real chat request through the LLM client; the fake saw %+v", f.llm.Requests())
	}
}

// Save in the settings page reaches a running app's store watcher (how a change applies
// without a restart). The order is what is checked: nothing before the click, the change
// after it. How fast the watcher polls is app/sqlite's test; here the bound is generous.
func TestSaveReachesAStoreWatch(t *testing.T) {
	f := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes, err := f.store.Watch(ctx, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	f.run(t, setValue("#endpoint", f.llmURL), setValue("#apiKey", "sk-test-123456"),
		setValue("#model", "fake-model"), setValue("#userName", "Dana"))
	select {
	case c := <-changes:
		t.Fatalf("the watcher reported %+v before Save was clicked; typing must not store anything", c)
	default:
	}
	f.run(t, chromedp.Click("#save", chromedp.ByQuery))
	select {
	case c := <-changes:
		if !c.Settings {
			t.Fatalf("watch reported %+v, want a settings change", c)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no settings change reached the store's Watch within 30 s of Save")
	}
	f.waitText(t, "#saveResult", "Saved")
	st, _ := f.store.Settings(context.Background())
	key, _, _ := f.store.APIKey(context.Background())
	if st.UserName != "Dana" || st.Model != "fake-model" || key != "sk-test-123456" {
		t.Fatalf("stored after Save: name %q model %q key set %v", st.UserName, st.Model, key == "sk-test-123456")
	}
	var html string
	f.run(t, chromedp.OuterHTML("html", &html, chromedp.ByQuery))
	if strings.Contains(html, "sk-test-123456") {
		t.Fatal("the page shows the full API key after saving; it must only ever see it masked")
	}
}

func TestDiagnosticsViewShowsTheSnapshotWithACopyButton(t *testing.T) {
	f := setup(t)
	f.run(t, chromedp.Click(`nav .tab[data-tab="diagnostics"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#copyDiag", chromedp.ByQuery))
	f.waitText(t, "#diagnostics", "foreground: c-1 (active)")
	f.run(t, chromedp.Click("#copyDiag", chromedp.ByQuery))
	f.waitText(t, "#copyResult", "C") // "Copied." or "Selected: press Ctrl+C to copy."
}

// The window says what it costs while open and that closing it gives that back (the
// figures are BenchmarkAppMemory's settings-window and settings-extra; the full-app test
// ClosingTheSettingsWindowEndsItsProcess checks the closing).
func TestAboutSaysWhatTheWindowCostsWhileOpen(t *testing.T) {
	f := setup(t)
	got := f.waitText(t, "#aboutText", "150 MB")
	for _, want := range []string{"80 MB", "Closing the window ends it", "keeps working without it"} {
		if !strings.Contains(got, want) {
			t.Errorf("About text %q: want it to say %q", got, want)
		}
	}
}
