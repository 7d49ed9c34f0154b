package chaos

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/llm"
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
// tell which request, and so which conversation, produced a sent text. Raw outputs go through
// the real reply parser (app/llm.ParseReply), so malformed output is refused the way the app
// refuses it.
type model struct {
	mu     sync.Mutex
	pol    policy
	n      int
	tokens map[int]tokenInfo
	// requests counts all calls; imageCheck receives every image the engine attached.
	requests   int
	imageCheck func(conv engine.ConversationID, src string)
}

func newModel() *model {
	return &model{tokens: map[int]tokenInfo{}, pol: policy{out: outJSON, latency: 2 * time.Second}}
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
	check := m.imageCheck
	m.mu.Unlock()
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
	r, err := llm.ParseReply(raw)
	if err != nil {
		return engine.Reply{}, &engine.LLMError{Class: engine.ErrModel, UserText: "The model's answer could not be read.", Err: err}
	}
	return toEngine(r), nil
}

// toEngine maps the parser's reply onto the engine's, as app/llm does for the real client.
func toEngine(r llm.Reply) engine.Reply {
	out := engine.Reply{Text: r.Text, RequestImage: r.RequestImage}
	if r.Summary.Set {
		s := r.Summary.Value
		out.Update.Summary = &s
	}
	if r.Customization.Set {
		out.Update.CustomizationSet = true
		if v := r.Customization.Value; v != "" {
			out.Update.Customization = &v
		}
	}
	if r.Profiles.Set {
		out.Update.ProfilesSet = true
		out.Update.Profiles = r.Profiles.Value
	}
	return out
}
