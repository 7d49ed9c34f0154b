//go:build linux

package native

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef const char *(*clanker_egl_query_string)(void *, int);

static clanker_egl_query_string clanker_egl_query(void) {
	// RTLD_GLOBAL and never closed: the library stays loaded with the list it read.
	void *h = dlopen("libEGL.so.1", RTLD_NOW | RTLD_GLOBAL);
	if (h == NULL) return NULL;
	return (clanker_egl_query_string)dlsym(h, "eglQueryString");
}

// clanker_egl_no_vendors has libglvnd's libEGL, in this process, settle on an empty list of
// EGL drivers. libglvnd reads __EGL_VENDOR_LIBRARY_FILENAMES once, the first time anything
// asks it about drivers (here: for the client extension string), and keeps that list for
// the life of the process. The variable is set for that one read and put back at once, so
// processes started later (WebKit's page process) find the drivers as usual. A libEGL
// that is not libglvnd's ignores the variable and answers from its own driver, loading
// nothing for this question.
//
// It returns 0 once asked, 1 when there is no libEGL.so.1 or no eglQueryString in it.
static int clanker_egl_no_vendors(const char *nowhere) {
	clanker_egl_query_string query = clanker_egl_query();
	if (query == NULL) return 1;
	const char *old = getenv("__EGL_VENDOR_LIBRARY_FILENAMES");
	char *saved = old ? strdup(old) : NULL;
	setenv("__EGL_VENDOR_LIBRARY_FILENAMES", nowhere, 1);
	query(NULL, 0x3055); // EGL_NO_DISPLAY, EGL_EXTENSIONS
	if (saved) {
		setenv("__EGL_VENDOR_LIBRARY_FILENAMES", saved, 1);
		free(saved);
	} else {
		unsetenv("__EGL_VENDOR_LIBRARY_FILENAMES");
	}
	return 0;
}

// clanker_egl_client_extensions is libEGL's client extension string, or NULL.
static const char *clanker_egl_client_extensions(void) {
	clanker_egl_query_string query = clanker_egl_query();
	return query ? query(NULL, 0x3055) : NULL;
}
*/
import "C"

import (
	"errors"
	"unsafe"
)

// noVendorFile is the driver list libglvnd reads in the window process: a path that is no
// file, so that it loads no EGL driver at all.
const noVendorFile = "/nonexistent/clanker-no-egl-vendor.json"

// KeepEGLDriversOut makes this process's EGL load no driver (see NoEGLDriverWanted), while
// processes it starts later load theirs as usual. It must run before GTK or WebKit first
// use EGL (before wails.Run), from the main goroutine, while no other thread reads the
// environment.
func KeepEGLDriversOut() error {
	p := C.CString(noVendorFile)
	defer C.free(unsafe.Pointer(p))
	if C.clanker_egl_no_vendors(p) != 0 {
		return errors.New("no libEGL.so.1 with eglQueryString on this system")
	}
	return nil
}

// eglClientExtensions is what this process's libEGL lists as its client extensions (the
// drivers' platforms among them), for the tests.
func eglClientExtensions() string {
	s := C.clanker_egl_client_extensions()
	if s == nil {
		return ""
	}
	return C.GoString(s)
}

// cGetenv is the C library's view of an environment variable ("" when unset), which is
// what processes started from C (WebKit's) inherit, for the tests.
func cGetenv(name string) string {
	n := C.CString(name)
	defer C.free(unsafe.Pointer(n))
	v := C.getenv(n)
	if v == nil {
		return ""
	}
	return C.GoString(v)
}
