package window

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/clanker-desktop/clanker/app/desktop/internal/native"
)

// The web-process extension is found where a release puts it: beside the binary (the
// tarball, make run) or in ../lib/clanker/web-extensions (the .deb, a ~/.local install).
func TestFindWebExtensionInTheReleaseLayouts(t *testing.T) {
	if native.WebExtensionFile == "" {
		if got := findWebExtension(filepath.Join(t.TempDir(), "clanker")); got != "" {
			t.Fatalf("found %q on %s, which has no web-process extensions", got, runtime.GOOS)
		}
		return
	}
	put := func(t *testing.T, dir string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, native.WebExtensionFile), []byte("ELF"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("beside the binary", func(t *testing.T) {
		root := t.TempDir()
		put(t, filepath.Join(root, "web-extensions"))
		if got, want := findWebExtension(filepath.Join(root, "clanker")), filepath.Join(root, "web-extensions"); got != want {
			t.Fatalf("found %q, want %q", got, want)
		}
	})
	t.Run("the .deb's layout", func(t *testing.T) {
		root := t.TempDir()
		put(t, filepath.Join(root, "lib", "clanker", "web-extensions"))
		if got, want := findWebExtension(filepath.Join(root, "bin", "clanker")), filepath.Join(root, "lib", "clanker", "web-extensions"); got != want {
			t.Fatalf("found %q, want %q", got, want)
		}
	})
	t.Run("none, or a folder in the file's place", func(t *testing.T) {
		root := t.TempDir()
		if got := findWebExtension(filepath.Join(root, "clanker")); got != "" {
			t.Fatalf("found %q where there is none", got)
		}
		if err := os.MkdirAll(filepath.Join(root, "web-extensions", native.WebExtensionFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if got := findWebExtension(filepath.Join(root, "clanker")); got != "" {
			t.Fatalf("took the folder %q for the extension", got)
		}
	})
}
