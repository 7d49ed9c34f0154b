package session

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSecondAcquireWakesTheFirstAndReportsAlreadyRunning(t *testing.T) {
	dir := testDir(t)
	woke := make(chan struct{}, 4)
	first, err := AcquireInstance(dir, func() { woke <- struct{}{} }, nil)
	if err != nil {
		t.Fatalf("first AcquireInstance: want success, got %v", err)
	}
	defer first.Close()

	second, err := AcquireInstance(dir, nil, nil)
	if !errors.Is(err, ErrAlreadyRunning) {
		if second != nil {
			second.Close()
		}
		t.Fatalf("second AcquireInstance: want ErrAlreadyRunning, got instance=%v err=%v", second != nil, err)
	}
	select {
	case <-woke:
	case <-time.After(5 * time.Second):
		t.Fatal("the first instance's wake function did not run within 5 s of the second launch")
	}
}

func TestClosedInstanceFreesTheDataDirectoryForTheNextLaunch(t *testing.T) {
	dir := testDir(t)
	first, err := AcquireInstance(dir, nil, nil)
	if err != nil {
		t.Fatalf("first AcquireInstance: %v", err)
	}
	if err := first.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	next, err := AcquireInstance(dir, nil, nil)
	if err != nil {
		t.Fatalf("launch after Close: want a new first instance, got %v", err)
	}
	next.Close()
}

func TestStaleSocketFromACrashedInstanceIsReplaced(t *testing.T) {
	dir := testDir(t)
	// A crashed instance leaves its socket file but no lock holder.
	if err := os.WriteFile(filepath.Join(dir, "instance.sock"), []byte("stale"), 0o600); err != nil {
		t.Fatal(err)
	}
	in, err := AcquireInstance(dir, nil, nil)
	if err != nil {
		t.Fatalf("AcquireInstance over a stale socket: want success, got %v", err)
	}
	in.Close()
}

func TestSetOnWakeReplacesTheWakeFunction(t *testing.T) {
	dir := testDir(t)
	first, err := AcquireInstance(dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	woke := make(chan struct{}, 1)
	first.SetOnWake(func() { woke <- struct{}{} })
	if _, err := AcquireInstance(dir, nil, nil); !errors.Is(err, ErrAlreadyRunning) {
		t.Fatalf("second launch: want ErrAlreadyRunning, got %v", err)
	}
	select {
	case <-woke:
	case <-time.After(5 * time.Second):
		t.Fatal("the wake function set with SetOnWake did not run")
	}
}

// The settings window asks whether an app runs on the data folder without waking it, and
// its own brief look leaves the folder free for the app.
func TestInstanceRunningSeesTheAppWithoutWakingOrHoldingIt(t *testing.T) {
	dir := testDir(t)
	if InstanceRunning(dir) {
		t.Fatal("no app runs yet, but InstanceRunning says one does")
	}
	woke := make(chan struct{}, 1)
	first, err := AcquireInstance(dir, func() { woke <- struct{}{} }, nil)
	if err != nil {
		t.Fatalf("AcquireInstance after InstanceRunning looked: %v", err)
	}
	if !InstanceRunning(dir) {
		t.Fatal("an app holds the folder, but InstanceRunning does not see it")
	}
	select {
	case <-woke:
		t.Fatal("InstanceRunning woke the app")
	default:
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if InstanceRunning(dir) {
		t.Fatal("the app closed, but InstanceRunning still sees it")
	}
}
