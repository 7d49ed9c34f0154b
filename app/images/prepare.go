package images

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

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

	// optimize replaces Optimizer.Optimize in tests (a hang or a panic on demand).
	optimize func([]byte) (Result, error)
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
	r, err := p.optimizeWithin(ctx, data, log)
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

// optimizeWithin optimises data on a goroutine of its own and waits for it no longer than
// ctx allows: the bytes are whatever a conversation's image element pointed to, so a
// panic in the decoders is turned into an error (ErrCorrupt, logged with its stack) rather
// than ending the app, and a caller whose request is cancelled or times out gets an error
// at once, while the optimisation (bounded by the size and pixel limits) finishes on its
// own and is dropped.
func (p *Preparer) optimizeWithin(ctx context.Context, data []byte, log *slog.Logger) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	optimize := p.Optimizer.Optimize
	if p.optimize != nil {
		optimize = p.optimize
	}
	type outcome struct {
		r   Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				log.Error("image optimiser panicked; the image is reported unavailable", "panic", v, "bytes", len(data), "stack", string(debug.Stack()))
				done <- outcome{err: fmt.Errorf("%w: the optimiser failed on it (%v)", ErrCorrupt, v)}
			}
		}()
		r, err := optimize(data)
		done <- outcome{r, err}
	}()
	select {
	case o := <-done:
		return o.r, o.err
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
}
