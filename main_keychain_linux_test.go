package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/keychain"
	"github.com/clanker-desktop/clanker/app/sqlite"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// The API key in a real keychain: GNOME Keyring's daemon on a private session bus, with
// the real command line (`clanker config ...`) run in a process of its own for every step,
// so each step is a fresh start of the app's keychain use (its own D-Bus connection, its
// own store). Nothing here touches the user's own keyring or session bus: the bus, the
// keyring's files and its control socket all live in the test's temporary folder.

// keyringPassword unlocks the test keyring; it exists only in the test's folder.
const keyringPassword = "clanker-test-keyring"

// readKeychainEnv makes the test binary print what the keychain holds for Clanker
// (app/keychain, as the app reads it) and exit: a view of the keyring that does not go
// through the store, so the test sees where the key really is.
const readKeychainEnv = "CLANKER_TEST_READ_KEYCHAIN"

// printKeychain is the test binary's work under readKeychainEnv (see TestMain).
func printKeychain() {
	v, err := keychain.System{}.GetSecret()
	switch {
	case errors.Is(err, engine.ErrNoSecret):
		fmt.Print("none")
	case err != nil:
		fmt.Printf("error: %v", err)
	default:
		fmt.Print("key: " + v)
	}
}

// privateSession is a session bus of the test's own, and the home folder the programs on it
// see.
type privateSession struct {
	dir, home, addr string
	bus             *exec.Cmd
	keyring         *exec.Cmd
}

