package window

import (
	"context"
	"errors"
	"time"
)

// Loads and reloads of the page: a failed load (the offline page), a reload after
// the page's web process ended, and one reload per wake from sleep.

// woke handles one report that the machine woke up: the first report of a wake reloads
// the page, the others of the same wake (several sources report it) do nothing.
func (s *Shell) woke(source string) {
	if !s.wake.Woke(time.Now()) {
		s.log.Debug("the same wake reported again", "source", source)
		return
	}
	s.log.Info("the machine woke up; reloading the page", "source", source)
	s.reloadAfterResume()
}

// reloadAfterResume reloads the page after the machine woke up: the Messages page's
// connection to the phone is often stale by then.
func (s *Shell) reloadAfterResume() {
	ctx, err := s.wailsCtx()
	if err != nil {
		return
	}
	if err := s.Reload(ctx); err != nil {
		s.log.Warn("reload after resume failed", "err", err)
	}
}

// Reload reloads the page (after resume from sleep, or on the user's request).
func (s *Shell) Reload(ctx context.Context) error { return s.plat.Reload(ctx) }

func (s *Shell) loadEvent(e LoadEvent) {
	s.mu.Lock()
	s.lastLoad = e
	s.mu.Unlock()
	if e.Failed {
		// The URL can carry a conversation id: keep it out of info logs.
		s.log.Warn("page load failed; showing the offline page", "err", e.Error)
		s.log.Debug("failed load", "url", e.URL)
	}
	if s.opts.OnLoad != nil {
		go s.opts.OnLoad(e)
	}
}

// crashWindow and maxCrashes bound the reload loop when the page kills its web process
// again and again: after maxCrashes in crashWindow, reloads wait longer.
const (
	crashWindow = 2 * time.Minute
	maxCrashes  = 3
)

func (s *Shell) webProcessTerminated(reason int) {
	now := time.Now()
	s.mu.Lock()
	kept := s.crashes[:0]
	for _, t := range s.crashes {
		if now.Sub(t) < crashWindow {
			kept = append(kept, t)
		}
	}
	s.crashes = append(kept, now)
	n := len(s.crashes)
	s.mu.Unlock()
	delay := reloadDelay(n)
	s.log.Warn("web process ended; reloading", "reason", reason, "crashes_recent", n, "delay", delay)
	time.AfterFunc(delay, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.plat.Reload(ctx); err != nil && !errors.Is(err, ErrNotReady) {
			s.log.Error("reload after web process crash failed", "err", err)
		}
	})
}

// reloadDelay is the wait before the n-th reload within crashWindow.
func reloadDelay(n int) time.Duration {
	if n <= maxCrashes {
		return 200 * time.Millisecond
	}
	d := 5 * time.Second << (n - maxCrashes - 1)
	if d > time.Minute || d <= 0 {
		d = time.Minute
	}
	return d
}
