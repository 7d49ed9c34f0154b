package window

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clanker-desktop/clanker/tests/testkit"
)

// recoverCalls records the watchdog's calls into the platform, as "reload@0.2s".
type recoverCalls struct {
	start time.Time
	mu    sync.Mutex
	got   []string
}

func (c *recoverCalls) fn(name string, err error) func(context.Context) error {
	return func(context.Context) error {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.got = append(c.got, fmt.Sprintf("%s@%v", name, time.Since(c.start)))
		return err
	}
}

func (c *recoverCalls) list() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.got)
}

func newTestRecovery(reload, load func(context.Context) error) (*pageRecovery, *testkit.Buffer) {
	// The watchdog's timer goroutines write to it.
	out := &testkit.Buffer{}
	log := slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return newPageRecovery(reload, load, log), out
}

// A reload that brings the page back (a load commits) is all that happens: the watchdog
// never loads the page again, however long the app then runs.
func TestRecoveryReloadThatWorks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &recoverCalls{start: time.Now()}
		r, log := newTestRecovery(c.fn("reload", nil), c.fn("load", nil))
		r.terminated(200 * time.Millisecond)
		time.Sleep(time.Second) // the reload; its load commits a moment later
		r.loaded()
		if r.recovering() {
			t.Error("still recovering after a load")
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if got, want := c.list(), []string{"reload@200ms"}; !slices.Equal(got, want) {
			t.Errorf("calls %v, want %v", got, want)
		}
		if strings.Contains(log.String(), "level=WARN") {
			t.Errorf("warned about a recovery that worked:\n%s", log)
		}
	})
}

// The soak's stall: the reload does nothing and no load ever comes. The watchdog loads
// the page afresh recoverWait after the reload, then after a doubling wait, capped at
// recoverMaxWait, warning each time, and never stops on its own; the first load that
// commits ends it.
func TestRecoveryReloadThatDoesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &recoverCalls{start: time.Now()}
		r, log := newTestRecovery(c.fn("reload", nil), c.fn("load", nil))
		r.terminated(200 * time.Millisecond)
		time.Sleep(12 * time.Minute)
		synctest.Wait()
		want := []string{"reload@200ms", "load@15.2s", "load@45.2s", "load@1m45.2s", "load@3m45.2s",
			"load@5m45.2s", "load@7m45.2s", "load@9m45.2s", "load@11m45.2s"}
		if got := c.list(); !slices.Equal(got, want) {
			t.Fatalf("calls %v, want %v", got, want)
		}
		if n := strings.Count(log.String(), "did not come back after its web process ended"); n != len(want)-1 {
			t.Errorf("%d warnings for %d loads:\n%s", n, len(want)-1, log)
		}
		if !strings.Contains(log.String(), "attempt=9") {
			t.Errorf("the warnings do not count the attempts:\n%s", log)
		}
		r.loaded()
		time.Sleep(time.Hour)
		synctest.Wait()
		if got := c.list(); len(got) != len(want) {
			t.Errorf("calls after the page loaded: %v", got[len(want):])
		}
		if !strings.Contains(log.String(), `msg="the page loaded again after its web process ended" attempts=9`) {
			t.Errorf("the recovery's end is not logged:\n%s", log)
		}
	})
}

// A view that is not ready (or a call that fails) is logged, not ignored, and tried
// again; a load that then commits ends the recovery.
func TestRecoveryRetriesFailedCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &recoverCalls{start: time.Now()}
		r, log := newTestRecovery(c.fn("reload", ErrNotReady), c.fn("load", nil))
		r.terminated(5 * time.Second)
		time.Sleep(20 * time.Second)
		synctest.Wait()
		if got, want := c.list(), []string{"reload@5s", "load@20s"}; !slices.Equal(got, want) {
			t.Errorf("calls %v, want %v", got, want)
		}
		if !strings.Contains(log.String(), "could not bring the page back after its web process ended") ||
			!strings.Contains(log.String(), ErrNotReady.Error()) {
			t.Errorf("the failed reload is not logged with its error:\n%s", log)
		}
		r.loaded()
		time.Sleep(time.Hour)
		synctest.Wait()
		if got := c.list(); len(got) != 2 {
			t.Errorf("calls after the page loaded: %v", got)
		}
	})
}

// The process ending again while a recovery is pending starts a new one: the first
// recovery's check does not fire, and the new one waits the new crash backoff first.
func TestRecoveryRestartsOnAnotherTermination(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &recoverCalls{start: time.Now()}
		r, _ := newTestRecovery(c.fn("reload", nil), c.fn("load", nil))
		r.terminated(200 * time.Millisecond)
		time.Sleep(5 * time.Second)
		r.terminated(5 * time.Second) // at 5 s; the reload waits until 10 s
		time.Sleep(21 * time.Second)
		synctest.Wait()
		if got, want := c.list(), []string{"reload@200ms", "reload@10s", "load@25s"}; !slices.Equal(got, want) {
			t.Errorf("calls %v, want %v", got, want)
		}
		r.stop()
		time.Sleep(time.Hour)
		synctest.Wait()
		if got := c.list(); len(got) != 3 {
			t.Errorf("calls after stop: %v", got)
		}
	})
}

// A load before the delayed reload (or any load with no recovery pending) makes the
// reload unnecessary, and a platform without a fresh load reloads on every attempt.
func TestRecoveryLoadedEarlyAndReloadOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &recoverCalls{start: time.Now()}
		r, _ := newTestRecovery(c.fn("reload", nil), nil)
		r.loaded() // nothing pending: nothing happens
		r.terminated(10 * time.Second)
		time.Sleep(time.Second)
		r.loaded()
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := c.list(); len(got) != 0 {
			t.Errorf("calls after a load that came before the reload: %v", got)
		}
		r.terminated(time.Second)
		time.Sleep(20 * time.Second)
		synctest.Wait()
		if got, want := c.list(), []string{"reload@1m2s", "reload@1m17s"}; !slices.Equal(got, want) {
			t.Errorf("calls %v, want %v", got, want)
		}
		r.stop()
	})
}

func TestRecoveryBackoff(t *testing.T) {
	r := newPageRecovery(nil, nil, slog.Default())
	var got []time.Duration
	for n := range 6 {
		got = append(got, r.backoff(n))
	}
	want := []time.Duration{15 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 2 * time.Minute, 2 * time.Minute}
	if !slices.Equal(got, want) {
		t.Errorf("backoff %v, want %v", got, want)
	}
}

func TestRecoveryURL(t *testing.T) {
	const target, origin = "https://messages.google.com/web/", "https://messages.google.com"
	for _, c := range []struct{ current, want string }{
		{"https://messages.google.com/web/conversations/42", "https://messages.google.com/web/conversations/42"},
		{"https://MESSAGES.google.com/web/conversations/42", "https://MESSAGES.google.com/web/conversations/42"},
		{"", target},
		{"wails://wails/?offline=The%20server%20could%20not%20be%20reached.", target},
		{"https://accounts.google.com/signin", target},
		{"http://messages.google.com/web/", target},
		{"https://messages.google.com.evil.example/web/", target},
	} {
		if got := recoveryURL(c.current, target, origin); got != c.want {
			t.Errorf("recoveryURL(%q) = %q, want %q", c.current, got, c.want)
		}
	}
}
