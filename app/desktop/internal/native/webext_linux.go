//go:build linux

package native

/*
#include <stdlib.h>
#include "webkit_linux.h"
*/
import "C"

import (
	"context"
	"unsafe"
)

// WebExtensionFile is the file name of Clanker's web-process extension (built by
// build/webext.sh from webext/clanker-webext.c).
const WebExtensionFile = "libclanker-webext.so"

// UseWebExtensions makes WebKit load the web-process extensions in dir into the page's
// process. It must run on the OS thread GTK will run on (the caller locks it), before the
// main window exists.
func UseWebExtensions(dir string) {
	cs := C.CString(dir)
	defer C.free(unsafe.Pointer(cs))
	C.clanker_use_web_extensions(cs)
}

// ReleaseWebProcessMemory asks the web-process extension to collect the page's JavaScript
// heap in full and hand the page process's free C heap back to the system, and when deep
// is set the pages of its read-only file mappings too (PageOutFileMappings, there).
// Without the extension nothing answers and nothing happens.
func (p *linuxPlatform) ReleaseWebProcessMemory(ctx context.Context, deep bool) error {
	wv := p.view()
	if wv == nil {
		return ErrNotReady
	}
	d := C.gboolean(0)
	if deep {
		d = 1
	}
	return onMainThread(ctx, func() { C.clanker_release_web_process_memory(wv, d) })
}

// WebProcessReleases is how many of those requests the extension has answered.
func (p *linuxPlatform) WebProcessReleases(ctx context.Context) (int, error) {
	var n int
	err := onMainThread(ctx, func() { n = int(C.clanker_web_process_releases()) })
	return n, err
}
