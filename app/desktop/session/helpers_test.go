package session

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// testDir is t.TempDir, with a cleanup that removes the entries one by one. Go's
// os.RemoveAll, which t.TempDir's cleanup uses, fails under Wine 8 ("unlinkat: Invalid
// function"), and make test-windows runs this package's tests under Wine.
func testDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "clanker-session-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		var paths []string
		_ = filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
			if err == nil {
				paths = append(paths, p)
			}
			return nil
		})
		// Deepest first, so every directory is empty when its turn comes.
		sort.Sort(sort.Reverse(sort.StringSlice(paths)))
		for _, p := range paths {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				t.Errorf("clean up %s: %v", p, err)
			}
		}
	})
	return dir
}
