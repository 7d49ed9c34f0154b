package images

import (
	"context"
	"log/slog"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Preparer implements engine.ImagePreparer: it answers from the in-memory cache, then from the
// persistent cache, and only then optimises the bytes the page fetched, keeping the result in
// both. Every cache is keyed by conversation and source, so one conversation's picture is never
// served into another.
type Preparer struct {
	Optimizer Optimizer
	// Memory is the in-memory cache; nil means none.
	Memory *Cache
	// Store is the persistent cache (the SQLite store in the app); nil means none.
	Store  engine.ImageCache
	Logger *slog.Logger
}

var _ engine.ImagePreparer = (*Preparer)(nil)

// NewPreparer returns a preparer with an in-memory cache of memoryBytes and the given
// persistent cache (nil for none).
func NewPreparer(memoryBytes int, store engine.ImageCache, log *slog.Logger) *Preparer {
	return &Preparer{Memory: NewCache(memoryBytes), Store: store, Logger: log}
}

// PrepareImage implements engine.ImagePreparer. A failure to optimise is an
// *engine.ImageUnavailable whose Reason the model is told; a cache that cannot be read or
// written is only logged, since the image can still be optimised.
func (p *Preparer) PrepareImage(ctx context.Context, id engine.ConversationID, src string, data []byte) (engine.PreparedImage, error) {
	log := p.Logger
	if log == nil {
		log = slog.Default()
	}
	key := Key{Conversation: string(id), Src: src}
	if p.Memory != nil {
		if r, ok := p.Memory.Get(key); ok {
			return r.PreparedImage, nil
		}
	}
	if p.Store != nil {
		img, ok, err := p.Store.LoadImage(ctx, id, src)
		if err != nil {
			log.Warn("image cache read failed; optimising again", "conversation", id, "err", err)
		} else if ok && len(img.JPEG) > 0 {
			if p.Memory != nil {
				p.Memory.Put(key, Result{PreparedImage: img, SourceFormat: "cache"})
			}
			return img, nil
		}
	}
	r, err := p.Optimizer.Optimize(data)
	if err != nil {
		return engine.PreparedImage{}, &engine.ImageUnavailable{Reason: Reason(err), Err: err}
	}
	if p.Memory != nil {
		p.Memory.Put(key, r)
	}
	if p.Store != nil {
		if err := p.Store.SaveImage(ctx, id, src, r.PreparedImage); err != nil {
			log.Warn("image cache write failed", "conversation", id, "err", err)
		}
	}
	return r.PreparedImage, nil
}
