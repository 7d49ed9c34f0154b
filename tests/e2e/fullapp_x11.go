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

static int ignore_errors(Display *d, XErrorEvent *e) { return 0; }

// other_window opens a second client with a plain window, maps it and waits until it
// is shown, so that input focus can be given to it: another application in front.
static Display *other_open(const char *display, Window *out) {
	Display *d = XOpenDisplay(display);
	if (!d) return NULL;
	XSetErrorHandler(ignore_errors);
	Window w = XCreateSimpleWindow(d, DefaultRootWindow(d), 0, 0, 320, 200, 0, 0, 0xffffff);
	XStoreName(d, w, "Another application");
	XSelectInput(d, w, StructureNotifyMask);
	XMapRaised(d, w);
	XEvent ev;
	do { XNextEvent(d, &ev); } while (ev.type != MapNotify);
	*out = w;
	return d;
}

static void other_focus(Display *d, Window w) {
	XRaiseWindow(d, w);
	XSetInputFocus(d, w, RevertToParent, CurrentTime);
	XSync(d, False);
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

// OtherWindow is a window of another X client: giving it the input focus puts the app
// behind another application.
type OtherWindow struct {
	d *C.Display
	w C.Window
}

// OpenOtherWindow maps a plain window on the display.
func OpenOtherWindow(display string) (*OtherWindow, error) {
	cs := C.CString(display)
	defer C.free(unsafe.Pointer(cs))
	var w C.Window
	d := C.other_open(cs, &w)
	if d == nil {
		return nil, fmt.Errorf("open display %s for another window", display)
	}
	return &OtherWindow{d: d, w: w}, nil
}

// Focus raises the window and gives it the input focus.
func (o *OtherWindow) Focus() { C.other_focus(o.d, o.w) }

// Close removes the window and closes its connection.
func (o *OtherWindow) Close() { C.XCloseDisplay(o.d) }
