package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Behaviour 5, relaxed: a short message waits the 800 ms floor exactly.
func TestRelaxedShortMessageWaitsTheFloorOf800ms(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeAvailable)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "hi clank")) // 8 chars: 0.35-0.44 s of reading, floored
		h.wait(799 * time.Millisecond)
		h.wantRequests(0, "799 ms after a short trigger")
		h.wait(2 * time.Millisecond)
		h.wantRequests(1, "801 ms after a short trigger")
	})
}

// Behaviour 5, relaxed: reading time scales with length at 18-23 characters per second.
func TestRelaxedReadingDelayScalesWithLength(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", strings.Repeat("x", 100))) // 4.35-5.56 s
		h.wait(4340 * time.Millisecond)
		h.wantRequests(0, "before 100 chars at 23 cps")
		h.wait(1220 * time.Millisecond)
		h.wantRequests(1, "after 100 chars at 18 cps")
	})
}

func TestRelaxedImagesAddHalfToOneSecondEach(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		m := in("Ann", "")
		m.Images = []engine.Image{{Src: "blob:https://messages.google.com/a"}, {Src: "blob:https://messages.google.com/b"}}
		h.receive("c1", m) // two images: 1.0-2.0 s
		h.wait(999 * time.Millisecond)
		h.wantRequests(0, "before two images' minimum")
		h.wait(1002 * time.Millisecond)
		h.wantRequests(1, "after two images' maximum")
	})
}

// Behaviour 5, not relaxed: a flat 1.5-2.0 s.
func TestNotRelaxedWaitsAFlatOneAndAHalfToTwoSeconds(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", strings.Repeat("long ", 100)))
		h.wait(1499 * time.Millisecond)
		h.wantRequests(0, "before 1.5 s")
		h.wait(502 * time.Millisecond)
		h.wantRequests(1, "after 2.0 s")
	})
}

// Behaviour 6, relaxed: a second trigger extends the same timer and one request results.
func TestRelaxedSecondMessageExtendsTheWaitAndYieldsOneRequest(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "ok")) // 800 ms
		h.wait(500 * time.Millisecond)
		h.receive("c1", in("Bob", strings.Repeat("y", 46))) // +2.0-2.56 s on the original 800 ms target
		h.wait(2290 * time.Millisecond)                     // t=2.79 s < 0.8+2.0
		h.wantRequests(0, "before the extended target")
		h.wait(580 * time.Millisecond) // t=3.37 s > 0.8+2.56
		h.wantRequests(1, "one request after the extended target")
		h.wait(time.Minute)
		h.wantRequests(1, "still one request")
	})
}

// Behaviour 6: extensions never push the request past now + 15 s.
func TestRelaxedExtensionsNeverPassFifteenSecondsFromNow(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		long := strings.Repeat("z", 300) // 13-16.7 s each
		h.receive("c1", in("Ann", long))
		h.receive("c1", in("Bob", long))
		h.receive("c1", in("Cat", long))
		h.wait(14999 * time.Millisecond)
		h.wantRequests(0, "just before the 15 s cap")
		h.wait(2 * time.Millisecond)
		h.wantRequests(1, "at the 15 s cap")
	})
}

// Behaviour 6, not relaxed: each message restarts the timer; still one request.
func TestNotRelaxedEachMessageRestartsTheTimer(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "a"))
		h.wait(1400 * time.Millisecond)
		h.receive("c1", in("Ann", "b"))
		h.wait(1400 * time.Millisecond) // 2.8 s after the first: would have fired without the restart
		h.wantRequests(0, "timer restarted by the second message")
		h.wait(601 * time.Millisecond)
		h.wantRequests(1, "after the restarted timer")
	})
}

func TestTypingPlanRespectsRatesJitterAndTheTrueEightSecondCap(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		for _, n := range []int{1, 20, 160, 500, 3000} {
			plan := h.e.TypingPlan(n)
			if len(plan) != n {
				t.Fatalf("%d chars: want %d delays, got %d", n, n, len(plan))
			}
			var total time.Duration
			for _, d := range plan {
				total += d
				lo := time.Duration(0)
				if n < 3000 {
					lo = time.Second/450 - time.Microsecond
				}
				if d < lo || d > time.Second/350+150*time.Millisecond {
					t.Fatalf("%d chars: per-character delay %v outside the typing rules", n, d)
				}
			}
			if total > engine.TypingCap {
				t.Fatalf("%d chars: typing takes %v, want at most 8 s including jitter", n, total)
			}
		}
		if plan := h.e.TypingPlan(20000); plan != nil {
			t.Fatalf("want no typing when a character would take under 0.5 ms, got %d delays", len(plan))
		}
	})
}
