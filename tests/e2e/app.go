//go:build linux

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/tests/testkit"
)

// App is one run of a program under test on a Display, with its own HOME.
type App struct {
	Cmd     *exec.Cmd
	Home    string
	Started time.Time
	// Control is what the program wrote to its ready file (its control URL), if any.
	Control string

	out  *testkit.Buffer
	done chan struct{}
}

// StartApp runs bin with args; "{ready}" in args is replaced by a ready-file path, and
// StartApp then waits up to readyWait for the program to write it. The program is killed
// (with its process group: WebKit's helper processes) when the test ends, and its output
// is logged if the test failed.
func StartApp(t testing.TB, d *Display, bin string, readyWait time.Duration, args ...string) *App {
	t.Helper()
	home := t.TempDir()
	ready := filepath.Join(home, "ready")
	useReady := false
	for i, a := range args {
		if strings.Contains(a, "{ready}") {
			args[i] = strings.ReplaceAll(a, "{ready}", ready)
			useReady = true
		}
	}
	a := &App{Home: home, out: &testkit.Buffer{}, done: make(chan struct{})}
	a.Cmd = exec.Command(bin, args...)
	a.Cmd.Env = d.Env(home)
	a.Cmd.Dir = home
	a.Cmd.Stdout = a.out
	a.Cmd.Stderr = a.out
	a.Cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	a.Started = time.Now()
	if err := a.Cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() { _ = a.Cmd.Wait(); close(a.done) }()
	t.Cleanup(func() {
		a.Stop()
		if t.Failed() {
			t.Logf("output of %s:\n%s", filepath.Base(bin), a.Output())
		}
	})
	if useReady {
		testkit.WaitFor(t, readyWait, filepath.Base(bin)+" to become ready", func() (bool, string) {
			select {
			case <-a.done:
				t.Fatalf("%s exited before it was ready:\n%s", filepath.Base(bin), a.Output())
			default:
			}
			b, err := os.ReadFile(ready)
			if err != nil || len(b) == 0 {
				return false, "no ready file yet"
			}
			a.Control = strings.TrimSpace(string(b))
			return true, ""
		})
	}
	return a
}

// Output is everything the program printed so far.
func (a *App) Output() string { return a.out.String() }

// Exited reports whether the program has ended.
func (a *App) Exited() bool {
	select {
	case <-a.done:
		return true
	default:
		return false
	}
}

// Stop kills the program's process group and waits for it.
func (a *App) Stop() {
	if a.Cmd.Process == nil || a.Exited() {
		return
	}
	_ = syscall.Kill(-a.Cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-a.done:
	case <-time.After(5 * time.Second):
		fmt.Fprintf(os.Stderr, "e2e: %s did not exit after SIGKILL\n", a.Cmd.Path)
	}
}
