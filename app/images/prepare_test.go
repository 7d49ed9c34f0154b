package images

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"

	"github.com/clanker-desktop/clanker/app/engine"
)

// memImageCache is the persistent image cache (the SQLite store in the app).
type memImageCache struct {
	mu    sync.Mutex
	imgs  map[Key]engine.PreparedImage
	saves int
	loads int
}

func (s *memImageCache) LoadImage(_ context.Context, id engine.ConversationID, src string) (engine.PreparedImage, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loads++
	r, ok := s.imgs[Key{Conversation: string(id), Src: src}]
	return r, ok, nil
}

func (s *memImageCache) SaveImage(_ context.Context, id engine.ConversationID, src string, r engine.PreparedImage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.saves++
	s.imgs[Key{Conversation: string(id), Src: src}] = r
	return nil
}

func TestPreparedImagesAreCachedInMemoryAndInTheStorePerConversation(t *testing.T) {
	store := &memImageCache{imgs: map[Key]engine.PreparedImage{}}
	quiet := slog.New(slog.DiscardHandler)
	ctx := context.Background()
	src := "blob:https://messages.google.com/p"
	p := NewPreparer(1<<20, store, quiet)

	first, err := p.PrepareImage(ctx, "c1", src, encodePNG(t, twoTone(600, 300)))
	if err != nil || first.Width != 448 || first.Height != 224 {
		t.Fatalf("want a 448x224 JPEG, got %dx%d (%v)", first.Width, first.Height, err)
	}
	if store.saves != 1 {
		t.Fatalf("want the prepared image saved to the store once, got %d saves", store.saves)
	}
	loads := store.loads
	// Same conversation again: served from memory, even if the bytes are now unreadable.
	again, err := p.PrepareImage(ctx, "c1", src, []byte("junk"))
	if err != nil || again.DataURL() != first.DataURL() || store.loads != loads {
		t.Fatalf("want the memory cache to answer without the store, got same=%v loads %d -> %d (%v)", again.DataURL() == first.DataURL(), loads, store.loads, err)
	}
	// After a restart (empty memory) the store answers.
	restarted := NewPreparer(1<<20, store, quiet)
	got, err := restarted.PrepareImage(ctx, "c1", src, []byte("junk"))
	if err != nil || got.DataURL() != first.DataURL() || store.loads != loads+1 {
		t.Fatalf("want the stored image after a restart, got same=%v loads %d -> %d (%v)", got.DataURL() == first.DataURL(), loads, store.loads, err)
	}
	// Another conversation never gets c1's image: it is optimised from its own bytes.
	_, err = restarted.PrepareImage(ctx, "c2", src, []byte("junk"))
	var u *engine.ImageUnavailable
	if !errors.As(err, &u) || u.Reason == "" {
		t.Fatalf("want c2's unreadable bytes reported unavailable with a reason, not c1's cached image; got %v", err)
	}
}
