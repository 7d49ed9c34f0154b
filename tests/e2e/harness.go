//go:build linux

// Package e2e holds the full-app test harness and the tests of the desktop shell. The
// harness gives every test run a private X server (Xvfb), a private D-Bus session bus and
// a throw-away HOME, builds the program under test once per run, and starts it there.
// Nothing it starts outlives the test; nothing it starts talks to anything but loopback.
// It is Linux-only (Xvfb, process groups, parent-death signals), hence the build tags.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/tests/testkit"
)

// BuildTags are the tags a plain go build of the Wails app needs on Linux, plus
// testcontrol, which compiles in the app's loopback test control (app/run/testcontrol.go)
// that the full-app tests drive; release builds leave it out.
const BuildTags = "webkit2_41,production,testcontrol"

// Display is a private X server plus a private session bus, shared by the tests of one
// package run.
type Display struct {
	Name    string // ":N"
	BusAddr string
	dir     string
	xvfb    *exec.Cmd
	busPID  int
}

// StartDisplay starts Xvfb (it picks a free display number itself via -displayfd) and a
// session bus whose config has no <standard_session_servicedirs/>, so nothing (at-spi)
// gets D-Bus-activated. Call Close when done.
func StartDisplay() (*Display, error) {
	for _, bin := range []string{"Xvfb", "dbus-daemon"} {
		if _, err := exec.LookPath(bin); err != nil {
			return nil, fmt.Errorf("%s not found: install xvfb and dbus (make deps does): %w", bin, err)
		}
	}
	dir, err := os.MkdirTemp("", "clanker-e2e-display-")
	if err != nil {
		return nil, err
	}
	d := &Display{dir: dir}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	d.xvfb = exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x900x24", "-nolisten", "tcp", "-noreset")
	d.xvfb.ExtraFiles = []*os.File{w}
	d.xvfb.Stderr = &bytes.Buffer{}
	d.xvfb.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := d.xvfb.Start(); err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("start Xvfb: %w", err)
	}
	w.Close()
	num := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		num <- strings.TrimSpace(line)
		r.Close()
	}()
	select {
	case n := <-num:
		if n == "" {
			d.Close()
			return nil, fmt.Errorf("x server (Xvfb) did not report a display: %s", d.xvfb.Stderr)
		}
		d.Name = ":" + n
	case <-time.After(20 * time.Second):
		d.Close()
		return nil, errors.New("x server (Xvfb) did not start within 20 s")
	}

	conf := filepath.Join(dir, "session.conf")
	sock := filepath.Join(dir, "bus")
	err = os.WriteFile(conf, []byte(`<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=`+sock+`</listen>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`), 0o600)
	if err != nil {
		d.Close()
		return nil, err
	}
	out, err := exec.Command("dbus-daemon", "--config-file="+conf, "--fork", "--print-address=1", "--print-pid=1").Output()
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("start dbus-daemon: %w", err)
	}
	lines := strings.Fields(string(out))
	if len(lines) < 2 {
		d.Close()
		return nil, fmt.Errorf("dbus-daemon printed %q, want address and pid", out)
	}
	d.BusAddr = lines[0]
	d.busPID, _ = strconv.Atoi(lines[1])
	return d, nil
}

// Close stops the bus and the X server and removes their files.
func (d *Display) Close() {
	if d.busPID > 0 {
		_ = syscall.Kill(d.busPID, syscall.SIGTERM)
	}
	if d.xvfb != nil && d.xvfb.Process != nil {
		_ = d.xvfb.Process.Kill()
		_ = d.xvfb.Wait()
	}
	os.RemoveAll(d.dir)
}

// Env is the environment of a program run on this display with HOME and the XDG dirs
// in home (WebKit and GTK write caches there).
func (d *Display) Env(home string) []string {
	runtimeDir := filepath.Join(home, "run")
	_ = os.MkdirAll(runtimeDir, 0o700)
	keep := []string{"PATH", "LANG", "LC_ALL", "TZ"}
	var env []string
	for _, k := range keep {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return append(env,
		"DISPLAY="+d.Name,
		"DBUS_SESSION_BUS_ADDRESS="+d.BusAddr,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"XDG_RUNTIME_DIR="+runtimeDir,
		"NO_AT_BRIDGE=1",
		"GDK_BACKEND=x11",
	)
}

// Screenshot saves the whole screen of the display as a PNG (ImageMagick's import).
func (d *Display) Screenshot(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	cmd := exec.Command("import", "-display", d.Name, "-window", "root", path)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("import -window root: %v: %s", err, out)
	}
	return nil
}

// RepoRoot is the module root (the directory holding go.mod).
func RepoRoot() (string, error) {
	return testkit.ModuleRoot()
}

// ArtifactsDir is $CLANKER_ARTIFACTS, or <repo>/artifacts.
func ArtifactsDir() string {
	if d := os.Getenv("CLANKER_ARTIFACTS"); d != "" {
		return d
	}
	root, err := RepoRoot()
	if err != nil {
		return "artifacts"
	}
	return filepath.Join(root, "artifacts")
}

var (
	buildMu     sync.Mutex
	buildCache  = map[string]string{}
	webExtBuilt = map[string]bool{}
)

