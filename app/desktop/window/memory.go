package window

import (
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/internal/native"
)

// ReleaseMemory hands what this process freed back to the system: it collects the Go heap
// and returns its free pages (the collector otherwise gives them back over minutes), then
// trims the C heap that GTK and WebKit's UI side use (Linux). It takes a few milliseconds
// on an idle app; call it when work has stopped, not on every event.
func ReleaseMemory() {
	debug.FreeOSMemory()
	native.TrimCHeap()
}

// ReleaseMemory does what the package's ReleaseMemory does for the app's process and, when
// WebKit loaded Clanker's web-process extension (Linux), asks the page's process to trim
// its C heap too.
func (s *Shell) ReleaseMemory() {
	ReleaseMemory()
	mv, ok := s.plat.(native.MemoryView)
	if !ok || s.webExt == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := mv.ReleaseWebProcessMemory(ctx); err != nil {
		s.log.Debug("the page's process was not asked to release memory", "err", err)
	}
}

// WebProcessReleases is how many idle releases the page's process has carried out (its
// web-process extension answered), or 0 where there is none.
func (s *Shell) WebProcessReleases() int {
	mv, ok := s.plat.(native.MemoryView)
	if !ok || s.webExt == "" {
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n, err := mv.WebProcessReleases(ctx)
	if err != nil {
		return 0
	}
	return n
}

// webExtensionDirs are where Clanker's web-process extension is looked for, relative to
// the folder of the running binary: beside it (the tarball, a development build), then the
// .deb's layout (/usr/bin/clanker and /usr/lib/clanker/web-extensions).
var webExtensionDirs = []string{"web-extensions", filepath.Join("..", "lib", "clanker", "web-extensions")}

// findWebExtension returns the folder holding the web-process extension for the binary at
// exe, or "" (other systems, or a build without it, such as go run).
func findWebExtension(exe string) string {
	if native.WebExtensionFile == "" || exe == "" {
		return ""
	}
	base := filepath.Dir(exe)
	for _, rel := range webExtensionDirs {
		dir := filepath.Join(base, rel)
		if st, err := os.Stat(filepath.Join(dir, native.WebExtensionFile)); err == nil && st.Mode().IsRegular() {
			return filepath.Clean(dir)
		}
	}
	return ""
}
