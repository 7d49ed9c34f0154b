//go:build linux

package e2e

/*
#cgo pkg-config: x11
#include <X11/Xlib.h>
#include <stdlib.h>

// send_delete asks a window to close as a window manager's close button does: a
// WM_PROTOCOLS client message carrying WM_DELETE_WINDOW.
static int send_delete(const char *display, unsigned long win) {
	Display *d = XOpenDisplay(display);
	if (!d) return -1;
	XEvent ev = {0};
	ev.xclient.type = ClientMessage;
	ev.xclient.window = win;
	ev.xclient.message_type = XInternAtom(d, "WM_PROTOCOLS", False);
	ev.xclient.format = 32;
	ev.xclient.data.l[0] = XInternAtom(d, "WM_DELETE_WINDOW", False);
	ev.xclient.data.l[1] = CurrentTime;
	Status ok = XSendEvent(d, win, False, NoEventMask, &ev);
	XFlush(d);
	XCloseDisplay(d);
	return ok ? 0 : -2;
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// CloseWindow sends the close request of a window manager's close button to window win
// on the display (xdotool of this Debian release has no such command).
func CloseWindow(display string, win uint64) error {
	cs := C.CString(display)
	defer C.free(unsafe.Pointer(cs))
	if rc := C.send_delete(cs, C.ulong(win)); rc != 0 {
		return fmt.Errorf("send WM_DELETE_WINDOW to window %d on %s: code %d", win, display, int(rc))
	}
	return nil
}
