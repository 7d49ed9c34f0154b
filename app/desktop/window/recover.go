package window

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Bringing the page back after its web process ended. The shell reloads the page (after
// the crash backoff's wait), and a watchdog checks that a load really followed: WebKit's
// reload can do nothing at all. WebKitGTK's reload reloads the current page in the web
// process that shows it; when that process died it starts a new one and loads the page
// there (WebPageProxy::reload and launchProcessForReload). But if anything started a new
// process in the meantime, the reload goes to that process, which has loaded nothing, and
// WebCore ignores a reload of a frame that has no document URL (WebPage::reload). The
// idle memory release starts one: webkit_web_view_send_message_to_page makes sure a web
// process runs before it sends (WebPageProxy::ensureRunningProcess), and the release comes
// ten seconds after the page went quiet, which a dead page is, so it lands in the crash
// backoff's wait. The page then stays blank for good, with an idle web process, and no
// load event ever says so. (A reload also does nothing if the process died before any
// page committed: with an empty history there is nothing to reload.)
//
// So each attempt must be followed by a main-frame load (committed or finished) within
// recoverWait; if none comes, the watchdog loads the page's URL afresh (a new navigation
// works in any process state), again and again with a growing wait, logging each time,
// until a load comes or the process ends again (which starts a new recovery).

// recoverWait is how long an attempt to bring the page back gets before the watchdog
// tries again; recoverMaxWait caps the doubling wait between later attempts.
const (
	recoverWait    = 15 * time.Second
	recoverMaxWait = 2 * time.Minute
	// recoverCallTimeout bounds one call into the platform (it runs on the GUI thread).
	recoverCallTimeout = 10 * time.Second
)

// pageRecovery is the watchdog. Its methods may be called from any goroutine.
type pageRecovery struct {
	// reload is the first attempt (the platform's reload); load each later one (a fresh
	// navigation to the page's URL). load may be nil: every attempt reloads then.
	reload func(context.Context) error
	load   func(context.Context) error
	log    *slog.Logger
	// wait and maxWait are recoverWait and recoverMaxWait (shorter in tests).
	wait, maxWait time.Duration

	mu sync.Mutex
	// gen counts recoveries and their ends: a timer of an earlier one finds it changed
	// and does nothing.
	gen      uint64
	pending  bool // the page has not loaded since its process last ended
	attempts int  // attempts made in the pending recovery
	ended    time.Time
	timer    *time.Timer
}

func newPageRecovery(reload, load func(context.Context) error, log *slog.Logger) *pageRecovery {
	return &pageRecovery{reload: reload, load: load, log: log, wait: recoverWait, maxWait: recoverMaxWait}
}

// terminated starts a recovery: the first attempt after delay (the crash backoff's wait).
// A recovery still pending is replaced.
func (r *pageRecovery) terminated(delay time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopLocked()
	r.gen++
	r.pending, r.attempts, r.ended = true, 0, time.Now()
	gen := r.gen
	r.timer = time.AfterFunc(delay, func() { r.attempt(gen) })
}

// loaded is told about every main-frame load that committed or finished: the page is
// back, and a pending recovery ends.
func (r *pageRecovery) loaded() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.pending {
		return
	}
	r.stopLocked()
	r.gen++
	r.pending = false
	if r.attempts > 1 {
		r.log.Info("the page loaded again after its web process ended", "attempts", r.attempts,
			"after", time.Since(r.ended).Round(time.Millisecond))
	}
}

// recovering reports whether the page has not loaded since its web process last ended.
func (r *pageRecovery) recovering() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pending
}

// stop ends the watchdog (the app quits); later calls do nothing until terminated.
func (r *pageRecovery) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopLocked()
	r.gen++
	r.pending = false
}

func (r *pageRecovery) stopLocked() {
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
}

// attempt makes the next attempt of recovery gen, unless the page loaded or its process
// ended again since, and arms the check that a load follows it.
func (r *pageRecovery) attempt(gen uint64) {
	r.mu.Lock()
	if gen != r.gen || !r.pending {
		r.mu.Unlock()
		return
	}
	n := r.attempts
	r.attempts++
	r.timer = nil
	since := time.Since(r.ended).Round(time.Millisecond)
	r.mu.Unlock()

	call, how := r.reload, "reload"
	if n > 0 {
		r.log.Warn("the page did not come back after its web process ended; loading it again",
			"attempt", n+1, "since_ended", since)
		if r.load != nil {
			call, how = r.load, "load"
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), recoverCallTimeout)
	err := call(ctx)
	cancel()

	next := r.backoff(n)
	if err != nil {
		// ErrNotReady included: the view is not set up (yet); the next attempt asks again.
		r.log.Warn("could not bring the page back after its web process ended; trying again",
			"how", how, "attempt", n+1, "err", err, "retry_in", next)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if gen != r.gen || !r.pending {
		return // loaded during the call, or the process ended again
	}
	r.timer = time.AfterFunc(next, func() { r.attempt(gen) })
}

// backoff is the wait after attempt n (0 is the first) for a load to come before the next
// attempt: wait, doubling, at most maxWait.
func (r *pageRecovery) backoff(n int) time.Duration {
	d := r.wait
	for i := 0; i < n && d < r.maxWait; i++ {
		d *= 2
	}
	return min(d, r.maxWait)
}
