package run

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// listStore is where the sidebar list is kept between runs (the SQLite store).
type listStore interface {
	SaveSidebarList(ctx context.Context, list map[string]string) error
}

// listKeeper keeps the page link's sidebar list (conversation id to a print of the
// snippet) for the next run, which compares its first list with it to notify about what
// came in while Clanker was not looking. The link hands over a list after every sidebar
// event; the keeper writes the latest at most once per interval, and once more when the
// app closes, so a busy list costs one small write every few seconds.
type listKeeper struct {
	store    listStore
	log      *slog.Logger
	interval time.Duration

	// writing is held around each write, so close waits for a timer's write in progress
	// and the store is never written after the app closed it.
	writing sync.Mutex
	mu      sync.Mutex
	latest  map[string]string // nil when nothing new since the last write
	pending bool              // a write is scheduled
	closed  bool
}

// keep records list as the latest and schedules a write. It never blocks on the store.
func (k *listKeeper) keep(list map[string]string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return
	}
	k.latest = list
	if !k.pending {
		k.pending = true
		time.AfterFunc(k.interval, k.flush)
	}
}

// flush writes the latest list, if there is one not yet written.
func (k *listKeeper) flush() {
	k.writing.Lock()
	defer k.writing.Unlock()
	k.mu.Lock()
	list := k.latest
	k.latest, k.pending = nil, false
	k.mu.Unlock()
	if list == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := k.store.SaveSidebarList(ctx, list); err != nil {
		k.log.Warn("could not keep the sidebar list; the next start may miss or repeat a notification", "err", err)
	}
}

// close writes what is left and stops taking lists; it runs before the store closes.
func (k *listKeeper) close() {
	k.mu.Lock()
	k.closed = true
	k.mu.Unlock()
	k.flush()
}

// listKeepInterval is how long the keeper gathers lists before writing the latest.
const listKeepInterval = 5 * time.Second
