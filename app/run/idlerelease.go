package run

import (
	"sync"
	"time"
)

// After a burst of work (page events and commands to the page; a model's reply ends in
// commands) the app hands freed memory back to the system once things are quiet:
// idleQuiet after the last activity, or idleMaxWait after the first if activity never
// stops (a page that reports something every few seconds). Without it the Go collector
// returns free pages only over minutes and glibc keeps what GTK and WebKit's UI side
// freed (issue 17.4).
const (
	idleQuiet   = 10 * time.Second
	idleMaxWait = 60 * time.Second
)

// idleRelease calls release once the app has been quiet for quiet since its last Touch,
// and no later than maxWait after the first Touch of a burst. Nothing runs while the app
// is idle and untouched.
type idleRelease struct {
	quiet, maxWait time.Duration
	release        func()

	mu       sync.Mutex
	timer    *time.Timer
	first    time.Time // first Touch of the pending burst; zero when none is pending
	last     time.Time
	releases int
	closed   bool
}

func newIdleRelease(quiet, maxWait time.Duration, release func()) *idleRelease {
	return &idleRelease{quiet: quiet, maxWait: maxWait, release: release}
}

// Touch records activity. It is cheap: call it on every event. A nil idleRelease (the app
// was not fully built) ignores it.
func (r *idleRelease) Touch() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	now := time.Now()
	r.last = now
	if r.first.IsZero() {
		r.first = now
		r.timer = time.AfterFunc(r.quiet, r.fire)
	}
}

// fire runs when the timer ends: it releases if the app has been quiet long enough or the
// burst has lasted maxWait, and otherwise waits for whichever comes first.
func (r *idleRelease) fire() {
	r.mu.Lock()
	if r.closed || r.first.IsZero() {
		r.mu.Unlock()
		return
	}
	now := time.Now()
	quietFor := now.Sub(r.last)
	if quietFor < r.quiet && now.Sub(r.first) < r.maxWait {
		wait := min(r.quiet-quietFor, r.maxWait-now.Sub(r.first))
		r.timer = time.AfterFunc(wait, r.fire)
		r.mu.Unlock()
		return
	}
	r.first = time.Time{}
	r.timer = nil
	r.releases++
	r.mu.Unlock()
	r.release()
}

// Released reports how many releases have run and whether one is still due (activity
// since the last release).
func (r *idleRelease) Released() (count int, pending bool) {
	if r == nil {
		return 0, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.releases, !r.first.IsZero()
}

// Close stops the timer; later Touches do nothing.
func (r *idleRelease) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	r.first = time.Time{}
}
