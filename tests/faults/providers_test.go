package faults

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clanker-desktop/clanker/app/llm"
	"github.com/clanker-desktop/clanker/tests/fakellm"
)

// providerRows are the faults replayed per provider dialect: the ones whose handling differs by
// request shape (JSON mode, the Responses API) or that every dialect must get right.
var providerRows = []string{
	"401 OpenAI invalid_api_key", "401 xAI", "401 Anthropic authentication_error",
	"429 Retry-After 7 s then success", "429 OpenAI insufficient_quota", "500 OpenAI server_error",
	"529 Anthropic overloaded_error", "404 OpenAI model_not_found", "connection dropped mid body",
	"envelope is not JSON", "broken JSON, response string cut", "truncated by length twice",
	"truncated once, then whole", "response null", "reasoning only", "prose around JSON",
	"huge body (4 MB one-word reply) is capped", "leading [clanker] in the response",
}

// TestFaultCorpusAcrossProviderDialects replays a subset of the corpus with the endpoint named
// like each provider (the client picks its dialect from the host name), so OpenAI's JSON mode
// and xAI's Responses API with web search meet the same faults as the generic dialect. The
// ".local" host names are allowed over http and every connection is dialled to the fake server.
func TestFaultCorpusAcrossProviderDialects(t *testing.T) {
	byName := map[string]fault{}
	for _, f := range faultTable() {
		byName[f.name] = f
	}
	dialects := []struct {
		name, host string
		search     bool
		want       llm.Provider
		endpoint   fakellm.Endpoint
	}{
		{"openai", "api.openai.local", false, llm.OpenAI, fakellm.EndpointChat},
		{"xai web search", "api.x.ai.local", true, llm.XAI, fakellm.EndpointResponses},
		{"anthropic", "api.anthropic.local", false, llm.Anthropic, fakellm.EndpointChat},
	}
	for _, d := range dialects {
		for _, name := range providerRows {
			f, ok := byName[name]
			if !ok {
				t.Fatalf("provider row %q is not in the corpus", name)
			}
			t.Run(d.name+"/"+name, func(t *testing.T) {
				srv := startServer(t, f)
				real, _ := url.Parse(srv.RootURL())
				endpoint := "http://" + d.host + ":" + real.Port() + "/v1"
				if p := llm.DetectProvider(endpoint); p != d.want {
					t.Fatalf("endpoint %s is detected as %v, want %v", endpoint, p, d.want)
				}
				tr := &http.Transport{DisableKeepAlives: true,
					DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
						return (&net.Dialer{}).DialContext(ctx, network, real.Host)
					}}
				dir := t.TempDir()
				synctest.Test(t, func(t *testing.T) {
					r, err := Start(Options{Dir: dir, Endpoint: endpoint, APIKey: testKey, Transport: tr, WebSearch: d.search})
					if err != nil {
						t.Fatal(err)
					}
					defer r.Stop()
					o := playTwoTriggers(t, r, srv, func(d time.Duration) { time.Sleep(d); synctest.Wait() })
					check(t, f, o)
				})
				for _, q := range srv.Requests() {
					if q.Endpoint != d.endpoint || !strings.HasPrefix(q.Path, "/v1/") {
						t.Errorf("request went to %s %s, want the %s endpoint under /v1", q.Endpoint, q.Path, d.endpoint)
					}
				}
			})
		}
	}
}
