package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/clanker-desktop/clanker/app/sqlite"
)

// runAsCLIEnv makes the test binary act as the clanker command (see TestMain), so a test can
// run the real command line in a process of its own, as another user when it needs to.
const runAsCLIEnv = "CLANKER_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runAsCLIEnv) == "1" {
		os.Exit(runMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	if os.Getenv(readKeychainEnv) == "1" {
		printKeychain()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// otherUser is who the read-only tests run the command as. File permissions do not bind
// root, so a test running as root runs the command as nobody (65534), whose permissions do
// bind; any other user runs it as itself.
type otherUser struct {
	cred *syscall.Credential
	bin  string // a copy of the test binary that user can run
}

func newOtherUser(t *testing.T) otherUser {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		return otherUser{bin: self}
	}
	// The go build cache is private to root; copy the binary to a folder nobody can enter.
	dir := openTempDir(t)
	bin := filepath.Join(dir, "clanker.test")
	in, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(bin, os.O_WRONLY|os.O_CREATE, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	out.Close()
	return otherUser{bin: bin, cred: &syscall.Credential{Uid: 65534, Gid: 65534}}
}

// openTempDir is a temporary folder other users may enter (t.TempDir's parent is private).
func openTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "clanker-readonly-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
		os.RemoveAll(dir)
	})
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// own gives path to the user the commands run as (a no-op when that is this user).
func (u otherUser) own(t *testing.T, paths ...string) {
	t.Helper()
	if u.cred == nil {
		return
	}
	for _, p := range paths {
		if err := os.Chown(p, int(u.cred.Uid), int(u.cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}
}

func (u otherUser) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(u.bin, args...)
	cmd.Env = append(os.Environ(), runAsCLIEnv+"=1", "HOME="+os.TempDir())
	cmd.Env = append(cmd.Env, "DISPLAY=", "WAYLAND_DISPLAY=")
	if u.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errOut.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String(), errOut.String()
	}
	t.Fatalf("could not run the command line as another user: %v", err)
	return -1, "", ""
}

// A database the user cannot write (file 0400 in a folder 0555): the reading commands work
// and leave nothing beside it, config set and the app refuse with a sentence that says where,
// and once the permissions are fixed everything works again (nothing broken was left behind).
func TestReadOnlyStoreReadsWorkWritesSayWhyAndNothingIsLeftBehind(t *testing.T) {
	u := newOtherUser(t)
	parent := openTempDir(t)
	dir := filepath.Join(parent, "data")
	if code, _, e := runCLI(t, "--data-dir", dir, "--no-keychain", "config", "set", "userName", "Ann"); code != 0 {
		t.Fatalf("set up: %s", e)
	}
	path := filepath.Join(dir, sqlite.FileName)
	u.own(t, dir, path)
	if err := os.Chmod(path, 0o400); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	flags := []string{"--data-dir", dir, "--no-keychain"}

	if code, out, e := u.run(t, append(flags, "config", "get", "userName")...); code != 0 || strings.TrimSpace(out) != "Ann" {
		t.Errorf("config get on a read-only store: exit %d, out %q, err %q", code, out, e)
	}
	if code, out, e := u.run(t, append(flags, "config", "list")...); code != 0 || !strings.Contains(out, "userName=Ann") {
		t.Errorf("config list on a read-only store: exit %d, out %q, err %q", code, out, e)
	}
	if code, out, e := u.run(t, append(flags, "diag")...); code != 0 || !strings.Contains(out, `"generatedAt"`) {
		t.Errorf("diag on a read-only store: exit %d, out %q, err %q", code, out, e)
	}
	code, _, e := u.run(t, append(flags, "config", "set", "userName", "Bob")...)
	if code == 0 || !strings.Contains(e, "read-only") || !strings.Contains(e, path) {
		t.Errorf("config set on a read-only store: want a refusal naming %s, got exit %d, %q", path, code, e)
	}
	code, _, e = u.run(t, flags...) // the app itself
	if code == 0 || !strings.Contains(e, "cannot write its database") || !strings.Contains(e, dir) || strings.Contains(e, "goroutine ") {
		t.Errorf("the app on a read-only store: want one sentence saying it cannot write %s, got exit %d, %q", dir, code, e)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, en := range entries {
			names = append(names, en.Name())
		}
		t.Errorf("reading a read-only store left files beside it: %v", names)
	}

	// Fixed permissions: writes work at once.
	os.Chmod(dir, 0o755)
	os.Chmod(path, 0o600)
	if code, _, e := u.run(t, append(flags, "config", "set", "userName", "Bob")...); code != 0 {
		t.Fatalf("config set after the permissions were fixed: exit %d, %q", code, e)
	}
	if code, out, _ := u.run(t, append(flags, "config", "get", "userName")...); code != 0 || strings.TrimSpace(out) != "Bob" {
		t.Errorf("the value written after the fix did not stick: %q", out)
	}
}

// An earlier version read a read-only database in WAL mode and left a read-only -shm (and an
// empty -wal) beside it; every later open then failed with "attempt to write a readonly
// database" from a migration, even after the database itself was made writable again. Those
// leftovers are now cleared when there is no WAL content to lose.
func TestAStaleReadOnlySharedMemoryFileNoLongerBreaksTheStore(t *testing.T) {
	u := newOtherUser(t)
	parent := openTempDir(t)
	dir := filepath.Join(parent, "data")
	if code, _, e := runCLI(t, "--data-dir", dir, "--no-keychain", "config", "set", "userName", "Ann"); code != 0 {
		t.Fatalf("set up: %s", e)
	}
	path := filepath.Join(dir, sqlite.FileName)
	if err := os.WriteFile(path+"-shm", make([]byte, 32768), 0o400); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+"-wal", nil, 0o400); err != nil {
		t.Fatal(err)
	}
	u.own(t, dir, path, path+"-shm", path+"-wal")
	os.Chmod(path+"-wal", 0o600) // as SQLite left it once the database was writable again
	flags := []string{"--data-dir", dir, "--no-keychain"}
	if code, _, e := u.run(t, append(flags, "config", "set", "userName", "Bob")...); code != 0 {
		t.Fatalf("config set beside a stale read-only -shm: exit %d, %q", code, e)
	}
	if code, out, e := u.run(t, append(flags, "config", "get", "userName")...); code != 0 || strings.TrimSpace(out) != "Bob" {
		t.Errorf("config get after the set: exit %d, %q, %q", code, out, e)
	}
}
