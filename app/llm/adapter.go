package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/images"
)

// ContextSource loads the model-maintained memory of one conversation. The SQLite store
// implements it. A conversation that was never stored is not an error: it has empty memory.
type ContextSource interface {
	LoadContext(ctx context.Context, conversation string) (summary, customization string, profiles map[string]string, err error)
}

// UsageRecord is the token count of one engine request: every HTTP call it made, including
// rate-limit and length retries. An image follow-up is a request of its own and gets its own
// record.
type UsageRecord struct {
	Conversation     string
	Model            string
	PromptTokens     int64
	CompletionTokens int64
	At               time.Time
}

// UsageSink stores usage records for the budget and the diagnostics views. The SQLite store
// implements it.
type UsageSink interface {
	RecordUsage(ctx context.Context, u UsageRecord) error
}

// ImageStore is the persistent per-conversation cache of optimised images, so a picture the
// model already saw is not decoded again after a restart. The SQLite store implements it.
type ImageStore interface {
	LoadImage(ctx context.Context, conversation, src string) (img images.Result, ok bool, err error)
	SaveImage(ctx context.Context, conversation, src string, img images.Result) error
}

// EngineAdapter answers the engine's requests: it implements engine.LLM. The engine decides
// when to ask and fetches requested images through the page; the adapter loads the stored
// memory, builds the prompt, optimises the fetched image, sends the request, records usage, and
// turns the outcome into an engine.Reply or a classified *engine.LLMError.
//
// Config, Context and Usage are required; the image caches are optional.
type EngineAdapter struct {
	// Config returns the client settings for a conversation's request. It is called for every
	// request, so a saved settings change (or a per-conversation model) applies to the next
	// one without a restart.
	Config  func(conversation string) (Config, error)
	Context ContextSource
	Usage   UsageSink
	// Images is the in-memory cache; ImageStore the persistent one.
	Images     *images.Cache
	ImageStore ImageStore
	Optimizer  images.Optimizer
	Logger     *slog.Logger
	// Budget, when set, is asked before every request; a spent monthly budget stops the
	// request and makes the engine deactivate every conversation. When nil and Context also
	// implements BudgetGate (the SQLite store does), Context is used.
	Budget BudgetGate
}

// BudgetGate reports whether the user's monthly budget is spent. userText says so in a
// sentence for the banner.
type BudgetGate interface {
	BudgetExceeded(ctx context.Context) (exceeded bool, userText string, err error)
}

var _ engine.LLM = (*EngineAdapter)(nil)

// Complete implements engine.LLM.
func (a *EngineAdapter) Complete(ctx context.Context, req engine.LLMRequest) (engine.Reply, error) {
	log := a.Logger
	if log == nil {
		log = slog.Default()
	}
	conv := string(req.Conversation)
	if a.Config == nil || a.Context == nil {
		return engine.Reply{}, &engine.LLMError{Class: engine.ErrUnknown,
			UserText: "Clanker's AI connection is not set up; nothing was sent.", Err: errors.New("engine adapter without Config or Context")}
	}
	gate := a.Budget
	if gate == nil {
		gate, _ = a.Context.(BudgetGate)
	}
	if gate != nil {
		exceeded, text, err := gate.BudgetExceeded(ctx)
		if err != nil {
			log.Warn("llm: budget check failed; the request goes ahead", "err", err)
		} else if exceeded {
			return engine.Reply{}, &engine.LLMError{Class: engine.ErrBudget, UserText: text}
		}
	}
	cfg, err := a.Config(conv)
	if err != nil {
		return engine.Reply{}, &engine.LLMError{Class: engine.ErrModel,
			UserText: "Clanker's AI settings cannot be used: " + err.Error() + " Open Settings to fix them.", Err: err}
	}
	cfg.WebSearch = req.WebSearch
	if cfg.Logger == nil {
		cfg.Logger = log
	}

	// Without the stored memory the model would start a fresh summary that replaces the real
	// one, so a failed load stops the request instead of losing data.
	summary, custom, profiles, err := a.Context.LoadContext(ctx, conv)
	if err != nil {
		return engine.Reply{}, &engine.LLMError{Class: engine.ErrUnknown,
			UserText: "Could not read this conversation's memory, so Clanker did not answer.", Err: fmt.Errorf("load context of %s: %w", conv, err)}
	}

	lreq := Request{LLMRequest: req,
		Memory: engine.Memory{Summary: summary, Customization: custom, Profiles: profiles}}
	if req.Image != nil {
		lreq.Attachment = a.attachment(ctx, conv, req.Image, req.History, log)
	}

	res, err := New(cfg).Complete(ctx, lreq)
	a.recordUsage(ctx, conv, cfg.Model, res, log)
	if err != nil {
		if ctx.Err() != nil {
			return engine.Reply{}, ctx.Err()
		}
		if errors.Is(err, ErrEmptyOutput) {
			// An empty answer is silence, not a failure worth a toast.
			log.Info("llm returned no text; staying silent", "conversation", conv)
			return engine.Reply{}, nil
		}
		return engine.Reply{}, engineError(err)
	}
	r := res.Reply
	if len(res.Notes) > 0 {
		log.Debug("llm reply notes", "conversation", conv, "notes", res.Notes)
	}
	if req.Image != nil && r.RequestImage != "" {
		// One image per consultation: a second request in the follow-up is ignored, and
		// whatever text came with it is the answer.
		log.Info("llm asked for a second image in the follow-up; ignored", "conversation", conv)
		r.RequestImage = ""
	}
	return r, nil
}

