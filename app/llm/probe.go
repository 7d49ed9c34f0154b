package llm

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Probe implements engine.ConnectionProbe for the settings window's Test connection button:
// it asks the endpoint with the same client, provider rules and error classes the app uses,
// so a wrong key, endpoint or model shows up there rather than in a chat.
type Probe struct {
	// HTTPClient carries the requests (default: one with a 30 s timeout).
	HTTPClient *http.Client
	Logger     *slog.Logger
}

var _ engine.ConnectionProbe = Probe{}

func (p Probe) httpClient() *http.Client {
	if p.HTTPClient != nil {
		return p.HTTPClient
	}
	return &http.Client{Timeout: 30 * time.Second}
}

// WebSearchNote implements engine.ConnectionProbe with the provider's remark on web search.
func (p Probe) WebSearchNote(endpoint string) string {
	return DetectProvider(endpoint).WebSearchNote()
}

// ListModels implements engine.ConnectionProbe: GET {endpoint}/models, any failure meaning no
// list. The names come from the server, so each is kept to one line of at most 200
// characters, and at most 500 are kept.
func (p Probe) ListModels(ctx context.Context, endpoint, apiKey string) []string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(endpoint, "/")+"/models", nil)
	if err != nil {
		return nil
	}
	req.Header.Set("Authorization", "Bearer "+apiKey)
	resp, err := p.httpClient().Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	var body struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&body) != nil {
		return nil
	}
	var out []string
	for _, m := range body.Data {
		if id := engine.Clip(strings.Join(strings.Fields(m.ID), " "), 200); id != "" && len(out) < 500 {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// Ping implements engine.ConnectionProbe: one small request through the app's client. A
// failure the client classifies is an *engine.LLMError; any other error means the server
// answered, though not in Clanker's reply format.
func (p Probe) Ping(ctx context.Context, endpoint, apiKey, model string) error {
	client := New(Config{Endpoint: endpoint, APIKey: apiKey, Model: model, MaxTokens: 64,
		Timeout: 30 * time.Second, HTTPClient: p.httpClient(), Logger: p.Logger})
	_, err := client.Complete(ctx, Request{LLMRequest: engine.LLMRequest{
		UserName: "Test", Participants: []string{"Test"},
		History: []engine.Message{{Sender: "Test", Text: "This is a connection test from Clanker's settings. Reply briefly."}},
	}})
	return err
}
