//go:build windows

package native

// The Windows view: WebView2 under Wails v2.13, reached through the go-webview2 wrapper
// Wails keeps unexported (see webview2_windows.go). Setup, on Wails' UI thread:
//
//   - puts the message guard in front of go-webview2's message handler (the Messages
//     page may post only the bridge's events) and the permission rules in front of its
//     permission handler (guard.go);
//   - keeps WebView2's own user agent (Edge's, a real browser's) unless one is given,
//     and stops Wails from appending " wails.io" to the requests of other origins;
//   - registers the bridge as a document-start script and waits until WebView2 has it;
//   - opens sign-in popups in windows of its own that share the session (popup_windows.go);
//   - reloads after a renderer crash (through the Shell, which backs off) and has the
//     Shell restart the app after the browser process died;
//   - reports finished and failed loads, and shows the offline page on failures.
//
// Trusted input is CDP Input.dispatchKeyEvent through CallDevToolsProtocolMethod
// (cdp.go): it is addressed to this web view, so it never types into another program,
// and it does not need the window to be shown or in front.
//
// NOT RUN HERE: compiled and vetted on Linux only; the Windows workflow runs it.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"syscall"
	"unsafe"

	"github.com/clanker-desktop/clanker/app/desktop/menus"
	"github.com/wailsapp/go-webview2/pkg/edge"
	"golang.org/x/sys/windows"
)

type windowsPlatform struct {
	mu     sync.Mutex
	w      *wails
	wv     *comPtr // the current ICoreWebView2 (go-webview2 holds its reference)
	cfg    Config
	log    *slog.Logger
	wailsO string // the origin Wails serves the app's own pages from

	origMessage uintptr // go-webview2's WebMessageReceived Invoke

	newWindow   *comHandler // lives as long as the process
	navStarting *comHandler // likewise: records where each navigation goes
	navigations map[uint64]string
	pageUp      bool        // the Messages page is loaded (its last navigation succeeded)
	contextMenu *comHandler // likewise, once InstallContextMenu ran
	ctxState    menus.ContextMenuState
	ctxItems    map[string]*comHandler // CustomItemSelected handler per action/target
	env9        *comPtr                // ICoreWebView2Environment9, for menu items

	popups map[uintptr]*popup // by window handle
}

// NewView returns the Windows view; Setup finds the WebView2 Wails created.
func NewView() View {
	return &windowsPlatform{popups: map[uintptr]*popup{}, ctxItems: map[string]*comHandler{}, navigations: map[uint64]string{}}
}

