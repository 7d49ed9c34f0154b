//go:build linux

package native

/*
#cgo linux pkg-config: gtk+-3.0 webkit2gtk-4.1
#include <stdlib.h>
#include "webkit_linux.h"
*/
import "C"

import (
	"context"
	"errors"
	"sync"
	"unsafe"

	"github.com/clanker-desktop/clanker/app/desktop/internal/ipc"
)

// The Linux platform reaches the WebKitWebView that Wails created (Wails does not expose
// it) by walking the toplevel windows once at start-up, before any popup exists.

// schedule asks the main loop to run job id (goRunJob calls back with it).
func schedule(id uint64) { C.clanker_schedule(C.guint64(id)) }

//export goRunJob
func goRunJob(id C.guint64) { runJob(uint64(id)) }

type linuxPlatform struct {
	mu sync.Mutex
	wv *C.WebKitWebView
}

// NewView returns the Linux view; Setup finds the WebKitWebView Wails created.
func NewView() View { return &linuxPlatform{} }

func (p *linuxPlatform) Setup(ctx context.Context, cfg Config) error {
	newPageGuard(cfg, bootstrapOrigin)
	var err error
	runErr := onMainThread(ctx, func() {
		wv := C.clanker_find_webview()
		if wv == nil {
			err = errors.New("no WebKitWebView found in the toplevel windows")
			return
		}
		var ua *C.char
		if cfg.UserAgent != "" {
			ua = C.CString(cfg.UserAgent)
			defer C.free(unsafe.Pointer(ua))
		}
		script := C.CString(cfg.UserScript)
		defer C.free(unsafe.Pointer(script))
		offline := C.CString(cfg.OfflineURL)
		defer C.free(unsafe.Pointer(offline))
		// Without the guard (Wails changed) the rest still works; the error is logged.
		if msg := C.clanker_guard_messages(wv); msg != nil {
			err = errors.New(C.GoString(msg))
		}
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

func (p *linuxPlatform) Reload(ctx context.Context) error {
	wv := p.view()
	if wv == nil {
		return ErrNotReady
	}
	return onMainThread(ctx, func() { C.clanker_reload(wv) })
}

var _ Loader = (*linuxPlatform)(nil)

// LoadURL loads url into the main view (webkit_web_view_load_uri): it starts a web
// process when none runs and navigates the one that does, loaded or not.
func (p *linuxPlatform) LoadURL(ctx context.Context, url string) error {
	wv := p.view()
	if wv == nil {
		return ErrNotReady
	}
	return onMainThread(ctx, func() {
		cs := C.CString(url)
		defer C.free(unsafe.Pointer(cs))
		C.webkit_web_view_load_uri(wv, cs)
	})
}

var _ HistoryView = (*linuxPlatform)(nil)

// HistoryURL is the URI of the back/forward list's current item. WebKit keeps the list in
// the UI process, so it still names the page after the web process died (the view's URI is
// cleared then).
func (p *linuxPlatform) HistoryURL(ctx context.Context) (string, error) {
	wv := p.view()
	if wv == nil {
		return "", ErrNotReady
	}
	var u string
	err := onMainThread(ctx, func() {
		item := C.webkit_back_forward_list_get_current_item(C.webkit_web_view_get_back_forward_list(wv))
		if item == nil {
			return
		}
		if s := C.webkit_back_forward_list_item_get_uri(item); s != nil {
			u = C.GoString(s)
		}
	})
	return u, err
}

func (p *linuxPlatform) Input() Input { return gdkInput{p} }

// gdkInput is the Linux Input: GDK key events handed to the WebKitGTK view. WebKit
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

//export goCheckPageMessage
func goCheckPageMessage(isString C.int, body, uri *C.char) C.int {
	m := ipc.Message{IsString: isString != 0, Body: C.GoString(body), FromMainView: true, MainFrame: true,
		TopOrigin: C.GoString(uri)}
	if allowPageMessage(m) {
		return 1
	}
	return 0
}

//export goPopupAllowed
func goPopupAllowed(uri *C.char) C.int {
	u := C.GoString(uri)
	allowed := false
	withEvents(func(e Events) { allowed = e.PopupAllowed(u) })
	if allowed {
		return 1
	}
	return 0
}

//export goPopupCreated
func goPopupCreated() { withEvents(func(e Events) { e.PopupCreated() }) }

//export goPopupShown
func goPopupShown() { withEvents(func(e Events) { e.PopupShown() }) }

//export goPopupClosed
func goPopupClosed() { withEvents(func(e Events) { e.PopupClosed() }) }

//export goWebProcessTerminated
func goWebProcessTerminated(reason C.int) {
	withEvents(func(e Events) { e.WebProcessTerminated(int(reason)) })
}

//export goLoadFailed
func goLoadFailed(uri, msg *C.char) {
	u, m := C.GoString(uri), C.GoString(msg)
	withEvents(func(e Events) { e.LoadFailed(u, m) })
}

//export goLoadChanged
func goLoadChanged(uri *C.char, finished C.gboolean) {
	u := C.GoString(uri)
	withEvents(func(e Events) { e.LoadChanged(u, finished != 0) })
}

//export goGeometryChanged
func goGeometryChanged(x, y, w, h C.int) {
	withEvents(func(e Events) { e.GeometryChanged(int(x), int(y), int(w), int(h)) })
}

//export goFocusChanged
func goFocusChanged(active C.gboolean) {
	withEvents(func(e Events) { e.FocusChanged(active != 0) })
}

//export goPageNotification
func goPageNotification(shown C.int) {
	withEvents(func(e Events) { e.PageNotification(shown != 0) })
}
