package chaos

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/images"
	"github.com/clanker-desktop/clanker/app/llm"
	"github.com/clanker-desktop/clanker/app/sqlite"
	"github.com/clanker-desktop/clanker/tests/fakellm"
)

// outcome is what the scripted model does with the next request.
type outcome int

const (
	outJSON       outcome = iota // a JSON reply with context updates
	outPrefixed                  // JSON whose response repeats Clanker's prefix
	outPlain                     // plain conversational text
	outSilence                   // {"response": null}
	outNull                      // the bare word null
	outImage                     // asks for an image of the conversation
	outBogusImage                // asks for an image that is not there
	outBroken                    // truncated JSON
	outReasoning                 // an unfinished <think> block
	outErrAuth                   // classified errors, one per engine.ErrorClass
	outErrQuota                  //
	outErrRate                   //
	outErrServer                 //
	outErrNetwork                //
	outErrModel                  //
	outErrUnknown                //
	outPlainError                // an error that is not an *engine.LLMError
	outMixed                     // cycles through every outcome above, request by request
	numOutcomes
)

var outcomeNames = [...]string{"json", "prefixed", "plain", "silence", "null", "image", "bogus-image",
	"broken-json", "reasoning", "auth", "quota", "rate-limit", "server", "network", "model", "unknown",
	"plain-error", "mixed"}

func (o outcome) String() string { return outcomeNames[o] }

// policy is the model's behaviour until the next llm event changes it. Keeping it in the event
// list (instead of drawing per request) lets a shrunk event list keep the behaviour that made
// a seed fail.
type policy struct {
	out     outcome
	latency time.Duration
}

type tokenInfo struct {
	conv         engine.ConversationID
	kind         engine.RequestKind
	trigger      string // newest message in the request that Clanker did not write
	triggerOther bool   // that message is another Clanker's
}

// model is the fake engine.LLM. Every reply text carries a token "r#N" so the checker can
// tell which request, and so which conversation, produced a sent text. The raw output it
// picks is not mapped here: it goes through the app's own LLM adapter and client (prompt,
// HTTP, reply parser, mapping onto engine.Reply, error classes for unreadable output), with an
// in-memory transport that answers with that text, so the engine gets exactly what the app
// would give it. The classified failures (auth, quota, ...) are returned directly as the
// adapter's error classes: through HTTP, rate limits would be retried after a random
// backoff, and a seed must always play the same way.
type model struct {
	mu     sync.Mutex
	pol    policy
	n      int
	tokens map[int]tokenInfo
	// requests counts all calls; imageCheck receives every image the engine attached.
	requests   int
	imageCheck func(conv engine.ConversationID, src string)
	// historyCheck receives every request's conversation and history.
	historyCheck func(conv engine.ConversationID, history []engine.Message)
	// store is the session's open database, which the adapter reads the conversation's
	// memory from and records usage in; it changes when the session restarts.
	store *sqlite.Store
	hc    *http.Client
}

// rawKey carries the raw model output chosen for one call to the in-memory transport.
type rawKey struct{}

func newModel() *model {
	rt := fakellm.RoundTripper(func(ctx context.Context, _ fakellm.Request) fakellm.Reply {
		raw, _ := ctx.Value(rawKey{}).(string)
		return fakellm.Text(raw)
	})
	return &model{tokens: map[int]tokenInfo{}, pol: policy{out: outJSON, latency: 2 * time.Second},
		hc: &http.Client{Transport: rt}}
}

// useStore points the adapter at the session's (re)opened database.
func (m *model) useStore(db *sqlite.Store) {
	m.mu.Lock()
	m.store = db
	m.mu.Unlock()
}

// adapter is the app's LLM adapter as app/run wires it, over the in-memory transport.
func (m *model) adapter() *llm.EngineAdapter {
	m.mu.Lock()
	db, hc := m.store, m.hc
	m.mu.Unlock()
	return &llm.EngineAdapter{
		Config: func(string) (llm.Config, error) {
			return llm.Config{Endpoint: "http://127.0.0.1:9/v1", APIKey: "chaos-key", Model: "chaos-model", HTTPClient: hc, Logger: quiet}, nil
		},
		Memory: db, Usage: db, Budget: db,
		Images: &images.Preparer{Store: db, Logger: quiet}, Logger: quiet,
	}
}

