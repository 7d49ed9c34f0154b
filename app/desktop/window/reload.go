package window

import (
	"context"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/internal/native"
)

// Loads and reloads of the page: a failed load (the offline page), a reload after
// the page's web process ended (watched over by recover.go), and one reload per wake from
// sleep.

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
	} else {
		s.recovery.loaded()
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
	s.recovery.terminated(delay)
}

// newRecovery is the shell's watchdog over the reload after the page's web process ended
// (recover.go): it reloads, and where the platform can, loads the page afresh.
func (s *Shell) newRecovery() *pageRecovery {
	var load func(context.Context) error
	if l, ok := s.plat.(native.Loader); ok {
		load = func(ctx context.Context) error {
			var current string
			if h, ok := s.plat.(native.HistoryView); ok {
				var err error
				if current, err = h.HistoryURL(ctx); err != nil {
					s.log.Debug("the page's history was not read", "err", err)
				}
			}
			target := recoveryURL(current, s.opts.TargetURL, s.origin)
			// The URL can carry a conversation id: keep it out of info logs.
			s.log.Debug("loading the page afresh", "url", target)
			return l.LoadURL(ctx, target)
		}
	}
	return newPageRecovery(s.plat.Reload, load, s.log)
}

// recoveryURL is the URL the watchdog loads: the page as it was (the history's current
// item, so the conversation that was open comes back) when it is on the target's origin,
// otherwise the target URL the app starts with (the offline page, a sign-in page or an
// empty history).
func recoveryURL(current, target, origin string) string {
	if current != "" && originOf(current) == origin {
		return current
	}
	return target
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
