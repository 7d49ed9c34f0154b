package settingstest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/clanker-desktop/clanker/app/desktop/settingswin"
	"github.com/clanker-desktop/clanker/app/engine"
	llmclient "github.com/clanker-desktop/clanker/app/llm"
	"github.com/clanker-desktop/clanker/app/sqlite"
)

// serveReadOnlyEnv makes the test binary serve the settings page on the database in the
// folder it names, opened as `clanker settings` opens it, instead of running tests (see
// TestMain): the read-only test runs it as a user who cannot write that database.
const serveReadOnlyEnv = "CLANKER_SETTINGSTEST_SERVE"

func TestMain(m *testing.M) {
	if dir := os.Getenv(serveReadOnlyEnv); dir != "" {
		if err := serveUntilStdinCloses(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveUntilStdinCloses opens the database in dir as the settings window does
// (sqlite.OpenNoRepair), serves the page and the service on loopback, prints the page's
// address on one line, and serves until its standard input closes.
func serveUntilStdinCloses(dir string) error {
	store, err := sqlite.OpenNoRepair(dir)
	if err != nil {
		return err
	}
	defer store.Close()
	store.Secrets = nil
	svc := &settingswin.SettingsService{Store: store, Probe: llmclient.Probe{},
		Memory: sqlite.MemoryEditor{Store: store, AppRunning: func() bool { return true }}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: settingsHandler(svc, settingsAssets())}
	go srv.Serve(ln) //nolint:errcheck // ends at Close
	defer srv.Close()
	fmt.Printf("http://%s/\n", ln.Addr())
	io.Copy(io.Discard, os.Stdin)
	return nil
}

// A database the user cannot write: the page says so on opening, and Save, Save memory and
// Save model each answer with where the database is and what to do, never SQLite's message.
// File permissions do not bind root, so when the tests run as root the page is served by
// this test binary running as nobody (65534); any other user serves it as itself from a
// folder it made read-only.
func TestReadOnlyStoreGetsAClearSentence(t *testing.T) {
	dir := openTempDir(t)
	rw, err := sqlite.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := rw.SaveMemory(context.Background(), "c-1", engine.Memory{Summary: "kept"}); err != nil {
		t.Fatal(err)
	}
	rw.Close()
	path := filepath.Join(dir, sqlite.FileName)
	for _, f := range []string{path + "-wal", path + "-shm"} {
		os.Remove(f)
	}

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), serveReadOnlyEnv+"="+dir)
	// The database is private to its owner (0600); the other user may read it, not write it.
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		cmd.Path = copyForOthers(t, self)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	} else {
		readOnly(t, dir, path)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			stdin.Close()
			cmd.Wait()
		}
	}
	defer stop()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "http://127.0.0.1:") {
		t.Fatalf("the read-only settings server did not start: %q, %v", line, err)
	}

	f := openPage(t, strings.TrimSpace(line))
	f.waitText(t, "#readOnly", "cannot write its database at "+path)
	f.run(t, setValue("#userName", "Dana"), chromedp.Click("#save", chromedp.ByQuery))
	got := f.waitText(t, "#saveResult", "Not saved: Clanker cannot write its database at "+path)
	for _, bad := range []string{"readonly database", "attempt to write", "SQLITE"} {
		if strings.Contains(got, bad) {
			t.Fatalf("the save result quotes SQLite: %q", got)
		}
	}
	if !strings.Contains(got, "writable") || !strings.Contains(got, "Nothing was changed") {
		t.Fatalf("the save result must say what to do and that nothing changed: %q", got)
	}
	openMemory(t, f)
	f.run(t, setValue("#summary", "new"), chromedp.Click("#saveMemory", chromedp.ByQuery))
	f.waitText(t, "#memoryResult", "cannot write its database at "+path)
	f.run(t, setValue("#modelOverride", "x"), chromedp.Click("#saveModel", chromedp.ByQuery))
	f.waitText(t, "#modelResult", "cannot write its database at "+path)
	stop()

	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Error("the read-only store left a -wal file beside the database")
	}
	writable(dir, path)
	store, err := sqlite.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if c, _, _ := store.Conversation(context.Background(), "c-1"); c.Memory.Summary != "kept" {
		t.Fatalf("the stored memory changed to %q", c.Memory.Summary)
	}
	if st, err := store.Settings(context.Background()); err != nil || st.UserName == "Dana" {
		t.Fatalf("the stored settings changed (user name %q, %v)", st.UserName, err)
	}
}

// openTempDir is a temporary folder other users may enter (t.TempDir's parent is private).
func openTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "clanker-settings-readonly-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.Chmod(dir, 0o755)
		os.RemoveAll(dir)
	})
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// copyForOthers copies the test binary into a folder other users may enter (the go build
// cache is private to root) and returns the copy's path.
func copyForOthers(t *testing.T, self string) string {
	t.Helper()
	bin := filepath.Join(openTempDir(t), "settingstest.test")
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
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return bin
}

// readOnly takes write permission on the database's folder away from this user until the
// test ends (the file's is taken already).
func readOnly(t *testing.T, dir, path string) {
	t.Helper()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { writable(dir, path) })
}

// writable gives write permission back.
func writable(dir, path string) {
	os.Chmod(dir, 0o755)
	os.Chmod(path, 0o600)
}
