package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// Defaults for Config fields left at zero.
const (
	DefaultMaxTokens        = 1024
	DefaultTimeout          = 60 * time.Second
	DefaultSearchTimeout    = 120 * time.Second
	DefaultRateLimitRetries = 2
	DefaultMaxRetryWait     = 30 * time.Second
	Temperature             = 0.7
	maxErrorBody            = 64 << 10
)

// Config is what the client needs from the settings. It is plain data, so
// the caller can build a fresh client whenever the settings change.
type Config struct {
	Endpoint  string // base URL, e.g. https://api.openai.com/v1 (validated by engine.NormalizeEndpoint)
	APIKey    string
	Model     string
	WebSearch bool
	// MaxTokens is the completion budget; a reply cut off by it is retried
	// once with twice the room.
	MaxTokens int
	// Timeout bounds each HTTP attempt (DefaultTimeout, or
	// DefaultSearchTimeout when web search is on).
	Timeout time.Duration
	// RateLimitRetries is how often a 429 is retried; MaxRetryWait caps one
	// wait (a longer Retry-After is not waited for).
	RateLimitRetries int
	MaxRetryWait     time.Duration
	HTTPClient       *http.Client
	Logger           *slog.Logger
}

// Usage is the token count of one or more calls.
type Usage struct {
	PromptTokens     int64
	CompletionTokens int64
	CachedTokens     int64
	Calls            int
}

func (u *Usage) add(o Usage) {
	u.PromptTokens += o.PromptTokens
	u.CompletionTokens += o.CompletionTokens
	u.CachedTokens += o.CachedTokens
	u.Calls += o.Calls
}

// Result is the outcome of a consultation. Usage is filled in even when an
// error is returned, so spent tokens are always recorded.
type Result struct {
	Reply engine.Reply
	// Notes lists reply fields that were ignored or cut, for the debug log.
	Notes    []string
	Usage    Usage
	Model    string
	Provider Provider
}

// Client talks to one configured endpoint.
type Client struct {
	cfg      Config
	provider Provider
	oa       openai.Client
	log      *slog.Logger
}

// New builds a client. It does no I/O.
func New(cfg Config) *Client {
	p := DetectProvider(cfg.Endpoint)
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
		if cfg.WebSearch && p.SupportsWebSearch() {
			cfg.Timeout = DefaultSearchTimeout
		}
	}
	if cfg.RateLimitRetries < 0 {
		cfg.RateLimitRetries = 0
	} else if cfg.RateLimitRetries == 0 {
		cfg.RateLimitRetries = DefaultRateLimitRetries
	}
	if cfg.MaxRetryWait <= 0 {
		cfg.MaxRetryWait = DefaultMaxRetryWait
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	oa := openai.NewClient(
		option.WithBaseURL(strings.TrimRight(strings.TrimSpace(cfg.Endpoint), "/")+"/"),
		option.WithAPIKey(cfg.APIKey),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // retries are ours: 429 with Retry-After, and truncation
	)
	return &Client{cfg: cfg, provider: p, oa: oa, log: log}
}

// attempt is one HTTP exchange's raw outcome.
type attempt struct {
	content      string
	truncated    bool
	usage        Usage
	model        string
	refusal      string
	emptyChoices bool
}

// Complete sends one request and parses the reply. It retries a 429 (not a
// quota 429) up to RateLimitRetries times, honouring Retry-After, and a
// reply cut off by the token limit once with twice the room. A
// requestImage in the reply is returned for the caller to act on (the
// engine fetches the image and asks again).
func (c *Client) Complete(ctx context.Context, req Request) (Result, error) {
	res := Result{Model: c.cfg.Model, Provider: c.provider}
	prompt := BuildPrompt(req)
	maxTokens := c.cfg.MaxTokens
	for lengthRetry := 0; ; lengthRetry++ {
		a, err := c.sendWithRateLimitRetry(ctx, prompt, maxTokens)
		res.Usage.add(a.usage)
		if a.model != "" {
			res.Model = a.model
		}
		if err != nil {
			return res, err
		}
		if a.truncated {
			if lengthRetry == 0 {
				c.log.Info("llm reply hit the token limit, retrying with more room", "max_tokens", maxTokens)
				maxTokens *= 2
				continue
			}
			return res, fmt.Errorf("%w (max_tokens %d)", ErrTruncated, maxTokens)
		}
		if a.emptyChoices {
			return res, badOutputError(errors.New("the response had no choices"))
		}
		if a.content == "" && a.refusal != "" {
			c.log.Info("llm refused", "refusal_chars", len(a.refusal))
			return res, nil // a refusal is silence, never posted
		}
		reply, notes, err := ParseReply(a.content)
		if err != nil {
			c.log.Info("llm output not postable", "err", err, "chars", len(a.content))
			c.log.Debug("llm raw output", "content", a.content)
			return res, err
		}
		res.Reply, res.Notes = reply, notes
		return res, nil
	}
}

