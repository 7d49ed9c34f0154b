package run

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestIdleReleaseRunsOnceTheAppIsQuiet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int32
		r := newIdleRelease(10*time.Second, 60*time.Second, time.Hour, func(deep bool) {
			if !deep {
				n.Add(1)
			}
		})
		defer r.Close()

		time.Sleep(time.Hour)
		synctest.Wait()
		if n.Load() != 0 {
			t.Fatal("released with no activity at all")
		}
		// A burst of events 2 s apart: nothing is released while it lasts.
		for range 4 {
			r.Touch()
			time.Sleep(2 * time.Second)
		}
		synctest.Wait()
		if st := r.Released(); st.Count != 0 || !st.Due || n.Load() != 0 {
			c, pending := st.Count, st.Due
			t.Fatalf("released during the burst: count %d, pending %v, calls %d", c, pending, n.Load())
		}
		// The burst's last sleep was 2 s; at 9.9 s after the last event nothing has run yet,
		// at 10.1 s the release has run once.
		time.Sleep(7*time.Second + 900*time.Millisecond)
		synctest.Wait()
		if n.Load() != 0 {
			t.Fatalf("released %v after the last event, before the 10 s quiet", 9900*time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond)
		synctest.Wait()
		if st := r.Released(); st.Count != 1 || st.Due || n.Load() != 1 {
			c, pending := st.Count, st.Due
			t.Fatalf("after 10 s quiet: count %d, pending %v, calls %d; want one release, none pending", c, pending, n.Load())
		}
		// Quiet again: nothing more, however long.
		time.Sleep(time.Hour)
		synctest.Wait()
		if n.Load() != 1 {
			t.Fatalf("released %d times while idle; want 1", n.Load())
		}
	})
}

func TestIdleReleaseRunsDuringActivityThatNeverStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int32
		r := newIdleRelease(10*time.Second, 60*time.Second, time.Hour, func(deep bool) {
			if !deep {
				n.Add(1)
			}
		})
		defer r.Close()
		// An event every 5 s for 5 minutes: the quiet never comes, so the release runs at
		// most every 60 s instead.
		start := time.Now()
		var at []time.Duration
		for range 60 {
			r.Touch()
			time.Sleep(5 * time.Second)
			synctest.Wait()
			if int(n.Load()) > len(at) {
				at = append(at, time.Since(start))
			}
		}
		if len(at) < 4 || len(at) > 5 {
			t.Fatalf("released %d times in 5 minutes of steady events (at %v); want every 60 s", len(at), at)
		}
		for i, d := range at {
			if want := time.Duration(i+1) * 60 * time.Second; d < want || d > want+10*time.Second {
				t.Fatalf("release %d at %v; want about %v", i+1, d, want)
			}
		}
	})
}

func TestIdleReleaseAfterCloseDoesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int32
		r := newIdleRelease(10*time.Second, 60*time.Second, time.Hour, func(deep bool) {
			if !deep {
				n.Add(1)
			}
		})
		r.Touch()
		r.Close()
		r.Touch()
		time.Sleep(time.Hour)
		synctest.Wait()
		if n.Load() != 0 {
			t.Fatalf("released %d times after Close", n.Load())
		}
	})
}

// idleCalls records the releases an idleRelease runs, light and deep, with their times.
type idleCalls struct {
	mu    sync.Mutex
	start time.Time
	calls []idleCall
}

type idleCall struct {
	at   time.Duration
	deep bool
}

func (c *idleCalls) release(deep bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, idleCall{time.Since(c.start), deep})
}

func (c *idleCalls) get() []idleCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.calls)
}

func TestIdleReleaseGoesDeepOnceAfterALongQuiet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &idleCalls{start: time.Now()}
		r := newIdleRelease(10*time.Second, 60*time.Second, 2*time.Minute, c.release)
		defer r.Close()
		r.Touch()
		time.Sleep(10*time.Second + time.Millisecond)
		synctest.Wait()
		if got := c.get(); len(got) != 1 || got[0].deep {
			t.Fatalf("after 10 s quiet: %v; want one light release", got)
		}
		if st := r.Released(); st.Count != 1 || st.Deep != 0 || st.Due || !st.DeepDue {
			t.Fatalf("after the light release: %+v; want a deep one still due", st)
		}
		// Just short of 2 minutes after the activity: still no deep release.
		time.Sleep(2*time.Minute - 10*time.Second - 2*time.Millisecond)
		synctest.Wait()
		if got := c.get(); len(got) != 1 {
			t.Fatalf("before 2 minutes of quiet: %v", got)
		}
		time.Sleep(2 * time.Millisecond)
		synctest.Wait()
		got := c.get()
		if len(got) != 2 || !got[1].deep || got[1].at != 2*time.Minute {
			t.Fatalf("after 2 minutes of quiet: %v; want a deep release at 2m0s", got)
		}
		if st := r.Released(); st.Count != 2 || st.Deep != 1 || st.Due || st.DeepDue {
			t.Fatalf("after the deep release: %+v; want nothing due", st)
		}
		// Idle for a day: nothing more.
		time.Sleep(24 * time.Hour)
		synctest.Wait()
		if got := c.get(); len(got) != 2 {
			t.Fatalf("while idle: %v; want nothing after the deep release", got)
		}
		// New activity owes a new deep release, 2 minutes after it.
		r.Touch()
		time.Sleep(3 * time.Minute)
		synctest.Wait()
		if got := c.get(); len(got) != 4 || got[2].deep || !got[3].deep {
			t.Fatalf("after new activity: %v; want a light then a deep release", got)
		}
	})
}

func TestIdleReleaseNeverGoesDeepWhileInUse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &idleCalls{start: time.Now()}
		r := newIdleRelease(10*time.Second, 60*time.Second, 2*time.Minute, c.release)
		defer r.Close()
		// A message every 90 s for an hour: light releases between them, no deep one (the
		// quiet never lasts 2 minutes).
		for range 40 {
			r.Touch()
			time.Sleep(90 * time.Second)
		}
		synctest.Wait()
		got := c.get()
		if len(got) != 40 {
			t.Fatalf("%d releases for 40 messages 90 s apart; want one light release after each", len(got))
		}
		for _, call := range got {
			if call.deep {
				t.Fatalf("a deep release at %v while a message came every 90 s", call.at)
			}
		}
		// And events every 5 s (forced light releases every minute): still none deep, and
		// one deep 2 minutes after they stop.
		for range 60 {
			r.Touch()
			time.Sleep(5 * time.Second)
		}
		stopped := time.Since(c.start) - 5*time.Second
		synctest.Wait()
		for _, call := range c.get() {
			if call.deep {
				t.Fatalf("a deep release at %v during steady events", call.at)
			}
		}
		time.Sleep(3 * time.Minute)
		synctest.Wait()
		got = c.get()
		last := got[len(got)-1]
		if !last.deep || last.at != stopped+2*time.Minute {
			t.Fatalf("last release %+v; want a deep one 2 minutes after the events stopped (at %v)", last, stopped+2*time.Minute)
		}
		if st := r.Released(); st.Deep != 1 || st.Due || st.DeepDue {
			t.Fatalf("%+v; want exactly one deep release and nothing due", st)
		}
	})
}
