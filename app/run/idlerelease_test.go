package run

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestIdleReleaseRunsOnceTheAppIsQuiet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int32
		r := newIdleRelease(10*time.Second, 60*time.Second, func() { n.Add(1) })
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
		if c, pending := r.Released(); c != 0 || !pending || n.Load() != 0 {
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
		if c, pending := r.Released(); c != 1 || pending || n.Load() != 1 {
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
		r := newIdleRelease(10*time.Second, 60*time.Second, func() { n.Add(1) })
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
		r := newIdleRelease(10*time.Second, 60*time.Second, func() { n.Add(1) })
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
