package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/app/sqlite"
)

// runCLI runs the command line in this process and returns its exit code and output.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := runMain(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// The commands that only read (config list/get, diag) and config set never repair or replace
// a damaged database: they exit non-zero with a sentence that says what to do, and the file
// stays byte for byte as it was, with nothing moved aside.
func TestCommandsNeverRepairADamagedDatabase(t *testing.T) {
	dir := t.TempDir()
	if code, _, e := runCLI(t, "--data-dir", dir, "--no-keychain", "config", "set", "userName", "Ann"); code != 0 {
		t.Fatalf("set up: %s", e)
	}
	path := filepath.Join(dir, sqlite.FileName)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	copy(b, "this is no longer a SQLite header")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"config", "list"}, {"config", "get", "userName"}, {"diag"}, {"config", "set", "userName", "Bob"},
	} {
		code, out, e := runCLI(t, append([]string{"--data-dir", dir, "--no-keychain"}, args...)...)
		if code == 0 {
			t.Errorf("%v on a damaged database exited 0 (stdout %q)", args, out)
		}
		if !strings.Contains(e, "is damaged") || !strings.Contains(e, "Nothing was changed") || !strings.Contains(e, path) {
			t.Errorf("%v: want one sentence naming the damaged file and saying nothing changed, got %q", args, e)
		}
		if strings.Contains(e, "goroutine ") {
			t.Errorf("%v printed a Go trace: %s", args, e)
		}
		after, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(after, b) {
			t.Fatalf("%v changed or removed the damaged file (%v)", args, err)
		}
		if m, _ := filepath.Glob(filepath.Join(dir, "*.damaged-*")); len(m) > 0 {
			t.Fatalf("%v moved the database aside: %v", args, m)
		}
	}
}