// startPrivateSession starts dbus-daemon on a socket in a temporary folder. Its config
// lists no service folders, so nothing is started on demand: a name is owned only by what
// the test starts itself, and asking for a missing one fails at once.
func startPrivateSession(t *testing.T) *privateSession {
	t.Helper()
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		t.Fatal("dbus-daemon not found: run bash build/install-deps.sh (package dbus)")
	}
	// A short folder name: a unix socket path has room for about 100 bytes.
	dir, err := os.MkdirTemp("", "clanker-kr-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &privateSession{dir: dir, home: filepath.Join(dir, "home")}
	for _, d := range []string{s.home, filepath.Join(dir, "run")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	conf := filepath.Join(dir, "bus.conf")
	err = os.WriteFile(conf, []byte(`<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=`+filepath.Join(dir, "bus")+`</listen>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	s.bus = exec.Command("dbus-daemon", "--config-file="+conf, "--nofork", "--print-address=1")
	s.bus.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := s.bus.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.bus.Start(); err != nil {
		t.Fatalf("start dbus-daemon: %v", err)
	}
	t.Cleanup(func() { stopProcess(s.bus) })
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		addr <- strings.TrimSpace(line)
	}()
	select {
	case s.addr = <-addr:
	case <-time.After(60 * time.Second):
		t.Fatal("dbus-daemon printed no address within 60 s")
	}
	if s.addr == "" {
		t.Fatal("dbus-daemon exited without printing its address")
	}
	return s
}

// env is the environment of a program in this session: the private bus, and HOME and the
// XDG folders inside the test's folder (GNOME Keyring keeps its files and socket there).
func (s *privateSession) env() []string {
	env := []string{
		"DBUS_SESSION_BUS_ADDRESS=" + s.addr,
		"HOME=" + s.home,
		"XDG_DATA_HOME=" + filepath.Join(s.home, ".local", "share"),
		"XDG_CONFIG_HOME=" + filepath.Join(s.home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(s.home, ".cache"),
		"XDG_RUNTIME_DIR=" + filepath.Join(s.dir, "run"),
	}
	for _, k := range []string{"PATH", "LANG", "TZ", "GOCOVERDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// startKeyring starts GNOME Keyring's Secret Service on the session's bus and unlocks its
// login keyring with keyringPassword (creating the keyring the first time), as a desktop
// login does. It returns once the daemon owns org.freedesktop.secrets.
func (s *privateSession) startKeyring(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("gnome-keyring-daemon"); err != nil {
		t.Fatal("gnome-keyring-daemon not found: run bash build/install-deps.sh (package gnome-keyring)")
	}
	cmd := exec.Command("gnome-keyring-daemon", "--foreground", "--components=secrets", "--unlock")
	cmd.Env = s.env()
	cmd.Stdin = strings.NewReader(keyringPassword)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start gnome-keyring-daemon: %v", err)
	}
	s.keyring = cmd
	t.Cleanup(func() { stopProcess(cmd) })
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	conn, err := dbus.Connect(s.addr)
	if err != nil {
		t.Fatalf("connect to the private bus: %v", err)
	}
	defer conn.Close()
	testkit.WaitFor(t, 60*time.Second, "gnome-keyring-daemon to own org.freedesktop.secrets", func() (bool, string) {
		select {
		case <-exited:
			t.Fatalf("gnome-keyring-daemon exited before it owned org.freedesktop.secrets: %s", logs.String())
		default:
		}
		var owned bool
		err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.freedesktop.secrets").Store(&owned)
		return err == nil && owned, fmt.Sprintf("owned %v, err %v", owned, err)
	})
}

// stopKeyring ends the daemon, as a logout does, and waits until it has gone, so the next
// start finds only what it wrote to disk.
func (s *privateSession) stopKeyring(t *testing.T) {
	t.Helper()
	stopProcess(s.keyring)
	conn, err := dbus.Connect(s.addr)
	if err != nil {
		t.Fatalf("connect to the private bus: %v", err)
	}
	defer conn.Close()
	testkit.WaitFor(t, 60*time.Second, "org.freedesktop.secrets to be released", func() (bool, string) {
		var owned bool
		err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.freedesktop.secrets").Store(&owned)
		return err == nil && !owned, fmt.Sprintf("owned %v, err %v", owned, err)
	})
}

// stopProcess ends a process the test started (its process group, which it leads) and
// reaps it; a process already gone is fine.
func stopProcess(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _, _ = cmd.Process.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// clanker runs the command line in a process of its own in the session and returns its
// exit code and output. A generous deadline stops a hung keychain call from hanging the test.
func (s *privateSession) clanker(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return s.child(t, runAsCLIEnv, stdin, args...)
}

// keychainHolds is what app/keychain reads from the keyring in a process of its own: "none",
// "key: ..." or "error: ...".
func (s *privateSession) keychainHolds(t *testing.T) string {
	t.Helper()
	_, out, _ := s.child(t, readKeychainEnv, "")
	return out
}

func (s *privateSession) child(t *testing.T, mode, stdin string, args ...string) (int, string, string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Env = append(s.env(), mode+"=1")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s %v did not finish within 90 s (a keychain call hung?)\nstderr: %s", mode, args, errOut.String())
	}
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("run %s %v: %v", mode, args, err)
	}
	return code, out.String(), errOut.String()
}

// databaseHolds reports whether the key's text is anywhere in the data folder's files (the
// database and its write-ahead log).
func databaseHolds(t *testing.T, dir, key string) bool {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), sqlite.FileName) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(key)) {
			return true
		}
	}
	return false
}

func TestAPIKeyLivesInARealGnomeKeyring(t *testing.T) {
	s := startPrivateSession(t)
	s.startKeyring(t)
	data := filepath.Join(s.dir, "data")
	const first, second = "sk-first-key-0123456789", "sk-second-key-9876543210"

	mustSucceed := func(stdin string, args ...string) string {
		t.Helper()
		code, out, errOut := s.clanker(t, stdin, append([]string{"--data-dir", data}, args...)...)
		if code != 0 {
			t.Fatalf("clanker %v exited %d: %s", args, code, errOut)
		}
		if strings.Contains(errOut, "database file") || strings.Contains(errOut, "keychain unavailable") {
			t.Fatalf("clanker %v used the database although the keyring runs: %s", args, errOut)
		}
		return out
	}

	// Save: the key goes to the keyring and nowhere into the database.
	mustSucceed(first+"\n", "config", "set", "apiKey", "-")
	if got := s.keychainHolds(t); got != "key: "+first {
		t.Fatalf("after saving: the keyring holds %q, want the key", got)
	}
	if databaseHolds(t, data, first) {
		t.Fatal("after saving into the keyring, the key's text is also in the database files")
	}

	// Read back by a new process, the way the next start of the app reads it.
	if got := mustSucceed("", "config", "get", "apiKey"); got != engine.MaskKey(first)+" (in keychain)\n" {
		t.Fatalf("config get apiKey in a new process: %q, want the masked key in the keychain", got)
	}

	// Read back after the keyring daemon itself restarted (a logout and login): the key
	// was written to the keyring's file, not only held in the daemon's memory.
	s.stopKeyring(t)
	s.startKeyring(t)
	if got := mustSucceed("", "config", "get", "apiKey"); got != engine.MaskKey(first)+" (in keychain)\n" {
		t.Fatalf("config get apiKey after the keyring restarted: %q, want the masked key in the keychain", got)
	}

	// Replace: the new key is the one kept; the old one is gone.
	mustSucceed(second+"\n", "config", "set", "apiKey", "-")
	if got := s.keychainHolds(t); got != "key: "+second {
		t.Fatalf("after replacing: the keyring holds %q, want the new key", got)
	}
	if databaseHolds(t, data, second) {
		t.Fatal("after replacing, the new key's text is in the database files")
	}

	// Delete: removing the key removes the keyring's entry, and nothing is left anywhere.
	mustSucceed("\n", "config", "set", "apiKey", "-")
	if got := s.keychainHolds(t); got != "none" {
		t.Fatalf("after removing the key: the keyring holds %q, want nothing", got)
	}
	if got := mustSucceed("", "config", "get", "apiKey"); got != "(not set)\n" {
		t.Fatalf("config get apiKey after removing it: %q, want (not set)", got)
	}
	for _, k := range []string{first, second} {
		if databaseHolds(t, data, k) {
			t.Fatalf("after removing the key, %q is in the database files", k)
		}
	}
}

func TestNoKeychainServiceIsSaidInOneSentence(t *testing.T) {
	s := startPrivateSession(t) // a session bus, and nothing on it keeps secrets
	data := filepath.Join(s.dir, "data")
	const key = "sk-no-keyring-0123456789"

	code, _, errOut := s.clanker(t, key+"\n", "--data-dir", data, "config", "set", "apiKey", "-")
	if code != 0 {
		t.Fatalf("config set apiKey without a keychain service exited %d; the key must still be saved: %s", code, errOut)
	}
	want := "clanker: The API key is kept in Clanker's database file because " + keychain.NoServiceSentence +
		". Start one and save the key again to move it into the keychain.\n"
	if !strings.Contains(errOut, want) {
		t.Fatalf("config set apiKey without a keychain service: want the sentence\n%s\ngot:\n%s", want, errOut)
	}
	if strings.Contains(errOut, key) {
		t.Fatalf("the output names the key: %s", errOut)
	}
	if got := s.keychainHolds(t); !strings.HasPrefix(got, "error: "+keychain.NoServiceSentence) {
		t.Fatalf("app/keychain without a service: %q, want the sentence as its error", got)
	}
	code, out, errOut := s.clanker(t, "", "--data-dir", data, "config", "get", "apiKey")
	if code != 0 || out != engine.MaskKey(key)+" (in database)\n" {
		t.Fatalf("config get apiKey: exit %d, %q, want the masked key in the database\n%s", code, out, errOut)
	}
}
