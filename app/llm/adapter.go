package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// EngineAdapter answers the engine's requests: it implements engine.LLM. The engine decides
// when to ask and fetches requested images through the page; the adapter loads the stored
// memory, builds the prompt, has the fetched image prepared, sends the request, records usage,
// and turns the outcome into an engine.Reply or a classified *engine.LLMError.
//
// Config and Memory are required; the others are optional. Every dependency is a domain port,
// so this package imports no other adapter.
type EngineAdapter struct {
	// Config returns the client settings for a conversation's request. It is called for every
	// request, so a saved settings change (or a per-conversation model) applies to the next
	// one without a restart.
	Config func(conversation string) (Config, error)
	Memory engine.MemoryStore
	Usage  engine.UsageRecorder
	// Images prepares the image bytes the engine fetched; nil means images cannot be shown.
	Images engine.ImagePreparer
	// Budget, when set, is asked before every request; a spent monthly budget stops the
	// request and makes the engine deactivate every conversation.
	Budget engine.BudgetGate
	Logger *slog.Logger

	// layouts is where each conversation's view stands between requests (see layouts).
	layouts layouts
}

var _ engine.LLM = (*EngineAdapter)(nil)

// Complete implements engine.LLM.
func (a *EngineAdapter) Complete(ctx context.Context, req engine.LLMRequest) (engine.Reply, error) {
	log := a.Logger
	if log == nil {
		log = slog.Default()
	}
	conv := string(req.Conversation)
	if a.Config == nil || a.Memory == nil {
		return engine.Reply{}, &engine.LLMError{Class: engine.ErrUnknown,
			UserText: "Clanker's AI connection is not set up; nothing was sent.", Err: errors.New("engine adapter without Config or Memory")}
	}
	if a.Budget != nil {
		exceeded, text, err := a.Budget.BudgetExceeded(ctx)
		if err != nil {
			log.Warn("llm: budget check failed; the request goes ahead", "err", err)
		} else if exceeded {
			return engine.Reply{}, &engine.LLMError{Class: engine.ErrBudget, UserText: text}
		}
	}
	cfg, err := a.Config(conv)
	if err != nil {
		// Refused before anything (the key above all) is sent: the engine shows a banner
		// until the settings are fixed.
		return engine.Reply{}, &engine.LLMError{Class: engine.ErrSettings,
			UserText: "Clanker's AI settings cannot be used, so nothing was sent: " + err.Error() + " Open Settings to fix them.", Err: err}
	}
	cfg.WebSearch = req.WebSearch
	if req.Model != "" {
		// The engine chose the model for this conversation.
		cfg.Model = req.Model
	}
	if cfg.Logger == nil {
		cfg.Logger = log
	}

	// Without the stored memory the model would start a fresh summary that replaces the real
	// one, so a failed load stops the request instead of losing data.
	mem, err := a.Memory.LoadMemory(ctx, req.Conversation)
	if err != nil {
		return engine.Reply{}, &engine.LLMError{Class: engine.ErrUnknown,
			UserText: "Could not read this conversation's memory, so Clanker did not answer.", Err: fmt.Errorf("load memory of %s: %w", conv, err)}
	}

	plan := a.layouts.plan(req, mem)
	lreq := plan.request(req)
	if req.Image != nil {
		lreq.Attachment = a.attachment(ctx, conv, req.Image, plan.shown, log)
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
	a.layouts.answered(req, plan, r)
	return r, nil
}

// attachment turns the image the engine fetched into what the follow-up request carries: the
// prepared JPEG as a data URL, or the reason it is unavailable.
func (a *EngineAdapter) attachment(ctx context.Context, conv string, img *engine.ImageData, history []engine.Message, log *slog.Logger) *ImageAttachment {
	att := &ImageAttachment{Src: img.Src}
	if seen, ok := visibleImage(history, img.Src); ok {
		att.Alt = seen.Alt
	}
	if img.Unavailable != "" {
		att.Unavailable = img.Unavailable
		return att
	}
	if a.Images == nil {
		att.Unavailable = "images cannot be shown right now"
		return att
	}
	p, err := a.Images.PrepareImage(ctx, engine.ConversationID(conv), img.Src, img.Data)
	if err != nil {
		log.Info("image for llm unavailable", "conversation", conv, "err", err)
		att.Unavailable = "it could not be loaded"
		if u, ok := errors.AsType[*engine.ImageUnavailable](err); ok && u.Reason != "" {
			att.Unavailable = u.Reason
		}
		return att
	}
	att.DataURL, att.Width, att.Height = p.DataURL(), p.Width, p.Height
	return att
}

func (a *EngineAdapter) recordUsage(ctx context.Context, conv, model string, res Result, log *slog.Logger) {
	if a.Usage == nil || res.Usage.Calls == 0 {
		return
	}
	if res.Model != "" {
		model = res.Model
	}
	u := engine.Usage{Conversation: engine.ConversationID(conv), Model: model, At: time.Now(),
		Tokens: engine.Tokens{Prompt: res.Usage.PromptTokens, Completion: res.Usage.CompletionTokens}}
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
	case errors.Is(err, ErrGarbled):
		le.UserText = "The model's answer was garbled (it held bytes that are not text), so Clanker sent nothing."
	case errors.Is(err, ErrMalformedJSON), errors.Is(err, ErrNotAReply):
		le.UserText = "The model's answer could not be read, so Clanker sent nothing."
	default:
		le.Class, le.Status = engine.ErrUnknown, 0
		le.UserText = "The AI request failed: " + err.Error()
	}
	return le
}