// attachment turns the image the engine fetched into what the follow-up request carries: the
// optimised JPEG as a data URL, or the reason it is unavailable.
func (a *EngineAdapter) attachment(ctx context.Context, conv string, img *engine.ImageData, history []engine.Message, log *slog.Logger) *ImageAttachment {
	att := &ImageAttachment{Src: img.Src}
	if seen, ok := visibleImage(history, img.Src); ok {
		att.Alt = seen.Alt
	}
	if img.Unavailable != "" {
		att.Unavailable = img.Unavailable
		return att
	}
	key := images.Key{Conversation: conv, Src: img.Src}
	if a.Images != nil {
		if r, ok := a.Images.Get(key); ok {
			att.DataURL, att.Width, att.Height = r.DataURL(), r.Width, r.Height
			return att
		}
	}
	if a.ImageStore != nil {
		r, ok, err := a.ImageStore.LoadImage(ctx, conv, img.Src)
		if err != nil {
			log.Warn("image cache read failed; optimising again", "conversation", conv, "err", err)
		} else if ok && len(r.JPEG) > 0 {
			if a.Images != nil {
				a.Images.Put(key, r)
			}
			att.DataURL, att.Width, att.Height = r.DataURL(), r.Width, r.Height
			return att
		}
	}
	r, err := a.Optimizer.Optimize(img.Data)
	if err != nil {
		log.Info("image for llm unavailable", "conversation", conv, "err", err)
		att.Unavailable = images.Reason(err)
		return att
	}
	if a.Images != nil {
		a.Images.Put(key, r)
	}
	if a.ImageStore != nil {
		if err := a.ImageStore.SaveImage(ctx, conv, img.Src, r); err != nil {
			log.Warn("image cache write failed", "conversation", conv, "err", err)
		}
	}
	att.DataURL, att.Width, att.Height = r.DataURL(), r.Width, r.Height
	return att
}

func (a *EngineAdapter) recordUsage(ctx context.Context, conv, model string, res Result, log *slog.Logger) {
	if a.Usage == nil || res.Usage.Calls == 0 {
		return
	}
	if res.Model != "" {
		model = res.Model
	}
	u := UsageRecord{Conversation: conv, Model: model, PromptTokens: res.Usage.PromptTokens,
		CompletionTokens: res.Usage.CompletionTokens, At: time.Now()}
	// Spent tokens are recorded even when the engine is stopping, so the budget stays honest.
	if err := a.Usage.RecordUsage(context.WithoutCancel(ctx), u); err != nil {
		log.Error("record llm usage", "conversation", conv, "err", err)
	}
}

// engineError gives the engine a classified failure: HTTP and transport failures are classified
// where they happen; what is left are the reply parser's refusals (cut off, unfinished
// reasoning, unreadable output) and anything unexpected.
func engineError(err error) *engine.LLMError {
	if le, ok := errors.AsType[*engine.LLMError](err); ok {
		return le
	}
	le := &engine.LLMError{Class: engine.ErrModel, Status: http.StatusOK, Err: err}
	switch {
	case errors.Is(err, ErrTruncated):
		le.UserText = "The model's answer was cut off by its length limit, so Clanker sent nothing."
	case errors.Is(err, ErrReasoningOnly):
		le.UserText = "The model only produced unfinished reasoning, so Clanker sent nothing."
	case errors.Is(err, ErrMalformedJSON), errors.Is(err, ErrNotAReply):
		le.UserText = "The model's answer could not be read, so Clanker sent nothing."
	default:
		le.Class, le.Status = engine.ErrUnknown, 0
		le.UserText = "The AI request failed: " + err.Error()
	}
	return le
}
