package sqlite

import (
	"context"

	"github.com/clanker-desktop/clanker/app/engine"
)

// The store implements the domain ports the LLM adapter and the image preparer are given:
// memory, usage (RecordUsage, in usage.go), the monthly budget and the persistent image cache.
var (
	_ engine.MemoryStore   = (*Store)(nil)
	_ engine.UsageRecorder = (*Store)(nil)
	_ engine.BudgetGate    = (*Store)(nil)
	_ engine.ImageCache    = (*Store)(nil)
)

// LoadMemory returns the stored summary, customization and profiles of a conversation; one
// never stored has empty memory, which is not an error.
func (s *Store) LoadMemory(ctx context.Context, id engine.ConversationID) (engine.Memory, error) {
	c, _, err := s.Conversation(ctx, string(id))
	if err != nil {
		return engine.Memory{}, err
	}
	return c.Memory, nil
}

// LoadImage returns a cached prepared image of a conversation.
func (s *Store) LoadImage(ctx context.Context, id engine.ConversationID, src string) (engine.PreparedImage, bool, error) {
	img, ok, err := s.Image(ctx, string(id), src)
	if err != nil || !ok {
		return engine.PreparedImage{}, ok, err
	}
	return engine.PreparedImage{JPEG: img.Data, Width: img.Width, Height: img.Height}, true, nil
}

// SaveImage caches a prepared image (always JPEG) for a conversation.
func (s *Store) SaveImage(ctx context.Context, id engine.ConversationID, src string, img engine.PreparedImage) error {
	return s.PutImage(ctx, CachedImage{ConversationID: string(id), Source: src, MIME: "image/jpeg",
		Width: img.Width, Height: img.Height, Data: img.JPEG})
}

// BudgetExceeded implements engine.BudgetGate with the saved monthly budget and this month's
// recorded usage (local time).
func (s *Store) BudgetExceeded(ctx context.Context) (bool, string, error) {
	st, err := s.Settings(ctx)
	if err != nil {
		return false, "", err
	}
	status, err := s.CheckBudget(ctx, st, nil)
	if err != nil || !status.Exceeded {
		return false, "", err
	}
	return true, status.Message(st.Budget.Kind), nil
}
