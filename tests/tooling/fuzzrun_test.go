package tooling

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/tests/testkit"
)

// writeModule lays out a throwaway module with three packages: one whose first fuzz target
// fails at once (a seed input panics) and whose second passes, one that passes, and one that
// does not compile, so its targets cannot be listed.
func writeModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/fuzzrun\n\ngo 1.24\n",
		"a/a.go": "package a\n",
		"a/a_test.go": `package a

import "testing"

func FuzzBreaks(f *testing.F) {
	f.Add("boom")
	f.Fuzz(func(t *testing.T, s string) {
		if s == "boom" {
			t.Fatal("found the crasher")
		}
	})
}

func FuzzHolds(f *testing.F) {
	f.Add("fine")
	f.Fuzz(func(t *testing.T, s string) {})
}
`,
		"b/b.go": "package b\n",
		"b/b_test.go": `package b

import "testing"

func FuzzAlsoHolds(f *testing.F) {
	f.Add(1)
	f.Fuzz(func(t *testing.T, n int) {})
}
`,
		"c/c.go":      "package c\n",
		"c/c_test.go": "package c\n\nfunc broken( {\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runFuzz(t *testing.T, dir string, pkgs ...string) (string, int) {
	t.Helper()
	gobin, err := exec.LookPath("go") // go test puts its own go first on PATH
	if err != nil {
		t.Fatalf("no go command on PATH: %v", err)
	}
	cmd := exec.Command("bash", append([]string{filepath.Join(testkit.RepoRoot(t), "build", "fuzz.sh")}, pkgs...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GO="+gobin, "FUZZTIME=1x", "TAGS=", "GOFLAGS=-mod=mod", "GOWORK=off")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &exit):
		return out.String(), exit.ExitCode()
	default:
		t.Fatalf("could not run build/fuzz.sh: %v", err)
		return "", -1
	}
}

// The runner goes on after a failing target: the targets after it (in the same package and in
// the next one) still run, and the summary names the failing target and the package whose
// targets could not be listed, with exit code 1.
func TestFuzzRunnerGoesOnAfterAFailingTargetAndReportsEveryFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and fuzzes a throwaway module with the real go command")
	}
	out, code := runFuzz(t, writeModule(t), "./...")
	if code != 1 {
		t.Errorf("want exit code 1 after failures, got %d\n%s", code, out)
	}
	for _, want := range []string{
		"== example.com/fuzzrun/a FuzzBreaks",
		"== example.com/fuzzrun/a FuzzHolds",     // same package, after the failure
		"== example.com/fuzzrun/b FuzzAlsoHolds", // next package, after the failure
		"fuzz: 3 targets ran for 1x each; these failed:",
		"  example.com/fuzzrun/a.FuzzBreaks\n",
		"  example.com/fuzzrun/c (could not list its targets)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the run's output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "a.FuzzHolds\n") || strings.Contains(out, "b.FuzzAlsoHolds\n") {
		t.Errorf("a target that passed is listed as failed:\n%s", out)
	}
}

// When every target passes the runner says so and exits 0.
func TestFuzzRunnerPassesWhenEveryTargetPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and fuzzes a throwaway module with the real go command")
	}
	out, code := runFuzz(t, writeModule(t), "./b")
	if code != 0 || !strings.Contains(out, "fuzz: all 1 targets passed for 1x each") {
		t.Errorf("want exit code 0 and the all-passed line, got %d:\n%s", code, out)
	}
}