func (c *Client) sendWithRateLimitRetry(ctx context.Context, prompt Prompt, maxTokens int) (attempt, error) {
	var total Usage
	for try := 0; ; try++ {
		a, err := c.send(ctx, prompt, maxTokens)
		total.add(a.usage)
		a.usage = total
		var e *engine.LLMError
		if err == nil || !errors.As(err, &e) || e.Class != engine.ErrRateLimit || try >= c.cfg.RateLimitRetries {
			return a, err
		}
		wait := e.RetryAfter
		if wait <= 0 {
			// Exponential backoff with jitter: ~1 s, ~2 s, ...
			base := time.Second << try
			wait = base + time.Duration(rand.Int64N(int64(base/4)))
		}
		if wait > c.cfg.MaxRetryWait {
			c.log.Info("llm rate limited; Retry-After too long to wait", "retry_after", wait)
			return a, err
		}
		c.log.Info("llm rate limited, waiting", "wait", wait, "try", try+1)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return a, ctx.Err()
		case <-t.C:
		}
	}
}

// send performs one HTTP attempt with its own timeout.
func (c *Client) send(ctx context.Context, prompt Prompt, maxTokens int) (attempt, error) {
	actx, cancel := context.WithTimeoutCause(ctx, c.cfg.Timeout, errTimeout)
	defer cancel()

	// The middleware keeps the status, headers and body of a failed
	// response, because the SDK only parses the OpenAI error shape.
	var failed *http.Response
	var failedBody []byte
	capture := option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		resp, err := next(r)
		if err == nil && resp.StatusCode >= 400 {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
			_ = resp.Body.Close()
			resp.Body = io.NopCloser(bytes.NewReader(body))
			failed, failedBody = resp, body
		}
		return resp, err
	})

	var a attempt
	var err error
	if c.provider.usesResponsesAPI(c.cfg.WebSearch) {
		a, err = c.sendResponses(actx, prompt, maxTokens, capture)
	} else {
		a, err = c.sendChat(actx, prompt, maxTokens, capture)
	}
	if err == nil {
		return a, nil
	}
	if failed != nil {
		return a, classify(failed.StatusCode, failed.Header, failedBody, c.cfg.APIKey)
	}
	if ctx.Err() != nil {
		return a, ctx.Err() // the caller gave up (superseded); not a service failure
	}
	if errors.Is(context.Cause(actx), errTimeout) {
		return a, networkError(errTimeout)
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		return a, ClassifyHTTP(apiErr.StatusCode, nil, nil)
	}
	if isDecodeError(err) {
		return a, badOutputError(err)
	}
	return a, networkError(err)
}

func isDecodeError(err error) bool {
	s := err.Error()
	return strings.Contains(s, "parsing response json") || strings.Contains(s, "invalid character") || strings.Contains(s, "cannot unmarshal") ||
		strings.Contains(s, "unexpected end of JSON")
}

