package session

import (
	"testing"
	"time"
)

// One wake is one reload, however many sources report it (Windows reports a resume to
// the window and to the registered callback, and twice when the user is back); a later
// wake, or one after a reported sleep, reloads again.
func TestWakeGateReloadsOncePerWake(t *testing.T) {
	var g WakeGate
	t0 := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	if !g.Woke(t0) {
		t.Fatal("the first wake did not reload")
	}
	for _, d := range []time.Duration{0, time.Second, 5 * time.Second, wakeQuiet - time.Millisecond} {
		if g.Woke(t0.Add(d)) {
			t.Fatalf("a second report %v after the wake reloaded again", d)
		}
	}
	if !g.Woke(t0.Add(wakeQuiet + time.Second)) {
		t.Fatal("a wake after the quiet time did not reload")
	}
	t1 := t0.Add(time.Hour)
	g.Woke(t1)
	g.Suspended()
	if !g.Woke(t1.Add(10 * time.Second)) {
		t.Fatal("a wake after a reported sleep, soon after the last, did not reload")
	}
	if g.Woke(t1.Add(11 * time.Second)) {
		t.Fatal("the same wake reported again reloaded twice")
	}
	if !g.Woke(t1.Add(-time.Hour)) {
		t.Fatal("a wake reported with an earlier clock (the clock was set back) did not reload")
	}
}
