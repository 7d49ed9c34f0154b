//go:build linux

package desktop

/*
#cgo linux pkg-config: gtk+-3.0 webkit2gtk-4.1
#include <stdlib.h>
#include "webkit_linux.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// The Linux platform reaches the WebKitWebView that Wails created (Wails does not expose
// it) by walking the toplevel windows once at start-up, before any popup exists.

var (
	jobsMu  sync.Mutex
	jobs    = map[uint64]func(){}
	nextJob uint64
)

// onMainThread runs fn on the GTK main thread and waits for it, or for ctx.
func onMainThread(ctx context.Context, fn func()) error {
	done := make(chan struct{})
	jobsMu.Lock()
	nextJob++
	id := nextJob
	jobs[id] = func() { fn(); close(done) }
	jobsMu.Unlock()
	C.clanker_schedule(C.guint64(id))
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		// The job may still run later; it only touches GTK objects that outlive the shell.
		return fmt.Errorf("GTK main thread did not run the job: %w", ctx.Err())
	}
}

//export goRunJob
func goRunJob(id C.guint64) {
	jobsMu.Lock()
	fn := jobs[uint64(id)]
	delete(jobs, uint64(id))
	jobsMu.Unlock()
	if fn != nil {
		fn()
	}
}

// current is the one shell of this process; the C signal handlers report to it.
var (
	currentMu sync.Mutex
	current   *Shell
)

func setCurrent(s *Shell) error {
	currentMu.Lock()
	defer currentMu.Unlock()
	if current != nil && s != nil {
		return errors.New("desktop: only one Shell can run per process")
	}
	current = s
	return nil
}

func withCurrent(fn func(*Shell)) {
	currentMu.Lock()
	s := current
	currentMu.Unlock()
	if s != nil {
		fn(s)
	}
}

type linuxPlatform struct {
	mu sync.Mutex
	wv *C.WebKitWebView
}

func newPlatform() platform { return &linuxPlatform{} }

func (p *linuxPlatform) setup(ctx context.Context, cfg platformConfig) error {
	var err error
	runErr := onMainThread(ctx, func() {
		wv := C.clanker_find_webview()
		if wv == nil {
			err = errors.New("no WebKitWebView found in the toplevel windows")
			return
		}
		var ua *C.char
		if cfg.userAgent != "" {
			ua = C.CString(cfg.userAgent)
			defer C.free(unsafe.Pointer(ua))
		}
		script := C.CString(cfg.userScript)
		defer C.free(unsafe.Pointer(script))
		offline := C.CString(cfg.offlineURL)
		defer C.free(unsafe.Pointer(offline))
		C.clanker_setup(wv, ua, script, offline)
		p.mu.Lock()
		p.wv = wv
		p.mu.Unlock()
	})
	if runErr != nil {
		return runErr
	}
	return err
}

func (p *linuxPlatform) view() *C.WebKitWebView {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.wv
}

func (p *linuxPlatform) reload(ctx context.Context) error {
	wv := p.view()
	if wv == nil {
		return ErrNotReady
	}
	return onMainThread(ctx, func() { C.clanker_reload(wv) })
}

func (p *linuxPlatform) input() NativeInput { return gdkInput{p} }

// gdkInput is the Linux NativeInput: GDK key events handed to the WebKitGTK view. WebKit
// treats them exactly like keys from the keyboard, so the page sees isTrusted events.
type gdkInput struct{ p *linuxPlatform }

func (g gdkInput) PressEnter(ctx context.Context) error {
	return g.keys(ctx, []C.guint{C.GDK_KEY_Return}, []C.guchar{0})
}

func (g gdkInput) keys(ctx context.Context, keyvals []C.guint, shift []C.guchar) error {
	wv := g.p.view()
	if wv == nil {
		return ErrNotReady
	}
	return onMainThread(ctx, func() {
		C.clanker_keys(wv, &keyvals[0], &shift[0], C.int(len(keyvals)))
	})
}

//export goPopupAllowed
func goPopupAllowed(uri *C.char) C.int {
	u := C.GoString(uri)
	allowed := false
	withCurrent(func(s *Shell) { allowed = s.popupAllowed(u) })
	if allowed {
		return 1
	}
	return 0
}

//export goPopupCreated
func goPopupCreated() { withCurrent(func(s *Shell) { s.popupEvent(PopupCreated) }) }

//export goPopupShown
func goPopupShown() { withCurrent(func(s *Shell) { s.popupEvent(PopupShown) }) }

//export goPopupClosed
func goPopupClosed() { withCurrent(func(s *Shell) { s.popupEvent(PopupClosed) }) }

//export goWebProcessTerminated
func goWebProcessTerminated(reason C.int) {
	withCurrent(func(s *Shell) { s.webProcessTerminated(int(reason)) })
}

//export goLoadFailed
func goLoadFailed(uri, msg *C.char) {
	u, m := C.GoString(uri), C.GoString(msg)
	withCurrent(func(s *Shell) { s.loadEvent(LoadEvent{URL: u, Failed: true, Error: m}) })
}

//export goLoadChanged
func goLoadChanged(uri *C.char, finished C.gboolean) {
	u := C.GoString(uri)
	withCurrent(func(s *Shell) { s.loadEvent(LoadEvent{URL: u, Finished: finished != 0}) })
}

//export goGeometryChanged
func goGeometryChanged(x, y, w, h C.int) {
	withCurrent(func(s *Shell) {
		s.geometryChanged(Geometry{X: int(x), Y: int(y), Width: int(w), Height: int(h)})
	})
}
