package testkit

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// ModuleRoot is the checkout's root (the folder holding go.mod), found from this source file
// so it does not depend on the working directory a test runs in.
func ModuleRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("testkit: cannot tell where its own source file is")
	}
	dir := filepath.Dir(file)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("testkit: no go.mod above " + filepath.Dir(file))
		}
		dir = parent
	}
}

// RepoRoot is ModuleRoot for a test: it stops the test when the root cannot be found.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