// Build compiles a main package of this module (e.g. "./tests/e2e/shellapp") with the
// Wails tags into dir, once per test run, and returns the binary's path.
func Build(ctx context.Context, pkg, dir string) (string, error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := buildCache[pkg]; ok {
		return p, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.CommandContext(ctx, "go", "build", "-tags", BuildTags, "-o", out, pkg)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	// The page process's web extension is looked for beside the binary, as a release
	// ships it (build/webext.sh), so every binary here gets the folder once.
	if !webExtBuilt[dir] {
		cmd := exec.CommandContext(ctx, "bash", "build/webext.sh", filepath.Join(dir, "web-extensions"))
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("build/webext.sh: %v\n%s", err, b)
		}
		webExtBuilt[dir] = true
	}
	// A file just written is dirty in the page cache until written back, and the kernel
	// pages out only clean file pages: without this the app's deep idle release could not
	// hand back the binary's own code, as it does for an installed one.
	syscall.Sync()
	buildCache[pkg] = out
	return out, nil
}

// procTable reads every process's parent pid and name (comm, cut to 15 bytes by the
// kernel) from /proc.
func procTable() (parent map[int]int, name map[int]string) {
	parent, name = map[int]int{}, map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after the last ')'.
		s := string(stat)
		open, closeIdx := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || closeIdx < open {
			continue
		}
		fields := strings.Fields(s[closeIdx+1:])
		if len(fields) < 2 {
			continue
		}
		parent[p], _ = strconv.Atoi(fields[1])
		name[p] = s[open+1 : closeIdx]
	}
	return parent, name
}

// descendantsOf returns pid's descendants (not pid itself).
func descendantsOf(pid int, parent map[int]int) []int {
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// ProcessTreeRSS sums the resident memory (VmRSS, KiB) of pid and its descendants by
// process name.
func ProcessTreeRSS(pid int) (map[string]int64, error) {
	parent, name := procTable()
	if _, ok := name[pid]; !ok {
		return nil, fmt.Errorf("process %d not found", pid)
	}
	out := map[string]int64{}
	for _, p := range append([]int{pid}, descendantsOf(pid, parent)...) {
		if kb := vmRSSKiB(p); kb > 0 {
			out[name[p]] += kb
		}
	}
	return out, nil
}

// Descendants returns the pids under pid whose process name is name.
func Descendants(pid int, comm string) []int {
	parent, name := procTable()
	var found []int
	for _, p := range descendantsOf(pid, parent) {
		if name[p] == comm {
			found = append(found, p)
		}
	}
	return found
}

// mappedFiles lists the base names of the files process pid has mapped (/proc/PID/maps),
// each once, in the order they first appear; nil when the process is gone.
func mappedFiles(pid int) []string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "maps"))
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		i := strings.LastIndexByte(line, '/')
		if i < 0 {
			continue
		}
		if name := line[i+1:]; !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

// mapsOf reports whether a descendant of pid named comm has the file named file mapped.
func mapsOf(t testing.TB, pid int, comm, file string) bool {
	t.Helper()
	for _, p := range Descendants(pid, comm) {
		if slices.Contains(mappedFiles(p), file) {
			return true
		}
	}
	return false
}

// glDriversMapped lists the GL driver files process pid has mapped: vendor EGL and GLX
// libraries (libEGL_mesa, libGLX_nvidia...), DRI drivers and the LLVM that Mesa's load.
// The dispatch libraries every WebKitGTK process links (libEGL.so.1, libGL.so.1) load no
// driver by themselves and are not listed.
func glDriversMapped(pid int) []string {
	var out []string
	for _, name := range mappedFiles(pid) {
		if strings.HasPrefix(name, "libEGL_") || strings.HasPrefix(name, "libGLX_") ||
			strings.Contains(name, "_dri.so") || strings.HasPrefix(name, "libLLVM") ||
			strings.HasPrefix(name, "libgallium") {
			out = append(out, name)
		}
	}
	return out
}

func vmRSSKiB(pid int) int64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				n, _ := strconv.ParseInt(f[1], 10, 64)
				return n
			}
		}
	}
	return 0
}

func killPID(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

// ProcessPSS is one process of a tree with its proportional set size: its private memory
// plus its share of pages it shares with other processes, so the PSS of several processes
// adds up to the memory they really take together (RSS counts shared libraries and
// WebKit's shared memory once per process).
type ProcessPSS struct {
	PID, Parent int
	Name        string
	KiB         int64
	// AllocKiB is the part of KiB the processes allocated (anonymous and shared memory:
	// heaps, JavaScript and DOM, Go's heap, buffers shared with the web process). The rest
	// is file-backed pages (code, fonts), whose share also moves with how many other
	// processes on the machine map the same libraries.
	AllocKiB int64
	// RSSKiB is its resident set, read with KiB: every page it maps counted whole, however
	// many processes share it.
	RSSKiB int64
}

// ProcessTreePSS returns pid and its descendants with their PSS (from
// /proc/PID/smaps_rollup). Processes that end while it reads are left out.
func ProcessTreePSS(pid int) ([]ProcessPSS, error) {
	parent, name := procTable()
	if _, ok := name[pid]; !ok {
		return nil, fmt.Errorf("process %d not found", pid)
	}
	var out []ProcessPSS
	for _, p := range append([]int{pid}, descendantsOf(pid, parent)...) {
		if m, err := readSmapsRollup(p); err == nil && m.Pss > 0 {
			out = append(out, ProcessPSS{PID: p, Parent: parent[p], Name: name[p], KiB: m.Pss, AllocKiB: m.PssAnon + m.PssShmem, RSSKiB: m.Rss})
		}
	}
	return out, nil
}
