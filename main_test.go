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

// Flags after a command's words act as they do before the command: config list, set and
// get all see --data-dir wherever it stands, and "--" keeps a dashed value a value.
func TestFlagsAfterTheCommandWordsApply(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := runMain(args, strings.NewReader(""), &out, &errOut); code != 0 {
			t.Fatalf("clanker %s: exit code %d (stderr: %s)", strings.Join(args, " "), code, errOut.String())
		}
		return out.String()
	}
	run("config", "set", "userName", "Robin", "--data-dir", dir, "--no-keychain")
	if got := strings.TrimSpace(run("--no-keychain", "config", "get", "--data-dir", dir, "userName")); got != "Robin" {
		t.Fatalf("config get with --data-dir between the words = %q, want Robin", got)
	}
	if got := run("config", "list", "--data-dir", dir, "--no-keychain"); !strings.Contains(got, "userName=Robin\n") {
		t.Fatalf("config list --data-dir %s did not list the saved name:\n%s", dir, got)
	}
	run("--data-dir", dir, "--no-keychain", "config", "set", "userName", "--", "-Rob")
	if got := strings.TrimSpace(run("config", "get", "userName", "--data-dir", dir, "--no-keychain")); got != "-Rob" {
		t.Fatalf("a value after -- = %q, want -Rob", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "clanker.db")); err != nil {
		t.Fatalf("the settings did not go to the --data-dir given after the command: %v", err)
	}
}

// Started without a terminal (from a desktop menu), the app's errors still reach the
// log file in its data folder, and `clanker diag` names that file.
func TestStartErrorsReachTheLogFileAndDiagNamesIt(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	if code := runMain([]string{"--data-dir", dir, "--no-keychain", "--messages-url", "http://example.com/web"}, strings.NewReader(""), &out, &errOut); code != 2 {
		t.Fatalf("exit code %d for a refused messages URL, want 2 (stderr: %s)", code, errOut.String())
	}
	logged, err := os.ReadFile(filepath.Join(dir, "clanker.log"))
	if err != nil {
		t.Fatalf("no log file in the data folder: %v", err)
	}
	if !strings.Contains(string(logged), "must be https") {
		t.Fatalf("the start error is not in the log file:\n%s", logged)
	}
	out.Reset()
	if code := runMain([]string{"diag", "--data-dir", dir, "--no-keychain"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("diag: exit code %d (stderr: %s)", code, errOut.String())
	}
	if !strings.Contains(out.String(), `"logFile"`) || !strings.Contains(out.String(), "clanker.log") {
		t.Fatalf("diag does not name the log file:\n%s", out.String())
	}
}
