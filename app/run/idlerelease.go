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
//
// When the app then stays quiet for idleDeepQuiet (the user is away, the conversations are
// still), the release is a deep one: both processes also hand back the pages of code and
// read-only data they read once, at start-up or for a page load, and have not touched
// since (about 10 MiB in the window's process and 25 MiB in the page's; issue 32.2). The
// next conversation switch reads back what it needs of them, so a deep release comes only
// after a quiet long enough that this is rare, and once per quiet.
const (
	idleQuiet     = 10 * time.Second
	idleMaxWait   = 60 * time.Second
	idleDeepQuiet = 2 * time.Minute
)

// idleRelease calls release(false) once the app has been quiet for quiet since its last
// Touch, and no later than maxWait after the first Touch of a burst; and release(true)
// once it has been quiet for deepQuiet, if there was activity since the last deep release.
// Nothing runs while the app is idle and untouched.
type idleRelease struct {
	quiet, maxWait, deepQuiet time.Duration
	release                   func(deep bool)

	mu        sync.Mutex
	timer     *time.Timer // the light release of the pending burst
	deepTimer *time.Timer
	first     time.Time // first Touch of the pending burst; zero when none is pending
	last      time.Time
	deepOwed  bool // activity since the last deep release
	releases  int  // every release, deep ones included
	deeps     int
	closed    bool
}

func newIdleRelease(quiet, maxWait, deepQuiet time.Duration, release func(deep bool)) *idleRelease {
	return &idleRelease{quiet: quiet, maxWait: maxWait, deepQuiet: deepQuiet, release: release}
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
	r.deepOwed = true
	if r.first.IsZero() {
		r.first = now
		r.timer = time.AfterFunc(r.quiet, r.fire)
	}
}

// fire runs when the light timer ends: it releases if the app has been quiet long enough
// or the burst has lasted maxWait, and otherwise waits for whichever comes first. After a
// release it sets the deep release's timer.
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
	r.armDeep(now)
	r.mu.Unlock()
	r.release(false)
}

// armDeep (with mu held) sets the deep release's timer for deepQuiet after the last
// activity, unless one is set already.
func (r *idleRelease) armDeep(now time.Time) {
	if r.deepTimer != nil || !r.deepOwed {
		return
	}
	r.deepTimer = time.AfterFunc(max(r.last.Add(r.deepQuiet).Sub(now), 0), r.fireDeep)
}

// fireDeep runs when the deep timer ends: the deep release runs if the app is still quiet
// and no burst is pending; a burst that is still going re-arms it when its own release runs.
func (r *idleRelease) fireDeep() {
	r.mu.Lock()
	r.deepTimer = nil
	if r.closed || !r.deepOwed || !r.first.IsZero() {
		r.mu.Unlock()
		return
	}
	now := time.Now()
	if now.Sub(r.last) < r.deepQuiet {
		r.armDeep(now)
		r.mu.Unlock()
		return
	}
	r.deepOwed = false
	r.releases++
	r.deeps++
	r.mu.Unlock()
	r.release(true)
}

// IdleReleases is what the idle release has done and still owes.
type IdleReleases struct {
	// Count is how many releases have run, deep ones included; Deep how many were deep.
	Count, Deep int
	// Due: there was activity since the last release, so another is coming; DeepDue:
	// since the last deep one.
	Due, DeepDue bool
}

// Released reports the releases so far and those still due.
func (r *idleRelease) Released() IdleReleases {
	if r == nil {
		return IdleReleases{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return IdleReleases{Count: r.releases, Deep: r.deeps, Due: !r.first.IsZero(), DeepDue: r.deepOwed}
}

// Close stops the timers; later Touches do nothing.
func (r *idleRelease) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	for _, t := range []*time.Timer{r.timer, r.deepTimer} {
		if t != nil {
			t.Stop()
		}
	}
	r.timer, r.deepTimer = nil, nil
	r.first = time.Time{}
}
