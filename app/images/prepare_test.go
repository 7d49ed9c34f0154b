package images

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"log/slog"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/imagebench/jpegw"
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

// malformedImages are files a conversation could carry that no decoder should make a
// picture of: cut short, damaged, lying about their size, or not images at all.
func malformedImages(t *testing.T) map[string][]byte {
	t.Helper()
	p := testPlanes(61, 47)
	base, err := jpegw.Encode(p, 61, 47, jpegw.Options{Restart: 2})
	if err != nil {
		t.Fatal(err)
	}
	prog, err := jpegw.Encode(p, 61, 47, jpegw.Options{Progressive: true})
	if err != nil {
		t.Fatal(err)
	}
	// claiming rewrites the frame header's size: a few bytes of data for a huge picture.
	claiming := func(data []byte, w, h int) []byte {
		b := bytes.Clone(data)
		for i := 0; i+9 < len(b); i++ {
			if b[i] == 0xFF && (b[i+1] == 0xC0 || b[i+1] == 0xC2) {
				binary.BigEndian.PutUint16(b[i+5:], uint16(h))
				binary.BigEndian.PutUint16(b[i+7:], uint16(w))
				return b
			}
		}
		t.Fatal("no frame header")
		return nil
	}
	flipped := bytes.Clone(prog)
	for i := len(flipped) / 2; i < len(flipped)-2; i += 37 {
		flipped[i] ^= 0x5A
	}
	return map[string][]byte{
		"empty":                          nil,
		"random bytes":                   bytes.Repeat([]byte{0x13, 0x37, 0xC0, 0xDE}, 300),
		"JPEG start only":                {0xFF, 0xD8},
		"baseline cut in half":           base[:len(base)/2],
		"progressive cut in half":        prog[:len(prog)/2],
		"progressive with damaged scans": flipped,
		"baseline claiming 8000x6000":    claiming(base, 8000, 6000),
		"progressive claiming 8000x6000": claiming(prog, 8000, 6000),
		"JPEG claiming 65535x65535":      claiming(base, 65535, 65535),
		"PNG claiming 100000x100000":     pngClaiming(encodePNG(t, twoTone(40, 30)), 100000, 100000),
		"HEIC":                           append([]byte("\x00\x00\x00\x18ftypheic"), make([]byte, 32)...),
	}
}

// A malformed image never panics the app or holds up the conversation: each one comes
// back from the Preparer as unavailable with a reason the model is told, is cached
// nowhere, and costs a bounded amount of memory (a file of a few kilobytes that claims 48
// megapixels of progressive JPEG must not make any decoder allocate that picture's
// coefficients, which image/jpeg would: about 290 MB).
func TestMalformedImagesThroughThePreparerAreReportedUnavailable(t *testing.T) {
	store := &memImageCache{imgs: map[Key]engine.PreparedImage{}}
	p := NewPreparer(1<<20, store, slog.New(slog.DiscardHandler))
	for name, data := range malformedImages(t) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		img, err := p.PrepareImage(context.Background(), "c", "blob:"+name, data)
		runtime.ReadMemStats(&after)
		var u *engine.ImageUnavailable
		if !errors.As(err, &u) || u.Reason == "" || len(img.JPEG) != 0 {
			t.Errorf("%s: got %dx%d, %v; want it unavailable with a reason", name, img.Width, img.Height, err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
			t.Errorf("%s: allocated %d MiB", name, alloc>>20)
		}
	}
	if store.saves != 0 || p.Memory.Len() != 0 {
		t.Fatalf("a failure was cached: %d saves, %d in memory", store.saves, p.Memory.Len())
	}
}

// A panic inside the optimiser (none is known: the fuzzers look for them) is an unavailable
// image, not the end of the app.
func TestAPanicInTheOptimiserIsAnUnavailableImage(t *testing.T) {
	p := NewPreparer(1<<20, nil, slog.New(slog.DiscardHandler))
	p.optimize = func([]byte) (Result, error) { panic("index out of range") }
	_, err := p.PrepareImage(context.Background(), "c", "blob:x", []byte{1})
	var u *engine.ImageUnavailable
	if !errors.As(err, &u) || !errors.Is(err, ErrCorrupt) || u.Reason != Reason(ErrCorrupt) {
		t.Fatalf("want an unavailable image whose data could not be read, got %v", err)
	}
}

// However long an optimisation takes, the caller gets its answer when its context ends:
// the request waiting for the image is never held past its deadline.
func TestPreparerAnswersWhenTheContextEndsWhileTheOptimiserWorks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		p := NewPreparer(1<<20, nil, slog.New(slog.DiscardHandler))
		p.optimize = func([]byte) (Result, error) {
			<-release // an optimisation that has not finished
			return Result{}, ErrCorrupt
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		start := time.Now()
		_, err := p.PrepareImage(ctx, "c", "blob:x", []byte{1})
		var u *engine.ImageUnavailable
		if !errors.As(err, &u) || !errors.Is(err, context.DeadlineExceeded) || u.Reason == "" {
			t.Fatalf("want an unavailable image at the deadline, got %v", err)
		}
		if waited := time.Since(start); waited != 20*time.Second {
			t.Fatalf("answered after %v, want at the 20 s deadline", waited)
		}
		close(release) // the optimisation ends on its own; its result is dropped
	})
}
