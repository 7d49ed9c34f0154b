package security

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clanker-desktop/clanker/app/diag"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/fakellm"
	"github.com/clanker-desktop/clanker/tests/faults"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// canaryKey is a distinctive fake key. It deliberately lacks a provider prefix such as "sk-", so
// the key-shaped-string pattern in diag cannot hide a leak: only not leaking passes.
const canaryKey = "canaryQ7m4Kx2Lp8Rt5Vw9Zb3"

// leaks reports whether s contains the key or a 12-character piece of it.
func leaks(s string) bool {
	for i := 0; i+12 <= len(canaryKey); i++ {
		if strings.Contains(s, canaryKey[i:i+12]) {
			return true
		}
	}
	return false
}

// seenRequest is what left the app over HTTP.
type seenRequest struct {
	url    *url.URL
	header http.Header
}

type watchTransport struct {
	mu   sync.Mutex
	base http.RoundTripper
	seen []seenRequest
}

func (w *watchTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	w.mu.Lock()
	w.seen = append(w.seen, seenRequest{url: r.URL, header: r.Header.Clone()})
	w.mu.Unlock()
	return w.base.RoundTrip(r)
}

// TestAPIKeyTravelsOnlyInTheAuthorizationHeaderToTheConfiguredEndpoint runs full reply cycles
// (a server error, a rate limit that resolves, a malformed reply, a good reply, an error whose
// body echoes the key, an invalid-key error that deactivates) through the real engine, LLM client
// and store, with store, client and engine logging at debug level. The key must appear in every
// request's Authorization header and nowhere else in any request; every request must go to the
// configured endpoint; and it must appear in no log line, no page command (toasts, banners,
// typed text), no error text and neither diagnostics view built from the store.
func TestAPIKeyTravelsOnlyInTheAuthorizationHeaderToTheConfiguredEndpoint(t *testing.T) {
	srv, _ := fakellm.StartNew(fakellm.Config{APIKey: canaryKey})
	defer srv.Close()
	srv.Enqueue(
		fakellm.OpenAIError(500, "server_error", nil, "boom"),
		fakellm.OpenAIError(429, "requests", "rate_limit_exceeded", "slow down").WithRetryAfter(2), fakellm.JSONReply("after the wait", "Ann asks things."),
		fakellm.Malformed(),
		fakellm.JSONReply("all good", ""),
		// A misbehaving proxy that quotes the key it was given.
		fakellm.OpenAIError(400, "invalid_request_error", "bad_key", "Key "+canaryKey+" is not valid for this model"),
		fakellm.XAIError(422, "Client specified an invalid argument", "Bearer "+canaryKey+" rejected"),
		fakellm.OpenAIError(401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided: "+canaryKey),
	)
	endpoint, _ := url.Parse(srv.BaseURL())
	dir := t.TempDir()
	var logs testkit.Buffer
	watch := &watchTransport{base: &http.Transport{DisableKeepAlives: true}}
	synctest.Test(t, func(t *testing.T) {
		log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		r, err := faults.Start(faults.Options{Dir: dir, Endpoint: srv.BaseURL(), APIKey: canaryKey, Logger: log, Transport: watch})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Stop()
		if err := r.SetMode("c1", engine.ModeActive); err != nil {
			t.Fatal(err)
		}
		send := func(ev engine.Event) {
			if err := r.Engine.Send(ev); err != nil {
				t.Fatalf("Send(%T): %v", ev, err)
			}
			synctest.Wait()
		}
		r.Page.Show("c1")
		send(engine.PageStateChanged{State: engine.PageReady})
		send(engine.ConversationChanging{To: "c1"})
		send(engine.ConversationOpened{ID: "c1", Participants: []engine.Participant{{Name: "Ann"}},
			Messages: []engine.Message{{ID: "m0", Sender: "Ann", Direction: engine.Incoming, Text: "hi"}}})
		for i := 1; i <= 7; i++ {
			send(engine.MessageAdded{Conversation: "c1", Message: engine.Message{ID: fmt.Sprintf("m%d", i), Sender: "Ann",
				Direction: engine.Incoming, Text: fmt.Sprintf("clanker, question %d?", i)}})
			time.Sleep(2 * time.Minute)
			synctest.Wait()
		}
		if got := r.Mode("c1"); got != engine.ModeDeactivated {
			t.Errorf("want the script to end with the 401 deactivating c1, mode is %q", got)
		}
		// The malformed reply still held a complete response string, which is kept.
		if got := r.Page.SentTexts(); len(got) != 3 {
			t.Errorf("want three replies sent, got %q", got)
		}

		// Requests: the key only in Authorization, only to the configured endpoint.
		reqs := srv.Requests()
		if len(reqs) < 7 {
			t.Fatalf("want every scripted reply used, got %d requests", len(reqs))
		}
		for i, q := range reqs {
			if q.Authorization() != "Bearer "+canaryKey {
				t.Errorf("request %d: Authorization is not the bearer key", i)
			}
			h := q.Header.Clone()
			h.Del("Authorization")
			if leaks(fmt.Sprint(h)) || leaks(string(q.Body)) || leaks(q.Path) {
				t.Errorf("request %d carries the key outside the Authorization header", i)
			}
		}
		watch.mu.Lock()
		for i, s := range watch.seen {
			if s.url.Scheme != endpoint.Scheme || s.url.Host != endpoint.Host || !strings.HasPrefix(s.url.Path, endpoint.Path+"/") {
				t.Errorf("request %d went to %s, not the configured endpoint %s", i, s.url.Redacted(), endpoint)
			}
			if leaks(s.url.String()) {
				t.Errorf("request %d has the key in its URL", i)
			}
		}
		watch.mu.Unlock()

		// The page: every command's text.
		// An error body that quotes the key (as a misbehaving proxy may) is shown in the
		// toast of an unclassified error only after app/llm has scrubbed the key from it.
		for _, c := range r.Page.Commands() {
			if !leaks(c.Text + c.Src + c.Key + string(c.Conversation)) {
				continue
			}
			t.Errorf("a %s command shown on the page carries the key: %q", c.Kind, c.Text)
		}

		// Diagnostics, after a participant pasted the key into the chat and the model wrote it
		// into the summary: the raw snapshot is what the views are built from; both views must
		// scrub it.
		if err := r.Store.SaveMemory(context.Background(), "c1", engine.Memory{Summary: "Ann pasted " + canaryKey + " by mistake."}); err != nil {
			t.Fatal(err)
		}
		send(engine.MessageAdded{Conversation: "c1", Message: engine.Message{ID: "m99", Sender: "Ann",
			Direction: engine.Incoming, Text: "oops, my key is " + canaryKey}})
		snap, err := r.Engine.Snapshot(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		// The report is built from the stored domain data, as app/run gathers it.
		st, _ := r.Store.Settings(context.Background())
		convs, err := r.Store.Conversations(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		raw := diag.Build(diag.Input{Settings: st, Conversations: convs, Engine: snap})
		key, _, err := r.Store.APIKey(context.Background())
		if err != nil || key != canaryKey {
			t.Fatalf("the stored key is not the canary (%v)", err)
		}
		for name, view := range map[string]diag.Report{"sanitised": diag.Sanitize(raw, key), "unsanitised": diag.Unsanitized(raw, key)} {
			b, err := json.Marshal(view)
			if err != nil {
				t.Fatal(err)
			}
			if leaks(string(b)) {
				t.Errorf("the %s diagnostics view contains the key", name)
			}
		}
		masked, _, _ := r.Store.MaskedAPIKey(context.Background())
		if leaks(masked) {
			t.Errorf("the masked key %q reveals the key", masked)
		}
		st, _ = r.Store.Settings(context.Background())
		if b, _ := json.Marshal(st); leaks(string(b)) {
			t.Errorf("the settings value carries the key")
		}
	})
	for i, line := range strings.Split(logs.String(), "\n") {
		if leaks(line) {
			t.Errorf("log line %d carries the key: %.300s", i, line)
		}
	}
	if n := strings.Count(logs.String(), "\n"); n < 20 {
		t.Errorf("want the debug log of a full run (at least 20 lines) to make this meaningful, got %d", n)
	}
}
