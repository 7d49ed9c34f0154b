package settingstest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/clanker-desktop/clanker/app/desktop/settingswin"
	"github.com/clanker-desktop/clanker/tests/fakellm"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// Provider presets, on the real page and service. The presets are the real list with each
// endpoint pointed at a fake server on loopback (the hosted providers cannot be reached from
// a test): "OpenAI" at a fake that wants the test key; "Ollama" at one that, like a local
// server, takes the stand-in key and lists its own models; "xAI" at a third one that records
// what reaches it.

type presetServers struct {
	openai, ollama, xai          *fakellm.Server
	openaiURL, ollamaURL, xaiURL string
	opened                       func() []string
}

// withPresets points the presets at fake servers and records the links the page opens.
func withPresets(t *testing.T) (*presetServers, func(*settingswin.SettingsService)) {
	t.Helper()
	ps := &presetServers{}
	ps.openai = fakellm.New(fakellm.Config{APIKey: "sk-test-123456"})
	ps.openaiURL = ps.openai.Start()
	t.Cleanup(ps.openai.Close)
	ps.ollama = fakellm.New(fakellm.Config{APIKey: "ollama", Models: []string{"llama3.2:latest", "qwen2.5:7b"}})
	ps.ollamaURL = ps.ollama.Start()
	t.Cleanup(ps.ollama.Close)
	ps.xai = fakellm.New(fakellm.Config{Models: []string{"grok-4"}})
	ps.xaiURL = ps.xai.Start()
	t.Cleanup(ps.xai.Close)
	var mu sync.Mutex
	var opened []string
	ps.opened = func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), opened...)
	}
	return ps, func(s *settingswin.SettingsService) {
		s.OpenURL = func(u string) error {
			mu.Lock()
			defer mu.Unlock()
			opened = append(opened, u)
			return nil
		}
		s.Presets = nil
		for _, p := range settingswin.DefaultPresets {
			switch p.ID {
			case "openai":
				p.Endpoint = ps.openaiURL
			case "ollama":
				p.Endpoint = ps.ollamaURL
			case "xai":
				p.Endpoint = ps.xaiURL
			}
			s.Presets = append(s.Presets, p)
		}
	}
}

func value(t *testing.T, f *fixture, sel string) string {
	t.Helper()
	var v string
	f.run(t, chromedp.Value(sel, &v, chromedp.ByQuery))
	return v
}

func selectPreset(id string) chromedp.Action {
	return chromedp.SetValue("#preset", id, chromedp.ByQuery)
}

// choose selects a preset the way a user does: the select's value, then its change event.
func choose(t *testing.T, f *fixture, id string) {
	t.Helper()
	var ok bool
	f.run(t, selectPreset(id), chromedp.Evaluate(`document.getElementById('preset').dispatchEvent(new Event('change', {bubbles: true}))`, &ok))
}

func TestTheProviderListOffersEveryPresetAndCustom(t *testing.T) {
	f := setup(t)
	var names []string
	f.run(t, chromedp.Evaluate(`Array.from(document.querySelectorAll('#preset option')).map(o => o.textContent)`, &names))
	want := []string{"Choose a provider...", "OpenAI", "xAI (Grok)", "OpenRouter", "Ollama (this computer)", "LM Studio (this computer)", "Custom endpoint"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Fatalf("provider list: got %q, want %q", names, want)
	}
}

// A server on this computer: choosing it fills its endpoint and the stand-in key, lists its
// models at once (no key to fetch first), a click on one fills the model, and Save stores
// all of it.
func TestALocalServerPresetListsItsModelsAndSaves(t *testing.T) {
	ps, opt := withPresets(t)
	f := setup(t, opt)
	choose(t, f, "ollama")
	if got := value(t, f, "#endpoint"); got != ps.ollamaURL {
		t.Fatalf("choosing Ollama: endpoint %q, want %q", got, ps.ollamaURL)
	}
	if got := value(t, f, "#apiKey"); got != "ollama" {
		t.Fatalf("choosing Ollama: key field %q, want the stand-in \"ollama\"", got)
	}
	f.waitText(t, "#keyHint", "needs no key")
	f.waitText(t, "#presetHint", "Runs on this computer")
	list := f.waitText(t, "#modelList", "llama3.2:latest")
	if !strings.Contains(list, "qwen2.5:7b") || strings.Contains(list, "fake-model") {
		t.Fatalf("the model list should be the local server's own: %q", list)
	}
	f.waitText(t, "#testResult", "Connected: the server lists 2 models")
	f.run(t, chromedp.Click(`#modelList button.pickModel`, chromedp.ByQuery))
	if got := value(t, f, "#model"); got != "llama3.2:latest" {
		t.Fatalf("clicking the first listed model: model field %q, want llama3.2:latest", got)
	}
	sawKey := false
	for _, r := range ps.ollama.Requests() {
		sawKey = sawKey || (r.Endpoint == fakellm.EndpointModels && r.Header.Get("Authorization") == "Bearer ollama")
	}
	if !sawKey {
		t.Fatalf("the local server was not asked for its models with the stand-in key: %+v", ps.ollama.Requests())
	}

	f.run(t, setValue("#userName", "Dana"), chromedp.Click("#save", chromedp.ByQuery))
	f.waitText(t, "#saveResult", "Saved")
	st, err := f.store.Settings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	key, _, _ := f.store.APIKey(context.Background())
	if st.Endpoint != ps.ollamaURL || st.Model != "llama3.2:latest" || key != "ollama" {
		t.Fatalf("saved: endpoint %q model %q key %q; want the local server, its model and the stand-in key", st.Endpoint, st.Model, key)
	}
	// After the save the page still names the preset.
	if got := value(t, f, "#preset"); got != "ollama" {
		t.Fatalf("after saving, the provider list shows %q, want ollama", got)
	}
}

