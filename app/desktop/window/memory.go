package window

import (
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/internal/native"
)

// ReleaseMemory hands what the app freed back to the system: it collects the Go heap and
// returns its free pages (the collector otherwise gives them back over minutes), trims the
// C heap that GTK and WebKit's UI side use (Linux), and, when WebKit loaded Clanker's
// web-process extension, asks the page's process to collect its JavaScript heap in full
// (nodes the page removed, and what they hold, such as a photo's decoded pixels, go only
// then) and to trim its C heap. It takes a few milliseconds on an idle app, plus the page's
// collection in the page's process; call it when work has stopped, not on every event.
//
// A deep release (after a long quiet) also asks both processes to hand back the pages of
// their read-only file mappings, code and data read at start-up or for a page load and not
// since (native.PageOutFileMappings). The kernel reads back whatever is touched again, from
// the page cache or the disk, so it is for a quiet that is likely to last.
func (s *Shell) ReleaseMemory(deep bool) {
	debug.FreeOSMemory()
	native.TrimCHeap()
	if deep {
		if n, err := native.PageOutFileMappings(); err != nil {
			s.log.Debug("the window's process kept its read-only pages", "err", err, "mappings", n)
		}
	}
	mv := s.pageMemory()
	if mv == nil {
		return
	}
	// While the page's process is gone and the page has not loaded again, a message to
	// the page would start a blank web process, and WebKit's reload then does nothing in
	// it (recover.go): the page has nothing to release anyway.
	if s.recovery != nil && s.recovery.recovering() {
		s.log.Debug("the page's process is being brought back; its release is skipped")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := mv.ReleaseWebProcessMemory(ctx, deep); err != nil {
		s.log.Debug("the page's process was not asked to release memory", "err", err)
	}
}

// WebProcessReleases is how many idle releases the page's process has carried out (its
// web-process extension answered), or 0 where there is none.
func (s *Shell) WebProcessReleases() int {
	mv := s.pageMemory()
	if mv == nil {
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

// pageMemory is the native view's hold on the page process's memory, or nil when the
// platform has none or WebKit was not told to load the extension.
func (s *Shell) pageMemory() native.MemoryView {
	mv, ok := s.plat.(native.MemoryView)
	if !ok || s.webExt == "" {
		return nil
	}
	return mv
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

// webExtensionDir is the folder of the web-process extension found for the running binary.
func (s *Shell) webExtensionDir() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if dir := findWebExtension(exe); dir != "" {
		return dir
	}
	if native.WebExtensionFile != "" {
		s.log.Info("no web-process extension beside the binary: the page's process keeps the memory it freed until WebKit trims it", "looked_in", webExtensionDirs)
	}
	return ""
}
