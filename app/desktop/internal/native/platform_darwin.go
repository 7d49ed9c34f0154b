//go:build darwin

package native

// The macOS platform: WKWebView, reached past Wails from Objective-C (webkit_darwin.m).
// Written against Apple's documented AppKit and WebKit API and Wails v2.13's darwin
// sources; it cannot be built on the Linux machines this project is developed on, and
// runs only on a Mac (.github/workflows/macos.yml builds and smoke-tests it there). The
// decisions it carries out are plain Go in app/desktop/internal/macos, tested everywhere.

/*
#cgo CFLAGS: -x objective-c -fobjc-arc
#cgo LDFLAGS: -framework Cocoa -framework WebKit
#include <stdlib.h>
#include "webkit_darwin.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/clanker-desktop/clanker/app/desktop/internal/ipc"
	"github.com/clanker-desktop/clanker/app/desktop/internal/macos"
)

// schedule asks the main loop to run job id (goRunJob calls back with it).
func schedule(id uint64) { C.clanker_mac_schedule(C.uint64_t(id)) }

//export goRunJob
func goRunJob(id C.uint64_t) { runJob(uint64(id)) }

// The settings the Objective-C callbacks need from Go: the one origin that may talk to
// the app, and the offline page's address.
var (
	messagesOrigin atomic.Pointer[string]
	offlineBase    atomic.Pointer[string]
)

func loadString(p *atomic.Pointer[string]) string {
	if s := p.Load(); s != nil {
		return *s
	}
	return ""
}

type darwinPlatform struct {
	mu sync.Mutex
	wv unsafe.Pointer // the WKWebView; the Objective-C side holds it strongly
}

// NewView returns the macOS view; Setup finds the WKWebView Wails created.
func NewView() View { return &darwinPlatform{} }

func (p *darwinPlatform) Setup(ctx context.Context, cfg Config) error {
	newPageGuard(cfg, bootstrapOrigin)
	origin, base := cfg.Origin, cfg.OfflineURL
	messagesOrigin.Store(&origin)
	offlineBase.Store(&base)
	ua, script := C.CString(cfg.UserAgent), C.CString(cfg.UserScript)
	var err error
	runErr := onMainThread(ctx, func() {
		defer C.free(unsafe.Pointer(ua))
		defer C.free(unsafe.Pointer(script))
		wv := C.clanker_mac_find_webview()
		if wv == nil {
			err = errors.New("no WKWebView found in the app's windows")
			return
		}
		if msg := C.clanker_mac_setup(wv, ua, script); msg != nil {
			err = errors.New(C.GoString(msg))
			return
		}
		p.mu.Lock()
		p.wv = wv
		p.mu.Unlock()
	})
	if runErr != nil {
		return runErr
	}
	return err
}

func (p *darwinPlatform) view() unsafe.Pointer {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.wv
}

func (p *darwinPlatform) Reload(ctx context.Context) error {
	wv := p.view()
	if wv == nil {
		return ErrNotReady
	}
	return onMainThread(ctx, func() { C.clanker_mac_reload(wv) })
}

// RunOnMainThread runs fn on AppKit's main thread: the tray's status item must be made
// there, and Wails' OnStartup runs on another goroutine.
func (p *darwinPlatform) RunOnMainThread(ctx context.Context, fn func()) error {
	return onMainThread(ctx, fn)
}

func (p *darwinPlatform) Input() Input { return nsEventInput{p} }

// nsEventInput is the macOS Input: NSEvents handed to the WKWebView, which runs WebKit's
// whole native key pipeline, so the page sees trusted keydown and keyup events. The
// events are addressed to this view and never pass through NSApp or the key window, so
// they cannot land in another window or program. Which way they go in, and why, is
// macos.KeyRoutes: the window's sendEvent: when it is shown and has the keyboard, the
// view's keyDown: otherwise (WebKit's keyDown: checks nothing about the window). After
// each try a listener in an isolated script world says whether the page received a
// trusted Enter; if it did not, the next route is tried, and if none worked PressEnter
// says so instead of reporting a send that did not happen. (Whether the hidden case
// works is what the macOS smoke test checks on a real Mac: it cannot be run here.)
type nsEventInput struct{ p *darwinPlatform }

// enterConfirmWait is how long after a key press the page has to report the Enter.
const enterConfirmWait = 2 * time.Second

func (in nsEventInput) PressEnter(ctx context.Context) error {
	wv := in.p.view()
	if wv == nil {
		return ErrNotReady
	}
	var state C.int
	if err := onMainThread(ctx, func() { state = C.clanker_mac_window_state(wv) }); err != nil {
		return err
	}
	if state < 0 {
		return errors.New("desktop: the web view is in no window, so no key was sent")
	}
	routes := macos.KeyRoutes(state&1 != 0, state&2 != 0)
	before, confirmable := countEnters(ctx, wv)
	var tried []string
	for i, r := range routes {
		if err := in.press(ctx, macos.Press(macos.Return), r); err != nil {
			tried = append(tried, r.String()+": "+err.Error())
			continue
		}
		if confirmable < 0 {
			return nil // macOS 10 or a failing counter: the press is all there is to go on
		}
		if waitEnter(ctx, wv, before) {
			if i > 0 {
				slog.Default().Info("the page received the Enter by the fallback route", "component", "desktop", "route", r.String())
			}
			return nil
		}
		tried = append(tried, r.String())
		slog.Default().Warn("the page did not receive the Enter; trying the next route", "component", "desktop", "route", r.String())
	}
	return fmt.Errorf("desktop: the page did not receive the Enter (tried %s)", strings.Join(tried, "; "))
}

// countEnters asks the page how many trusted Enter keydowns it has seen; ok is -1 when
// the count cannot be had (macOS before 11, or the script failed).
func countEnters(ctx context.Context, wv unsafe.Pointer) (count int, ok int) {
	done := make(chan int, 1)
	entersMu.Lock()
	entersNext++
	job := entersNext
	entersWait[job] = done
	entersMu.Unlock()
	defer func() {
		entersMu.Lock()
		delete(entersWait, job)
		entersMu.Unlock()
	}()
	script := C.CString(macos.EnterCounterScript)
	err := onMainThread(ctx, func() {
		defer C.free(unsafe.Pointer(script))
		C.clanker_mac_count_enters(wv, C.uint64_t(job), script)
	})
	if err != nil {
		return 0, -1
	}
	select {
	case n := <-done:
		if n < 0 {
			return 0, -1
		}
		return n, 0
	case <-ctx.Done():
		return 0, -1
	case <-time.After(enterConfirmWait):
		return 0, -1
	}
}

// waitEnter waits up to enterConfirmWait for the page's count to move from before (a
// new document starts again from 0, which counts too: something happened).
func waitEnter(ctx context.Context, wv unsafe.Pointer, before int) bool {
	deadline := time.Now().Add(enterConfirmWait)
	for {
		if n, ok := countEnters(ctx, wv); ok == 0 && n != before {
			return true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(100 * time.Millisecond):
		}
	}
}

var (
	entersMu   sync.Mutex
	entersNext uint64
	entersWait = map[uint64]chan int{}
)

//export goEntersCounted
func goEntersCounted(job C.uint64_t, count C.long) {
	entersMu.Lock()
	done := entersWait[uint64(job)]
	entersMu.Unlock()
	if done != nil {
		select {
		case done <- int(count):
		default:
		}
	}
}

func (in nsEventInput) press(ctx context.Context, evs []macos.KeyEvent, route macos.KeyRoute) error {
	wv := in.p.view()
	if wv == nil {
		return ErrNotReady
	}
	n := len(evs)
	if n == 0 {
		return nil
	}
	types := make([]C.int, n)
	codes := make([]C.uint16_t, n)
	mods := make([]C.uint64_t, n)
	chars := make([]*C.char, n)
	ignoring := make([]*C.char, n)
	for i, e := range evs {
		types[i], codes[i], mods[i] = C.int(e.Type), C.uint16_t(e.KeyCode), C.uint64_t(e.Modifiers)
		chars[i], ignoring[i] = C.CString(e.Characters), C.CString(e.CharactersIgnoringModifiers)
	}
	var rc C.int
	err := onMainThread(ctx, func() {
		defer func() {
			for i := range chars {
				C.free(unsafe.Pointer(chars[i]))
				C.free(unsafe.Pointer(ignoring[i]))
			}
		}()
		// The arrays are Go memory holding only C values and C pointers, which cgo may pass.
		rc = C.clanker_mac_keys(wv, C.int(route), C.int(n), &types[0], &codes[0], &mods[0], &chars[0], &ignoring[0])
	})
	if err != nil {
		return err
	}
	switch rc {
	case 0:
		return nil
	case -1:
		return errors.New("desktop: the web view is in no window, so no key was sent")
	default:
		return errors.New("desktop: AppKit could not build the key event, so no key was sent")
	}
}

// WatchWake reloads through onWake each time the Mac wakes from sleep, until ctx ends:
// after a sleep the Messages page's connection to the phone is often stale.
func (p *darwinPlatform) WatchWake(ctx context.Context, onWake func()) error {
	wakeMu.Lock()
	wakeFn = onWake
	wakeMu.Unlock()
	defer func() {
		wakeMu.Lock()
		wakeFn = nil
		wakeMu.Unlock()
	}()
	startCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	err := onMainThread(startCtx, func() { C.clanker_mac_watch_wake() })
	cancel()
	if err != nil {
		return fmt.Errorf("watch for the Mac waking up: %w", err)
	}
	<-ctx.Done()
	return nil
}

var (
	wakeMu sync.Mutex
	wakeFn func()
)

//export goWoke
func goWoke() {
	wakeMu.Lock()
	fn := wakeFn
	wakeMu.Unlock()
	if fn != nil {
		go fn()
	}
}

// dropLog logs what the permission rules refuse, at most once per reason in a while: a
// hostile page could ask thousands of times. (Page messages have the guard's own.)
var dropLog = ipc.NewThrottle(30 * time.Second)

func logDrop(msg, reason, origin string) {
	if ok, suppressed := dropLog.Allow(reason, time.Now()); ok {
		slog.Default().Warn(msg, "component", "desktop", "reason", reason, "origin", origin, "suppressed_since_last", suppressed)
	}
}

//export goCheckMessage
func goCheckMessage(isString, mainView, mainFrame C.int, protocol, host *C.char, port C.int, body *C.char) C.int {
	m := webKitMessage(isString != 0, mainView != 0, mainFrame != 0, C.GoString(protocol), C.GoString(host), int(port),
		C.GoString(body))
	if allowPageMessage(m) {
		return 1
	}
	return 0
}

func request(mainView, mainFrame C.int, protocol, host *C.char, port C.int) macos.Request {
	return macos.Request{
		Origin:       macos.Origin(C.GoString(protocol), C.GoString(host), int(port)),
		FromMainView: mainView != 0,
		MainFrame:    mainFrame != 0,
	}
}

//export goMediaDecision
func goMediaDecision(mainView, mainFrame C.int, protocol, host *C.char, port C.int, kind C.int) C.int {
	r := request(mainView, mainFrame, protocol, host, port)
	d, why := macos.MediaCapture(r, macos.MediaKind(kind), loadString(&messagesOrigin))
	logDrop("capture device request answered", why+" ("+d.String()+")", r.Origin)
	return C.int(d)
}

//export goFilePicker
func goFilePicker(mainView, mainFrame C.int, protocol, host *C.char, port C.int) C.int {
	r := request(mainView, mainFrame, protocol, host, port)
	if macos.FilePicker(r, loadString(&messagesOrigin)) {
		return 1
	}
	logDrop("file picker refused", "only the Messages page may ask for files", r.Origin)
	return 0
}

//export goShowsOffline
func goShowsOffline(domain *C.char, code C.long, url *C.char) C.int {
	if macos.ShowsOffline(C.GoString(domain), int(code), C.GoString(url)) {
		return 1
	}
	return 0
}

// goOfflineURL returns the offline page's address for the error text (the caller frees
// it), or NULL without an offline page.
//
//export goOfflineURL
func goOfflineURL(message *C.char) *C.char {
	base := loadString(&offlineBase)
	if base == "" {
		return nil
	}
	return C.CString(macos.OfflineURL(base, C.GoString(message)))
}

//export goPopupSize
func goPopupSize(width, height C.double, outWidth, outHeight *C.double) {
	w, h := macos.PopupSize(float64(width), float64(height))
	*outWidth, *outHeight = C.double(w), C.double(h)
}

//export goWindowGeometry
func goWindowGeometry(wx, wy, ww, wh, sx, sy, sw, sh C.double) {
	x, y, w, h := macos.TopLeft(
		macos.Rect{X: float64(wx), Y: float64(wy), Width: float64(ww), Height: float64(wh)},
		macos.Rect{X: float64(sx), Y: float64(sy), Width: float64(sw), Height: float64(sh)},
	)
	withEvents(func(e Events) { e.GeometryChanged(x, y, w, h) })
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
func goLoadChanged(uri *C.char, finished C.int) {
	u := C.GoString(uri)
	withEvents(func(e Events) { e.LoadChanged(u, finished != 0) })
}
