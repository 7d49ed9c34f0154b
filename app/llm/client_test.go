package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/fakellm"
)

// redirect sends every request to the fake server whatever host the
// endpoint names, so provider detection by host is exercised end to end
// while nothing leaves the loopback interface.
type redirect struct{ target *url.URL }

func (r redirect) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host = r.target.Scheme, r.target.Host
	req.Host = r.target.Host
	return http.DefaultTransport.RoundTrip(req)
}

func fakeServer(t *testing.T) *fakellm.Server {
	t.Helper()
	srv, _ := fakellm.StartNew(fakellm.Config{})
	t.Cleanup(srv.Close)
	return srv
}

func clientFor(t *testing.T, srv *fakellm.Server, endpoint string, search bool) *Client {
	t.Helper()
	target, _ := url.Parse(srv.RootURL())
	return New(Config{
		Endpoint: endpoint, APIKey: "sk-test-secret", Model: "test-model", WebSearch: search,
		HTTPClient: &http.Client{Transport: redirect{target}},
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
}

func sampleRequest() Request {
	return Request{
		LLMRequest: engine.LLMRequest{
			UserName:     "Dana",
			Participants: []string{"You", "Ann", "Bob"},
			History: []engine.Message{
				{Sender: "Ann", Text: "Clanker, where should we go?"},
				{Sender: "Bob", Images: []engine.Image{{Src: "blob:https://messages.google.com/img-1", Alt: "a lake"}}},
			},
		},
		Memory: engine.Memory{Summary: "Planning a picnic.", Profiles: map[string]string{"Ann": "likes hiking"}},
	}
}

func TestRequestBodyPerProvider(t *testing.T) {
	cases := []struct {
		name, endpoint string
		search         bool
		wantProvider   Provider
		wantEndpoint   fakellm.Endpoint
		wantPath       string
		wantMaxField   string
		wantJSONMode   bool
		wantTool       string // substring of the tools array, "" = no tools
		wantSearchOpts bool
	}{
		{"generic local server", "http://127.0.0.1:8080/v1", false, Generic, fakellm.EndpointChat, "/v1/chat/completions", "max_tokens", false, "", false},
		{"generic ignores web search", "http://localhost:11434/v1/", true, Generic, fakellm.EndpointChat, "/v1/chat/completions", "max_tokens", false, "", false},
		{"openai", "https://api.openai.com/v1", false, OpenAI, fakellm.EndpointChat, "/v1/chat/completions", "max_completion_tokens", true, "", false},
		{"openai with search", "https://api.openai.com/v1", true, OpenAI, fakellm.EndpointChat, "/v1/chat/completions", "max_completion_tokens", false, "", true},
		{"xai", "https://api.x.ai/v1", false, XAI, fakellm.EndpointChat, "/v1/chat/completions", "max_tokens", true, "", false},
		{"xai with search uses responses", "https://api.x.ai/v1", true, XAI, fakellm.EndpointResponses, "/v1/responses", "max_output_tokens", false, `"web_search"`, false},
		{"anthropic", "https://api.anthropic.com/v1/", false, Anthropic, fakellm.EndpointChat, "/v1/chat/completions", "max_tokens", false, "", false},
		{"anthropic with search", "https://api.anthropic.com/v1", true, Anthropic, fakellm.EndpointChat, "/v1/chat/completions", "max_tokens", false, "web_search_20250305", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeServer(t)
			srv.Enqueue(fakellm.JSONReply("Try the lake!", "Picnic at the lake.").WithUsage(120, 15))
			c := clientFor(t, srv, tc.endpoint, tc.search)
			if c.provider != tc.wantProvider {
				t.Fatalf("provider: want %v, got %v", tc.wantProvider, c.provider)
			}
			res, err := c.Complete(context.Background(), sampleRequest())
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if res.Reply.Text != "Try the lake!" || res.Reply.Update.Summary == nil || *res.Reply.Update.Summary != "Picnic at the lake." {
				t.Errorf("reply: want text and summary from the fake, got %+v", res.Reply)
			}
			if res.Usage.PromptTokens != 120 || res.Usage.CompletionTokens != 15 || res.Usage.Calls != 1 {
				t.Errorf("usage: want 120/15 in 1 call, got %+v", res.Usage)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("want 1 request, got %d", len(reqs))
			}
			r := reqs[0]
			if r.Endpoint != tc.wantEndpoint || r.Path != tc.wantPath {
				t.Errorf("endpoint: want %s at %s, got %s at %s", tc.wantEndpoint, tc.wantPath, r.Endpoint, r.Path)
			}
			if r.APIKey() != "sk-test-secret" || r.Model != "test-model" {
				t.Errorf("auth/model: got key %q model %q", r.APIKey(), r.Model)
			}
			if r.MaxTokensField != tc.wantMaxField || r.MaxTokens == nil || *r.MaxTokens != DefaultMaxTokens {
				t.Errorf("max tokens: want %s=%d, got %s=%v", tc.wantMaxField, DefaultMaxTokens, r.MaxTokensField, r.MaxTokens)
			}
			if r.Temperature == nil || *r.Temperature != Temperature {
				t.Errorf("temperature: want %v, got %v", Temperature, r.Temperature)
			}
			gotJSON := strings.Contains(string(r.ResponseFormat), "json_object")
			if gotJSON != tc.wantJSONMode {
				t.Errorf("JSON mode: want %v, got response_format %s", tc.wantJSONMode, r.ResponseFormat)
			}
			tools := ""
			for _, tl := range r.Tools {
				tools += string(tl)
			}
			if (tc.wantTool == "") != (tools == "") || !strings.Contains(tools, tc.wantTool) {
				t.Errorf("tools: want %q, got %q", tc.wantTool, tools)
			}
			if _, ok := r.Fields["web_search_options"]; ok != tc.wantSearchOpts {
				t.Errorf("web_search_options present=%v, want %v", ok, tc.wantSearchOpts)
			}
			// The request holds the rules, Ann's text, Bob's image with alt text and the memory.
			var texts []string
			for _, m := range r.Messages {
				texts = append(texts, m.Role+"|"+m.Text())
			}
			joined := strings.Join(texts, "\n")
			for _, want := range []string{"system|You are Clanker", "user|[MEMORY - from the Clanker app", "[CONVERSATION SUMMARY", "user|Ann: Clanker, where should we go?",
				`user|Bob: [IMAGE: blob:https://messages.google.com/img-1] "a lake"`, `{"Ann":"likes hiking"}`, "The local user is Dana"} {
				if !strings.Contains(joined, want) {
					t.Errorf("messages: want %q in\n%s", want, joined)
				}
			}
		})
	}
}

func TestErrorBodiesAndStatusesAreClassified(t *testing.T) {
	cases := []struct {
		name  string
		reply fakellm.Reply
		class engine.ErrorClass
		code  string
	}{
		{"openai 401", fakellm.OpenAIError(401, "invalid_request_error", "invalid_api_key", "Incorrect API key"), engine.ErrAuth, "invalid_api_key"},
		{"openai 402", fakellm.OpenAIError(402, "billing", nil, "Pay up"), engine.ErrQuota, ""},
		{"openai 403 plain", fakellm.OpenAIError(403, "permission_error", nil, "Not allowed for this project"), engine.ErrAuth, ""},
		{"openai 403 quota", fakellm.OpenAIError(403, "invalid_request_error", nil, "You exceeded your current quota"), engine.ErrQuota, ""},
		{"openai 429 insufficient_quota code", fakellm.OpenAIError(429, "requests", "insufficient_quota", "Too many"), engine.ErrQuota, "insufficient_quota"},
		{"openai 429 numeric code", fakellm.OpenAIError(429, "rate_limit", 429, "Slow down").WithRetryAfter(3600), engine.ErrRateLimit, "429"},
		{"openai 404 model", fakellm.OpenAIError(404, "invalid_request_error", "model_not_found", "No such model"), engine.ErrModel, "model_not_found"},
		{"openai 400 numeric code", fakellm.OpenAIError(400, "invalid_request_error", 400, "Bad input"), engine.ErrUnknown, "400"},
		{"openai 500", fakellm.OpenAIError(500, "server_error", nil, "Oops"), engine.ErrServer, ""},
		{"xai 401 string code", fakellm.XAIError(401, "Unauthorized", "Incorrect API key provided"), engine.ErrAuth, "Unauthorized"},
		{"xai 429 credits", fakellm.XAIError(429, "Too many requests", "Your team has run out of credits"), engine.ErrQuota, "Too many requests"},
		{"xai 503", fakellm.XAIError(503, "Service Unavailable", "busy"), engine.ErrServer, "Service Unavailable"},
		{"anthropic 401", fakellm.AnthropicError(401, "authentication_error", "invalid x-api-key"), engine.ErrAuth, ""},
		{"anthropic 529 overloaded", fakellm.AnthropicError(529, "overloaded_error", "Overloaded"), engine.ErrServer, ""},
		{"anthropic 400 billing", fakellm.AnthropicError(400, "invalid_request_error", "Your credit balance is too low"), engine.ErrQuota, ""},
		{"html 502", fakellm.Reply{Status: 502, RawBody: []byte("<html>Bad gateway</html>"), ContentType: "text/html"}, engine.ErrServer, ""},
		{"plain text 504", fakellm.Reply{Status: 504, RawBody: []byte("upstream timed out"), ContentType: "text/plain"}, engine.ErrServer, ""},
		{"malformed 200 body", fakellm.MalformedBody(), engine.ErrModel, ""},
		{"dropped connection", fakellm.Dropped(), engine.ErrNetwork, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeServer(t)
			srv.Enqueue(tc.reply)
			c := clientFor(t, srv, "https://api.openai.com/v1", false)
			_, err := c.Complete(context.Background(), sampleRequest())
			var e *engine.LLMError
			if !errors.As(err, &e) {
				t.Fatalf("want a classified *engine.LLMError, got %v", err)
			}
			if e.Class != tc.class || e.Code != tc.code {
				t.Errorf("want %v code %q, got %v code %q (%v)", tc.class, tc.code, e.Class, e.Code, e)
			}
			if strings.Contains(e.Error(), "sk-test-secret") || strings.Contains(e.UserText, "sk-test-secret") {
				t.Error("the API key leaked into the error text")
			}
			if e.UserText == "" {
				t.Error("want a user-facing sentence")
			}
		})
	}
}

