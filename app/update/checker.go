package update

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Checker looks for updates while the app runs: the first check FirstDelay after the start if
// one is due, then a look every Poll; at most one check per Interval, its result kept in the
// data folder's StateFile. It reports the update to show through OnNotice whenever that
// changes, including at the start from what an earlier run found.
type Checker struct {
	// Version is this build's version (main.version); a build that is not a release never
	// checks (see Checkable).
	Version string
	// Dir is the data folder the state is kept in.
	Dir string
	// Settings returns the update settings now in force; they are read before every check.
	Settings func() engine.Updates
	// Fetch asks the feed ("" for the default): Fetcher.Fetch in the app, a stub in tests.
	Fetch func(ctx context.Context, feed string, allowPre bool) (Release, error)
	// OnNotice receives the update to show (the zero Notice: none) each time it changes.
	OnNotice func(Notice)
	// FirstDelay and Poll override the package's defaults (tests).
	FirstDelay, Poll time.Duration
	Log              *slog.Logger

	once sync.Once
	wake chan struct{}
}

func (c *Checker) init() {
	c.once.Do(func() { c.wake = make(chan struct{}, 1) })
}

// SettingsChanged tells the checker the settings were saved: the notice follows at once (off
// hides it), and a new feed is asked as soon as the first delay has passed.
func (c *Checker) SettingsChanged() {
	c.init()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *Checker) log() *slog.Logger {
	if c.Log == nil {
		return slog.Default()
	}
	return c.Log
}

// Run checks until ctx ends. It returns at once for a build that does not check.
func (c *Checker) Run(ctx context.Context) {
	c.init()
	cur, why := Checkable(c.Version)
	if why != "" {
		c.log().Info("no update checks: " + why)
		return
	}
	state, err := LoadState(c.Dir)
	if err != nil {
		c.log().Warn("update check", "err", err)
	}
	first, poll := c.FirstDelay, c.Poll
	if first <= 0 {
		first = FirstDelay
	}
	if poll <= 0 {
		poll = Poll
	}
	var shown Notice
	publish := func(u engine.Updates) {
		n := NoticeFor(c.Version, u.Check, u.Feed, state)
		if n != shown {
			shown = n
			if n.Version != "" {
				c.log().Info("an update is available", "version", n.Version, "url", n.URL)
			}
			if c.OnNotice != nil {
				c.OnNotice(n)
			}
		}
	}
	publish(c.Settings())
	timer := time.NewTimer(first)
	defer timer.Stop()
	started := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
			started = true
			timer.Reset(poll)
		case <-c.wake:
		}
		u := c.Settings()
		publish(u)
		if !started || !u.Check {
			continue
		}
		if u.Feed == state.Feed && !Due(time.Now(), state.CheckedAt) {
			continue
		}
		next, ok := c.check(ctx, cur, u, state)
		if !ok {
			return // the app is quitting: nothing was learnt, nothing is recorded
		}
		state = next
		publish(u)
	}
}

// check asks the feed once and returns the new state; ok is false when ctx ended meanwhile.
func (c *Checker) check(ctx context.Context, cur Version, u engine.Updates, state State) (State, bool) {
	rel, err := c.Fetch(ctx, u.Feed, len(cur.Pre) > 0)
	if ctx.Err() != nil {
		return state, false
	}
	if state.Feed != u.Feed {
		state.Latest, state.URL = "", ""
	}
	state.Feed = u.Feed
	state.CheckedAt = time.Now()
	if err != nil {
		state.Error = err.Error()
		c.log().Warn("update check failed; the next one is in a day", "feed", feedOrDefault(u.Feed), "err", err)
	} else {
		state.Latest, state.URL, state.Error = rel.Version.String(), rel.URL, ""
		c.log().Info("update check", "feed", feedOrDefault(u.Feed), "latest", state.Latest, "this", cur.String())
	}
	if err := SaveState(c.Dir, state); err != nil {
		c.log().Warn("update check", "err", err)
	}
	return state, true
}