// A hosted provider: its endpoint is filled, the page links to its key page (opened in the
// browser through the service, which opens nothing else), Test connection asks for a key
// first, and with the key lists the models.
func TestAHostedPresetLinksToItsKeyPageAndListsModelsWithTheKey(t *testing.T) {
	ps, opt := withPresets(t)
	var svc *settingswin.SettingsService
	f := setup(t, opt, func(s *settingswin.SettingsService) { svc = s })
	choose(t, f, "openai")
	if got := value(t, f, "#endpoint"); got != ps.openaiURL {
		t.Fatalf("choosing OpenAI: endpoint %q, want %q", got, ps.openaiURL)
	}
	if got := value(t, f, "#apiKey"); got != "" {
		t.Fatalf("a hosted provider needs the user's own key, but the key field holds %q", got)
	}
	f.waitText(t, "#keyLink", "platform.openai.com/api-keys")
	f.run(t, chromedp.Click("#keyLink", chromedp.ByQuery))
	f.waitText(t, "#linkResult", "Opened in your browser")
	if got := ps.opened(); len(got) != 1 || got[0] != "https://platform.openai.com/api-keys" {
		t.Fatalf("the key link opened %q, want only https://platform.openai.com/api-keys", got)
	}
	if err := svc.OpenLink("https://evil.example/"); err == nil {
		t.Fatal("OpenLink opened an address the window does not link to")
	}

	f.run(t, chromedp.Click("#test", chromedp.ByQuery))
	f.waitText(t, "#testResult", "Enter an API key first.")
	f.run(t, setValue("#apiKey", "sk-test-123456"), chromedp.Click("#test", chromedp.ByQuery))
	f.waitText(t, "#testResult", "Connected")
	f.waitText(t, "#modelList", "fake-model-mini")
}

// Typing an endpoint picks its preset, or Custom; choosing Custom keeps what was typed.
func TestTypingAnEndpointSelectsItsPresetOrCustom(t *testing.T) {
	ps, opt := withPresets(t)
	f := setup(t, opt)
	f.run(t, setValue("#endpoint", ps.xaiURL+"/"))
	testkit.WaitFor(t, 30*time.Second, "the provider list to follow the typed endpoint", func() (bool, string) {
		v := value(t, f, "#preset")
		return v == "xai", "it shows " + v
	})
	f.run(t, setValue("#endpoint", "https://llm.example.org/v1"))
	testkit.WaitFor(t, 30*time.Second, "a custom endpoint to select Custom", func() (bool, string) {
		v := value(t, f, "#preset")
		return v == "custom", "it shows " + v
	})
	choose(t, f, "custom")
	if got := value(t, f, "#endpoint"); got != "https://llm.example.org/v1" {
		t.Fatalf("choosing Custom changed the typed endpoint to %q", got)
	}
	f.waitText(t, "#presetHint", "Any OpenAI-compatible server")
}

// A key stored for one provider is not sent to another: after choosing xAI, Test connection
// without a typed key asks for xAI's key and nothing reaches xAI's server.
func TestTheStoredKeyIsNotSentToANewlyChosenProvider(t *testing.T) {
	ps, opt := withPresets(t)
	f := setup(t, opt)
	st, err := f.store.Settings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	st.Endpoint = ps.openaiURL
	if _, err := f.store.SaveSettings(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.SetAPIKey(context.Background(), "sk-test-123456"); err != nil {
		t.Fatal(err)
	}
	f.run(t, chromedp.Reload(), chromedp.WaitVisible(`body[data-ready="true"]`))
	if got := value(t, f, "#preset"); got != "openai" {
		t.Fatalf("the stored endpoint is OpenAI's preset, but the list shows %q", got)
	}
	// Test connection on the stored provider uses the stored key.
	f.run(t, chromedp.Click("#test", chromedp.ByQuery))
	f.waitText(t, "#testResult", "Connected")

	choose(t, f, "xai")
	f.waitText(t, "#keyHint", "The stored key was saved for "+ps.openaiURL)
	f.run(t, chromedp.Click("#test", chromedp.ByQuery))
	f.waitText(t, "#testResult", "Enter the API key for this endpoint")
	for _, r := range ps.xai.Requests() {
		if strings.Contains(r.Header.Get("Authorization"), "sk-test-123456") {
			t.Fatalf("the key stored for %s reached the newly chosen provider: %+v", ps.openaiURL, r)
		}
	}
}