func TestTruncatedReplyIsRetriedOnceWithMoreRoomThenDropped(t *testing.T) {
	srv := fakeServer(t)
	srv.Enqueue(fakellm.Truncated(`{"response": "I think we sh`).WithUsage(100, 1024), fakellm.JSONReply("Lake it is.", ""))
	c := clientFor(t, srv, "http://127.0.0.1/v1", false)
	res, err := c.Complete(context.Background(), sampleRequest())
	if err != nil || res.Reply.Text != "Lake it is." {
		t.Fatalf("want the retried reply, got %+v err %v", res.Reply, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || *reqs[1].MaxTokens != 2*DefaultMaxTokens {
		t.Fatalf("want a second request with max_tokens %d, got %d requests", 2*DefaultMaxTokens, len(reqs))
	}
	if res.Usage.Calls != 2 || res.Usage.CompletionTokens < 1024 {
		t.Errorf("usage must include the truncated call: %+v", res.Usage)
	}

	srv.Enqueue(fakellm.Truncated(`{"response": "a`), fakellm.Truncated(`{"response": "ab`))
	res, err = c.Complete(context.Background(), sampleRequest())
	if !errors.Is(err, ErrTruncated) || res.Reply.Text != "" {
		t.Fatalf("want ErrTruncated and no text after two truncations, got %+v err %v", res.Reply, err)
	}
}

func TestTimeoutIsANetworkError(t *testing.T) {
	srv := fakeServer(t)
	srv.Enqueue(fakellm.Hung())
	c := clientFor(t, srv, "http://127.0.0.1/v1", false)
	c.cfg.Timeout = 200 * time.Millisecond
	_, err := c.Complete(context.Background(), sampleRequest())
	var e *engine.LLMError
	if !errors.As(err, &e) || e.Class != engine.ErrNetwork || !errors.Is(err, errTimeout) {
		t.Fatalf("want a network timeout error, got %v", err)
	}
	if err := srv.WaitIdle(5 * time.Second); err != nil {
		t.Fatalf("the hung request was not released: %v", err)
	}
}

func TestFollowUpCarriesTheImageWithAltTextSizeAndProfiles(t *testing.T) {
	srv := fakeServer(t)
	srv.Enqueue(fakellm.JSONReply("What a pretty lake!", "").WithUsage(60, 6))
	c := clientFor(t, srv, "http://127.0.0.1/v1", false)
	req := sampleRequest()
	req.Attachment = &ImageAttachment{Src: "blob:https://messages.google.com/img-1", Alt: "a lake",
		DataURL: "data:image/jpeg;base64,/9j/AAAA", Width: 448, Height: 336}
	res, err := c.Complete(context.Background(), req)
	if err != nil || res.Reply.Text != "What a pretty lake!" {
		t.Fatalf("want the follow-up reply, got %+v err %v", res.Reply, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("want 1 request, got %d", len(reqs))
	}
	last := reqs[0].Messages[len(reqs[0].Messages)-1]
	if len(last.Parts) != 2 || last.Parts[1].ImageURL != "data:image/jpeg;base64,/9j/AAAA" || last.Parts[1].Detail != "high" {
		t.Fatalf("want a text+image follow-up message, got %+v", last.Parts)
	}
	if !strings.Contains(last.Text(), `Alt text: "a lake"`) || !strings.Contains(last.Text(), "448x336") {
		t.Errorf("follow-up text must carry alt text and size, got %q", last.Text())
	}
	if !strings.Contains(reqs[0].Messages[1].Text(), `"Ann":"likes hiking"`) { // the memory, right after the rules
		t.Error("follow-up must carry the participant profiles")
	}
}

func TestRequestBodyNeverContainsKeyOutsideAuthorization(t *testing.T) {
	srv := fakeServer(t)
	c := clientFor(t, srv, "http://127.0.0.1/v1", false)
	_, _ = c.Complete(context.Background(), sampleRequest())
	r := srv.Requests()[0]
	if strings.Contains(string(r.Body), "sk-test-secret") {
		t.Fatal("API key found in the request body")
	}
	var v map[string]any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("request body is not JSON: %v", err)
	}
}
