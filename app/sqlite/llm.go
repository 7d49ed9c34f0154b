package sqlite

import (
	"context"

	"github.com/clanker-desktop/clanker/app/images"
	"github.com/clanker-desktop/clanker/app/llm"
)

// LLMStore is the store as the LLM adapter sees it: the conversation's memory to build the
// prompt from, a sink for token usage, and the persistent image cache. Like EngineStore it is
// a separate view because Store's own RecordUsage takes the store's Usage type.
type LLMStore struct{ s *Store }

var (
	_ llm.ContextSource = (*LLMStore)(nil)
	_ llm.UsageSink     = (*LLMStore)(nil)
	_ llm.ImageStore    = (*LLMStore)(nil)
	_ llm.BudgetGate    = (*LLMStore)(nil)
)

// LLM returns the LLM adapter's view of this store.
func (s *Store) LLM() *LLMStore { return &LLMStore{s: s} }

// LoadContext returns the stored summary, customization and profiles of a conversation; one
// never stored has empty memory, which is not an error.
func (l *LLMStore) LoadContext(ctx context.Context, conversation string) (summary, customization string, profiles map[string]string, err error) {
	c, _, err := l.s.Conversation(ctx, conversation)
	if err != nil {
		return "", "", nil, err
	}
	return c.Memory.Summary, c.Memory.Customization, c.Memory.Profiles, nil
}

// RecordUsage stores the token count of one engine request.
func (l *LLMStore) RecordUsage(ctx context.Context, u llm.UsageRecord) error {
	return l.s.RecordUsage(ctx, Usage{ConversationID: u.Conversation, Model: u.Model,
		PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, At: u.At})
}

// LoadImage returns a cached optimised image of a conversation.
func (l *LLMStore) LoadImage(ctx context.Context, conversation, src string) (images.Result, bool, error) {
	img, ok, err := l.s.Image(ctx, conversation, src)
	if err != nil || !ok {
		return images.Result{}, ok, err
	}
	return images.Result{JPEG: img.Data, Width: img.Width, Height: img.Height, SourceFormat: "cache"}, true, nil
}

// SaveImage caches an optimised image (always JPEG) for a conversation.
func (l *LLMStore) SaveImage(ctx context.Context, conversation, src string, img images.Result) error {
	return l.s.PutImage(ctx, CachedImage{ConversationID: conversation, Source: src, MIME: "image/jpeg",
		Width: img.Width, Height: img.Height, Data: img.JPEG})
}

// BudgetExceeded implements llm.BudgetGate with the saved monthly budget and this month's
// recorded usage (local time).
func (l *LLMStore) BudgetExceeded(ctx context.Context) (bool, string, error) {
	st, err := l.s.Settings(ctx)
	if err != nil {
		return false, "", err
	}
	status, err := l.s.CheckBudget(ctx, st, nil)
	if err != nil || !status.Exceeded {
		return false, "", err
	}
	return true, status.Message(st.Budget.Kind), nil
}
