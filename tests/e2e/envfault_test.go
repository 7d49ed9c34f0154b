//go:build linux

package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/tests/testkit"
)

// markerEnv tags every process a test starts, and through inheritance everything those
// start in turn, so the test can find what outlived the app without guessing by name
// (other tests on the machine run dbus-daemons of their own).
const markerEnv = "CLANKER_ENVFAULT_MARKER"

func newMarker(t *testing.T) string {
	t.Helper()
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return markerEnv + "=" + hex.EncodeToString(b)
}

// marked lists the live processes whose environment holds marker, with their command lines.
func marked(marker string) []string {
	var found []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !bytes.Contains(env, []byte(marker+"\x00")) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join(d, "stat")); err == nil {
			if i := bytes.LastIndexByte(stat, ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
				continue // a zombie waiting for its parent holds nothing
			}
		}
		cmd, _ := os.ReadFile(filepath.Join(d, "cmdline"))
		found = append(found, filepath.Base(d)+": "+strings.ReplaceAll(string(bytes.TrimRight(cmd, "\x00")), "\x00", " "))
	}
	return found
}

// noBusEnv is the environment of a run without a session bus: no DBUS_SESSION_BUS_ADDRESS
// and a runtime folder without a bus socket, which is where an unset address makes D-Bus
// clients start one of their own with dbus-launch.
func noBusEnv(t *testing.T, display, marker string) []string {
	t.Helper()
	home := t.TempDir()
	run := filepath.Join(home, "run")
	if err := os.MkdirAll(run, 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "XDG_RUNTIME_DIR=" + run, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "NO_AT_BRIDGE=1", "GDK_BACKEND=x11",
		"WEBKIT_DISABLE_DMABUF_RENDERER=1", marker}
	if display != "" {
		env = append(env, "DISPLAY="+display)
	}
	for _, k := range []string{"PATH", "LANG", "TZ"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func buildClanker(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin, err := Build(ctx, "github.com/clanker-desktop/clanker", binDir)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// runToEnd runs the binary and returns its exit code and output.
func runToEnd(t *testing.T, bin string, env []string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	}
	t.Fatalf("run %s: %v", bin, err)
	return -1, ""
}

// oneClearLine checks that the output ends in one "clanker: ..." sentence and holds no Go trace.
func oneClearLine(t *testing.T, what, out, want string) {
	t.Helper()
	if strings.Contains(out, "panic") || strings.Contains(out, "goroutine ") {
		t.Errorf("%s printed a Go trace:\n%s", what, out)
	}
	var errs []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, "clanker: ") {
			errs = append(errs, l)
		}
	}
	if len(errs) != 1 || !strings.Contains(errs[0], want) {
		t.Errorf("%s: want one line saying %q, got:\n%s", what, want, out)
	}
}

// The scan the tests below rely on finds a marked process that outlives its parent, so an
// empty result from it means something.
func TestMarkedProcessScanFindsADetachedProcess(t *testing.T) {
	marker := newMarker(t)
	cmd := exec.Command("sleep", "60")
	cmd.Env = append(os.Environ(), marker)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	// Start returns once the child has left the fork, which on Linux is before the kernel
	// has finished laying out the new program: /proc/<pid>/environ can read empty for a moment
	// (CI caught the scan there). So the scan gets until a generous deadline to see it.
	var got []string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if got = marked(marker); len(got) == 1 && strings.Contains(got[0], "sleep 60") {
			return
		}
		if time.Now().After(deadline) {
			break
		}
	}
	t.Fatalf("the scan did not find the detached sleep in 30 s: %v", got)
}

// Without a display the app and the settings window print one sentence and exit 1, instead
// of GTK's "failed to init GTK" panic, and start nothing that stays.
func TestNoDisplayGivesOneClearLineAndNoTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the real app")
	}
	bin := buildClanker(t)
	marker := newMarker(t)
	for _, args := range [][]string{{}, {"demo"}, {"settings"}} {
		code, out := runToEnd(t, bin, noBusEnv(t, "", marker), append(args, "--data-dir", t.TempDir())...)
		if code == 0 {
			t.Errorf("clanker %v without a display exited 0:\n%s", args, out)
		}
		oneClearLine(t, "clanker "+strings.Join(args, " ")+" without a display", out, "no graphical desktop session")
	}
	// A DISPLAY that names no server: GTK cannot start, and that too is one sentence.
	code, out := runToEnd(t, bin, noBusEnv(t, ":"+freeDisplayNumber(t), marker), "--data-dir", t.TempDir())
	if code == 0 {
		t.Errorf("clanker on a display with no server exited 0:\n%s", out)
	}
	oneClearLine(t, "clanker on a display with no server", out, "could not open a window")
	if left := marked(marker); len(left) > 0 {
		t.Errorf("processes outlived the app: %v", left)
	}
}

// Without a session bus the app runs (on the test display), and when it is gone nothing it
// started remains: before, every run left a dbus-daemon started through dbus-launch.
func TestNoSessionBusStartsNothingThatOutlivesTheApp(t *testing.T) {
	needDisplay(t)
	bin := buildClanker(t)
	marker := newMarker(t)
	home := t.TempDir()
	ready := filepath.Join(home, "ready")
	cmd := exec.Command(bin, "demo", "--data-dir", filepath.Join(home, "data"), "--no-keychain", "--test-control", ready, "-v")
	cmd.Env = noBusEnv(t, display.Name, marker)
	var out testkit.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		if t.Failed() {
			t.Logf("app output:\n%s", out.String())
		}
	}()
	testkit.WaitFor(t, 90*time.Second, "the app without a session bus to become ready", func() (bool, string) {
		select {
		case <-done:
			t.Fatalf("the app exited without a session bus:\n%s", out.String())
		default:
		}
		b, err := os.ReadFile(ready)
		return err == nil && len(b) > 0, "no ready file yet"
	})
	if !strings.Contains(out.String(), "no session D-Bus") {
		t.Errorf("the log does not say the session bus is missing:\n%s", out.String())
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the app and its WebKit helpers
	<-done
	testkit.WaitFor(t, 30*time.Second, "every process of the app to be gone", func() (bool, string) {
		left := marked(marker)
		return len(left) == 0, strings.Join(left, "; ")
	})
}

// freeDisplayNumber is an X display number with no server (no socket) on this machine.
func freeDisplayNumber(t *testing.T) string {
	t.Helper()
	for n := 180; n < 400; n++ {
		if _, err := os.Stat("/tmp/.X11-unix/X" + strconv.Itoa(n)); errors.Is(err, os.ErrNotExist) {
			return strconv.Itoa(n)
		}
	}
	t.Fatal("no free X display number")
	return ""
}