var tokenRE = regexp.MustCompile(`^\[clanker\] r#(\d+) `)

// lookup finds the request behind a sent text.
func (m *model) lookup(text string) (int, tokenInfo, bool) {
	sm := tokenRE.FindStringSubmatch(text)
	if sm == nil {
		return 0, tokenInfo{}, false
	}
	n, _ := strconv.Atoi(sm[1])
	m.mu.Lock()
	defer m.mu.Unlock()
	info, ok := m.tokens[n]
	return n, info, ok
}

func (m *model) setPolicy(p policy) {
	m.mu.Lock()
	m.pol = p
	m.mu.Unlock()
}

func llmErr(class engine.ErrorClass, status int) error {
	return &engine.LLMError{Class: class, Status: status, UserText: "The AI service failed (" + string(class) + ")."}
}

func (m *model) Complete(ctx context.Context, req engine.LLMRequest) (engine.Reply, error) {
	m.mu.Lock()
	m.requests++
	pol := m.pol
	out := pol.out
	if out == outMixed {
		out = outcome(m.requests % int(outMixed))
	}
	if req.Image != nil {
		out = outJSON // the follow-up with the image answers
	}
	m.n++
	tok := m.n
	info := tokenInfo{conv: req.Conversation, kind: req.Kind}
	for i := len(req.History) - 1; i >= 0; i-- {
		if h := req.History[i]; !h.IsOwnClanker() {
			info.trigger, info.triggerOther = h.ID, h.IsOtherClanker()
			break
		}
	}
	m.tokens[tok] = info
	check, hcheck := m.imageCheck, m.historyCheck
	m.mu.Unlock()
	if hcheck != nil {
		hcheck(req.Conversation, req.History)
	}
	if req.Image != nil && check != nil {
		check(req.Conversation, req.Image.Src)
	}

	if pol.latency > 0 {
		select {
		case <-time.After(pol.latency):
		case <-ctx.Done():
			return engine.Reply{}, ctx.Err()
		}
	}
	var raw string
	switch out {
	case outJSON:
		raw = fmt.Sprintf(`{"response": "r#%d sure, noted", "summary": "summary %d", "customization": null, "profiles": {"Ann": "note %d"}}`, tok, tok, tok)
	case outPrefixed:
		raw = fmt.Sprintf(`{"response": "[Clanker]: [clanker] r#%d with a prefix of its own"}`, tok)
	case outPlain:
		raw = fmt.Sprintf("r#%d just plain words", tok)
	case outSilence:
		raw = `{"response": null, "summary": "nothing to add"}`
	case outNull:
		raw = "null"
	case outImage, outBogusImage:
		src := "blob:https://messages.google.com/none"
		if out == outImage {
			for i := len(req.History) - 1; i >= 0; i-- {
				if imgs := req.History[i].Images; len(imgs) > 0 {
					src = imgs[0].Src
					break
				}
			}
		}
		raw = fmt.Sprintf(`{"response": "r#%d IMGTEXT answer without seeing it", "requestImage": %q}`, tok, src)
	case outBroken:
		raw = fmt.Sprintf(`{"response": "r#%d LEAK trunc`, tok)
	case outReasoning:
		raw = fmt.Sprintf("<think>r#%d LEAK the user wants", tok)
	case outErrAuth:
		return engine.Reply{}, llmErr(engine.ErrAuth, 401)
	case outErrQuota:
		return engine.Reply{}, llmErr(engine.ErrQuota, 429)
	case outErrRate:
		return engine.Reply{}, llmErr(engine.ErrRateLimit, 429)
	case outErrServer:
		return engine.Reply{}, llmErr(engine.ErrServer, 503)
	case outErrNetwork:
		return engine.Reply{}, llmErr(engine.ErrNetwork, 0)
	case outErrModel:
		return engine.Reply{}, llmErr(engine.ErrModel, 404)
	case outErrUnknown:
		return engine.Reply{}, llmErr(engine.ErrUnknown, 418)
	case outPlainError:
		return engine.Reply{}, errors.New("connection reset by peer")
	}
	return m.adapter().Complete(context.WithValue(ctx, rawKey{}, raw), req)
}

func (m *model) requestsCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests
}

func (m *model) policyNow() policy {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pol
}