// ChatParams builds the Chat Completions body for a prompt, including the
// provider-specific extras. Exported for tests and diagnostics.
func (c *Client) ChatParams(prompt Prompt, maxTokens int) (openai.ChatCompletionNewParams, []option.RequestOption) {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(c.cfg.Model)}
	for _, part := range prompt.Parts {
		switch {
		case part.ImageURL != "":
			p.Messages = append(p.Messages, openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
				openai.TextContentPart(part.Text),
				openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: part.ImageURL, Detail: "high"}),
			}))
		case part.Role == System:
			p.Messages = append(p.Messages, openai.SystemMessage(part.Text))
		case part.Role == Assistant:
			p.Messages = append(p.Messages, openai.AssistantMessage(part.Text))
		default:
			p.Messages = append(p.Messages, openai.UserMessage(part.Text))
		}
	}
	var opts []option.RequestOption
	if c.provider == OpenAI {
		// OpenAI's current models take max_completion_tokens, and its
		// reasoning models refuse a temperature.
		p.MaxCompletionTokens = openai.Int(int64(maxTokens))
		if !isOpenAIReasoningModel(c.cfg.Model) {
			p.Temperature = openai.Float(Temperature)
		}
	} else {
		p.MaxTokens = openai.Int(int64(maxTokens))
		p.Temperature = openai.Float(Temperature)
	}
	search := c.cfg.WebSearch && c.provider.SupportsWebSearch()
	if c.provider.SupportsJSONMode() && !search {
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}
	}
	if search {
		switch c.provider {
		case OpenAI:
			opts = append(opts, option.WithJSONSet("web_search_options", map[string]any{}))
		case Anthropic:
			opts = append(opts, option.WithJSONSet("tools", []map[string]any{{"type": "web_search_20250305", "name": "web_search"}}))
		}
	}
	return p, opts
}

func isOpenAIReasoningModel(model string) bool {
	m := strings.ToLower(model)
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}

func (c *Client) sendChat(ctx context.Context, prompt Prompt, maxTokens int, extra ...option.RequestOption) (attempt, error) {
	params, opts := c.ChatParams(prompt, maxTokens)
	comp, err := c.oa.Chat.Completions.New(ctx, params, append(opts, extra...)...)
	if err != nil {
		return attempt{}, err
	}
	a := attempt{model: comp.Model, usage: Usage{
		PromptTokens:     comp.Usage.PromptTokens,
		CompletionTokens: comp.Usage.CompletionTokens,
		CachedTokens:     comp.Usage.PromptTokensDetails.CachedTokens,
		Calls:            1,
	}}
	if len(comp.Choices) == 0 {
		a.emptyChoices = true
		return a, nil
	}
	ch := comp.Choices[0]
	a.content = ch.Message.Content
	a.refusal = ch.Message.Refusal
	a.truncated = ch.FinishReason == "length"
	return a, nil
}

// ResponsesParams builds the Responses API body (xAI with web search).
func (c *Client) ResponsesParams(prompt Prompt, maxTokens int) responses.ResponseNewParams {
	var items responses.ResponseInputParam
	for _, part := range prompt.Parts {
		role := responses.EasyInputMessageRoleUser
		switch part.Role {
		case System:
			role = responses.EasyInputMessageRoleSystem
		case Assistant:
			role = responses.EasyInputMessageRoleAssistant
		}
		msg := responses.EasyInputMessageParam{Role: role}
		if part.ImageURL != "" {
			msg.Content.OfInputItemContentList = responses.ResponseInputMessageContentListParam{
				{OfInputText: &responses.ResponseInputTextParam{Text: part.Text}},
				{OfInputImage: &responses.ResponseInputImageParam{ImageURL: openai.String(part.ImageURL), Detail: responses.ResponseInputImageDetailHigh}},
			}
		} else {
			msg.Content.OfString = openai.String(part.Text)
		}
		items = append(items, responses.ResponseInputItemUnionParam{OfMessage: &msg})
	}
	return responses.ResponseNewParams{
		Model:           shared.ResponsesModel(c.cfg.Model),
		Input:           responses.ResponseNewParamsInputUnion{OfInputItemList: items},
		Temperature:     openai.Float(Temperature),
		MaxOutputTokens: openai.Int(int64(maxTokens)),
		Tools:           []responses.ToolUnionParam{{OfWebSearch: &responses.WebSearchToolParam{Type: responses.WebSearchToolTypeWebSearch}}},
	}
}

func (c *Client) sendResponses(ctx context.Context, prompt Prompt, maxTokens int, extra ...option.RequestOption) (attempt, error) {
	resp, err := c.oa.Responses.New(ctx, c.ResponsesParams(prompt, maxTokens), extra...)
	if err != nil {
		return attempt{}, err
	}
	return attempt{
		model:     resp.Model,
		content:   resp.OutputText(),
		truncated: resp.Status == responses.ResponseStatusIncomplete && resp.IncompleteDetails.Reason == "max_output_tokens",
		usage: Usage{
			PromptTokens:     resp.Usage.InputTokens,
			CompletionTokens: resp.Usage.OutputTokens,
			CachedTokens:     resp.Usage.InputTokensDetails.CachedTokens,
			Calls:            1,
		},
	}, nil
}
