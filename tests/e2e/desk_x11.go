//go:build linux

package e2e

/*
#cgo pkg-config: x11
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <stdlib.h>

// urgent_of reads the urgency flag of a window's WM_HINTS: 1 set, 0 not, -1 no display.
static int urgent_of(const char *display, unsigned long win) {
	Display *d = XOpenDisplay(display);
	if (!d) return -1;
	int r = 0;
	XWMHints *h = XGetWMHints(d, win);
	if (h) {
		r = (h->flags & XUrgencyHint) ? 1 : 0;
		XFree(h);
	}
	XCloseDisplay(d);
	return r;
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// WindowUrgent reports whether window win asks for attention: the urgency flag of its
// WM_HINTS, which GTK sets for gtk_window_set_urgency_hint.
func WindowUrgent(display string, win uint64) (bool, error) {
	cs := C.CString(display)
	defer C.free(unsafe.Pointer(cs))
	switch r := C.urgent_of(cs, C.ulong(win)); r {
	case 0:
		return false, nil
	case 1:
		return true, nil
	default:
		return false, fmt.Errorf("read WM_HINTS of window %d on %s: code %d", win, display, int(r))
	}
}
