package session

import (
	"context"
	"testing"
	"time"
)

func TestPowerBroadcastsAreReadAsSleepAndWake(t *testing.T) {
	for typ, want := range map[uintptr][2]bool{
		pbtSuspend: {true, false}, pbtResumeAutomatic: {false, true}, pbtResumeSuspend: {false, true},
		0x8: {false, false}, 0xA: {false, false}, 0x8013: {false, false},
	} {
		s, r := powerEvent(typ)
		if s != want[0] || r != want[1] {
			t.Errorf("power event %#x: suspend=%v resume=%v, want %v", typ, s, r, want)
		}
	}
}

// The app registers for suspend and resume notifications (Wails does not, and Modern
// Standby machines send the broadcast only to those that did), and what Windows then
// calls reaches the app's functions. Wine accepts the registration but never calls back,
// so the callback is called here as Windows would.
func TestResumeNotificationsAreRegisteredAndReachTheApp(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	suspended, resumed := make(chan struct{}, 1), make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		done <- WatchResume(ctx, func() { suspended <- struct{}{} }, func() { resumed <- struct{}{} }, nil)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		powerMu.Lock()
		registered := powerRegistration != 0
		powerMu.Unlock()
		if registered {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("registering for suspend and resume notifications failed: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("no registration after 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	onPowerNotification(0, pbtSuspend, 0)
	onPowerNotification(0, pbtResumeAutomatic, 0)
	for name, ch := range map[string]chan struct{}{"suspend": suspended, "resume": resumed} {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Fatalf("the %s notification did not reach the app", name)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	powerMu.Lock()
	left := powerRegistration
	powerMu.Unlock()
	if left != 0 {
		t.Fatal("the registration outlived the watcher")
	}
}
