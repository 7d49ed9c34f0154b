package main

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/session"
)

func TestVersionFlagPrintsTheStampedVersion(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runMain([]string{"--version"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("exit code = %d, want 0 (stderr: %s)", code, errOut.String())
	}
	if got, want := strings.TrimSpace(out.String()), "clanker "+version; got != want {
		t.Fatalf("output = %q, want %q", got, want)
	}
}

func TestUnknownFlagFailsWithUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runMain([]string{"--bogus"}, strings.NewReader(""), &out, &errOut); code != 2 {
		t.Fatalf("exit code = %d, want 2", code)
	}
	if !strings.Contains(errOut.String(), "usage: clanker") {
		t.Fatalf("stderr does not show usage: %q", errOut.String())
	}
}

func TestSecondLaunchOnTheSameDataDirExitsCleanlyAndWakesTheFirst(t *testing.T) {
	dir := t.TempDir()
	woke := make(chan struct{}, 1)
	// The first instance logs with its own logger: runMain makes stderr the default log, and
	// the first instance's socket goroutine must not write into the test's buffer.
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	first, err := session.AcquireInstance(dir, func() { woke <- struct{}{} }, quiet)
	if err != nil {
		t.Fatalf("the first instance could not claim %s: %v", dir, err)
	}
	defer first.Close()
	var out bytes.Buffer
	var errOut lockedBuffer
	if code := runMain([]string{"--data-dir", dir, "--no-keychain"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("second launch: exit code = %d, want 0 (stderr: %s)", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "already running") {
		t.Errorf("second launch should say Clanker is already running; stderr: %q", errOut.String())
	}
	select {
	case <-woke:
	case <-time.After(10 * time.Second):
		t.Fatal("the first instance was not asked to show its window within 10 s")
	}
	if _, err := os.Stat(filepath.Join(dir, "clanker.db")); err == nil {
		t.Error("the second launch opened the database it does not own")
	}
}

// lockedBuffer is a bytes.Buffer safe for the goroutines that log while runMain runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