func (p *windowsPlatform) Setup(ctx context.Context, cfg Config) error {
	if cfg.Origin == "" {
		return errors.New("no Messages origin given: the view would let no page talk to Go")
	}
	w, err := findWails(ctx)
	if err != nil {
		return err
	}
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	p.mu.Lock()
	p.w, p.cfg, p.log = w, cfg, log.With("webview", "webview2")
	p.wailsO = urlOrigin(w.startURL)
	p.mu.Unlock()
	newPageGuard(cfg, p.wailsO)

	scriptAdded := make(chan error, 1)
	var setupErr error
	if err := w.onUI(ctx, func() { setupErr = p.setupOnUI(scriptAdded) }); err != nil {
		return err
	}
	if setupErr != nil {
		return setupErr
	}
	// WebView2 adds the script asynchronously; the target must not load before it has.
	select {
	case err := <-scriptAdded:
		if err != nil {
			return fmt.Errorf("document-start script: %w", err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("WebView2 did not confirm the document-start script: %w", ctx.Err())
	}
}

// setupOnUI installs the guards and the callbacks once and attaches to the web view.
func (p *windowsPlatform) setupOnUI(scriptAdded chan<- error) error {
	c := p.w.chromium
	wv, err := webviewOf(c)
	if err != nil {
		return err
	}
	if wv == nil {
		return ErrNotReady
	}
	// go-webview2's handler objects outlive a rebuilt web view (Embed registers the same
	// ones again), so the guards are installed once.
	if p.origMessage, err = replaceInvoke(c, "webMessageReceived", p.onWebMessage); err != nil {
		return fmt.Errorf("message guard: %w", err)
	}
	if _, err = replaceInvoke(c, "permissionRequested", p.onPermissionRequested); err != nil {
		return fmt.Errorf("permission guard: %w", err)
	}

	// Wails appends " wails.io" to the User-Agent header of every request; keep that for
	// its own pages only.
	if orig := c.WebResourceRequestedCallback; orig != nil {
		c.WebResourceRequestedCallback = func(req *edge.ICoreWebView2WebResourceRequest, args *edge.ICoreWebView2WebResourceRequestedEventArgs) {
			if uri, err := req.GetUri(); err == nil && urlOrigin(uri) == p.wailsO {
				orig(req, args)
			}
		}
	}
	origNav := c.NavigationCompletedCallback
	c.NavigationCompletedCallback = func(sender *edge.ICoreWebView2, args *edge.ICoreWebView2NavigationCompletedEventArgs) {
		if origNav != nil {
			origNav(sender, args)
		}
		p.navigationCompleted((*comPtr)(unsafe.Pointer(sender)), (*comPtr)(unsafe.Pointer(args)))
	}
	origFailed := c.ProcessFailedCallback
	c.ProcessFailedCallback = func(sender *edge.ICoreWebView2, args *edge.ICoreWebView2ProcessFailedEventArgs) {
		p.processFailed(args, origFailed, sender)
	}

	p.newWindow = newHandler(iidNewWindowRequested, p.onNewWindowRequested)
	p.navStarting = newHandler(iidNavigationStarting, p.onNavigationStarting)
	return p.attach(wv, scriptAdded)
}

// attach configures one ICoreWebView2: at start, and again after a rebuild.
func (p *windowsPlatform) attach(wv *comPtr, scriptAdded chan<- error) error {
	p.mu.Lock()
	p.wv = wv
	cfg := p.cfg
	p.mu.Unlock()
	if cfg.UserAgent != "" {
		if err := p.setUserAgent(wv, cfg.UserAgent); err != nil {
			p.log.Warn("user agent not set; WebView2 keeps its own", "err", err)
		}
	}
	var tok eventToken
	if err := hresult(wv.call(wvAddNewWindow, p.newWindow.ptr(), uintptr(unsafe.Pointer(&tok)))); err != nil {
		return fmt.Errorf("popup handler: %w", err)
	}
	if err := hresult(wv.call(wvAddNavigationStarting, p.navStarting.ptr(), uintptr(unsafe.Pointer(&tok)))); err != nil {
		// The offline decision then judges failures by the address the view shows.
		p.log.Warn("navigations are not followed; failed loads are judged by the page shown", "err", err)
	}
	if p.contextMenu != nil {
		if err := p.addContextMenuHandler(wv); err != nil {
			p.log.Warn("page context menu without Clanker items", "err", err)
		}
	}
	if cfg.UserScript == "" {
		if scriptAdded != nil {
			scriptAdded <- nil
		}
		return nil
	}
	done := newHandler(iidAddScriptCompleted, func(hr, _ uintptr) uintptr {
		if scriptAdded != nil {
			scriptAdded <- hresult(hr)
		}
		return sOK
	})
	defer done.release()
	return wv.callString(wvAddScriptOnCreated, cfg.UserScript, done.ptr())
}

func (p *windowsPlatform) setUserAgent(wv *comPtr, ua string) error {
	s, err := (*edge.ICoreWebView2)(unsafe.Pointer(wv)).GetSettings()
	if err != nil {
		return err
	}
	return s.PutUserAgent(ua)
}

func (p *windowsPlatform) webview() *comPtr {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.wv
}

func (p *windowsPlatform) Reload(ctx context.Context) error {
	if p.webview() == nil {
		return ErrNotReady
	}
	var err error
	if uiErr := p.w.onUI(ctx, func() { err = hresult(p.webview().call(wvReload)) }); uiErr != nil {
		return uiErr
	}
	return err
}

var _ Loader = (*windowsPlatform)(nil)

// LoadURL navigates the main view to url (ICoreWebView2::Navigate).
func (p *windowsPlatform) LoadURL(ctx context.Context, url string) error {
	if p.webview() == nil {
		return ErrNotReady
	}
	var err error
	if uiErr := p.w.onUI(ctx, func() { err = p.webview().callString(wvNavigate, url) }); uiErr != nil {
		return uiErr
	}
	return err
}

func (p *windowsPlatform) Input() Input { return cdpInput{p} }

// ---- the guards ----

// onWebMessage sees every web message before go-webview2 does and asks the guard
// (guard.go, app/desktop/internal/ipc) about it. A message that is not a string would
// make go-webview2 end the process; the Messages page may post only the bridge's events;
// Clanker's own page what Wails understands; anything else is dropped, counted and
// logged.
func (p *windowsPlatform) onWebMessage(this, sender, args uintptr) uintptr {
	a, s := ptrArg(&args), ptrArg(&sender)
	body, strErr := a.getString(5) // TryGetWebMessageAsString: fails for anything but a string
	top, _ := s.getString(wvGetSource)
	src, _ := a.getString(3) // get_Source: the document that posted it
	if !allowPageMessage(webView2Message(strErr == nil, body, top, src)) {
		return sOK
	}
	r, _, _ := syscall.SyscallN(p.origMessage, this, sender, args)
	return r
}

// onPermissionRequested answers every permission request of the main web view itself;
// go-webview2's handler (which Wails set to allow everything) never sees them.
func (p *windowsPlatform) onPermissionRequested(this, sender, args uintptr) uintptr {
	p.answerPermission(ptrArg(&args), p.cfg.Origin)
	return sOK
}

// answerPermission puts the decision into an ICoreWebView2PermissionRequestedEventArgs.
func (p *windowsPlatform) answerPermission(a *comPtr, origin string) {
	uri, _ := a.getString(3)
	kind, _ := a.getInt32(4)
	user, _ := a.getInt32(5)
	state := decidePermission(permissionKind(kind), uri, user != 0, origin)
	if err := hresult(a.call(7, uintptr(state))); err != nil {
		p.log.Warn("permission answer not taken", "err", err)
	}
	p.log.Info("page permission request", "kind", permissionKind(kind).String(), "origin", originLabel(uri), "answer", state.String())
}

// ---- loads, crashes ----

// onNavigationStarting records where each main-frame navigation goes, by its id, so a
// failure can be judged by its own address: WebView2's Source still names the page the
// view showed before.
func (p *windowsPlatform) onNavigationStarting(sender, args uintptr) uintptr {
	a := ptrArg(&args)
	uri, err := a.getString(3) // get_Uri
	if err != nil {
		return sOK
	}
	id, err := a.getUint64(9) // get_NavigationId
	if err != nil {
		return sOK
	}
	p.mu.Lock()
	if len(p.navigations) >= 64 { // navigations that never completed; never many
		clear(p.navigations)
	}
	p.navigations[id] = uri
	p.mu.Unlock()
	return sOK
}

// navigation returns (and forgets) where the navigation id went, or "".
func (p *windowsPlatform) navigation(args *comPtr) string {
	id, err := args.getUint64(5) // ICoreWebView2NavigationCompletedEventArgs::get_NavigationId
	if err != nil {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	uri := p.navigations[id]
	delete(p.navigations, id)
	return uri
}

func (p *windowsPlatform) navigationCompleted(sender, args *comPtr) {
	uri, _ := sender.getString(wvGetSource)
	nav := p.navigation(args)
	ok, _ := args.getInt32(3)
	if ok != 0 {
		p.mu.Lock()
		p.pageUp = urlOrigin(uri) == urlOrigin(p.cfg.Origin)
		p.mu.Unlock()
		withEvents(func(e Events) { e.LoadChanged(uri, true) })
		return
	}
	status, _ := args.getInt32(4)
	p.mu.Lock()
	up := p.pageUp
	p.mu.Unlock()
	if !webView2ShowsOffline(status, nav, uri, p.cfg.Origin, up) {
		if status != webErrorCanceled {
			target := nav
			if target == "" {
				target = uri
			}
			p.log.Info("a navigation failed; not a network failure of the Messages page, so the view stays",
				"status", status, "origin", originLabel(target))
		}
		return
	}
	p.mu.Lock()
	p.pageUp = false
	p.mu.Unlock()
	text := webErrorText(status)
	withEvents(func(e Events) { e.LoadFailed(uri, text) })
	if target := offlinePageURL(p.w.startURL, p.cfg.OfflineURL, text); target != "" {
		if err := sender.callString(wvNavigate, target); err != nil {
			p.log.Warn("offline page not shown", "err", err)
		}
	}
}

// COREWEBVIEW2_PROCESS_FAILED_KIND values handled here.
const (
	browserProcessExited    = 0
	renderProcessExited     = 1
	renderProcessUnresponse = 2
)

// processFailed reloads after the page's renderer died or hung (the Shell decides when,
// backing off when it keeps happening) and restarts the app after the browser process
// died, which Wails would answer with an error box and the end of the app. Other
// processes (GPU, utilities, an iframe's renderer) recover by themselves.
func (p *windowsPlatform) processFailed(args *edge.ICoreWebView2ProcessFailedEventArgs, orig func(*edge.ICoreWebView2, *edge.ICoreWebView2ProcessFailedEventArgs), sender *edge.ICoreWebView2) {
	kind, err := args.GetProcessFailedKind()
	if err != nil {
		p.log.Warn("a WebView2 process failed; its kind is unknown", "err", err)
		return
	}
	switch kind {
	case renderProcessExited, renderProcessUnresponse:
		withEvents(func(e Events) { e.WebProcessTerminated(int(kind)) })
	case browserProcessExited:
		// The web view is gone for good: go-webview2 ends the process on the next failed
		// call, and Wails' focus and resize handlers make such calls. The window is
		// hidden at once, so no focus or size change reaches them, and the Shell starts
		// the copy of Clanker that takes over and quits this one (restart.go in package
		// window). If it cannot, Wails' own handler shows its message and ends the app.
		p.log.Error("the WebView2 browser process ended")
		restarting := false
		withEvents(func(e Events) { restarting = e.BrowserProcessEnded() })
		if restarting {
			procShowWindow.Call(p.w.hwnd, swHide)
			return
		}
		if orig != nil {
			orig(sender, args)
		}
	default:
		p.log.Info("a WebView2 helper process failed; WebView2 restarts it", "kind", int(kind))
	}
}

// ---- trusted input ----

// cdpInput presses keys through CDP (see cdp.go).
type cdpInput struct{ p *windowsPlatform }

func (in cdpInput) PressEnter(ctx context.Context) error {
	calls := pressKeyCalls(keyEnter)
	var firstErr error
	for i, c := range calls {
		err := in.p.devtools(ctx, c)
		if err != nil && firstErr == nil {
			firstErr = err
			// Still switch focus emulation off (the last call) if it was switched on.
			if i > 0 && i < len(calls)-1 {
				_ = in.p.devtools(ctx, calls[len(calls)-1])
			}
			break
		}
	}
	return firstErr
}

// devtools runs one CDP call and waits for WebView2's answer.
func (p *windowsPlatform) devtools(ctx context.Context, c cdpCall) error {
	wv := p.webview()
	if wv == nil {
		return ErrNotReady
	}
	type answer struct {
		hr   uintptr
		json string
	}
	res := make(chan answer, 1)
	var callErr error
	err := p.w.onUI(ctx, func() {
		h := newHandler(iidCallDevToolsCompleted, func(hr, json uintptr) uintptr {
			res <- answer{hr, strArg(&json)}
			return sOK
		})
		defer h.release()
		m, err := windows.UTF16PtrFromString(c.Method)
		if err != nil {
			callErr = err
			return
		}
		params, err := windows.UTF16PtrFromString(c.Params)
		if err != nil {
			callErr = err
			return
		}
		callErr = hresult(wv.call(wvCallDevToolsMethod, uintptr(unsafe.Pointer(m)), uintptr(unsafe.Pointer(params)), h.ptr()))
	})
	if err != nil {
		return err
	}
	if callErr != nil {
		return fmt.Errorf("WebView2 refused %s: %w", c.Method, callErr)
	}
	select {
	case a := <-res:
		if failed(a.hr) {
			return fmt.Errorf("%s failed (%v): %s", c.Method, comError(uint32(a.hr)), clip(a.json, 200))
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("WebView2 did not answer %s: %w", c.Method, ctx.Err())
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
