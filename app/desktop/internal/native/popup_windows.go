//go:build windows

package native

// Sign-in popups on Windows. window.open in the Messages page raises NewWindowRequested.
// Allowed origins (Events.PopupAllowed: Messages and Google's sign-in) open in a window
// of this view's own, whose web view is created from the main view's environment, so it
// shares the browser process and the profile: cookies, storage and window.opener work
// and the sign-in lands in the main window's session. Everything else is marked handled
// (nothing opens; the Shell hands http(s) URLs to the system browser).
//
// The popup web view gets none of the main view's scripts or message handlers: no page
// in it can talk to Go. It denies every permission request.
//
// NOT RUN HERE: compiled and vetted on Linux only; the Windows workflow runs it.

import (
	"errors"
	"syscall"
	"unsafe"

	"github.com/wailsapp/go-webview2/pkg/edge"
	"golang.org/x/sys/windows"
)

var (
	user32               = windows.NewLazySystemDLL("user32.dll")
	procRegisterClassExW = user32.NewProc("RegisterClassExW")
	procCreateWindowExW  = user32.NewProc("CreateWindowExW")
	procDefWindowProcW   = user32.NewProc("DefWindowProcW")
	procDestroyWindow    = user32.NewProc("DestroyWindow")
	procShowWindow       = user32.NewProc("ShowWindow")
	procGetClientRect    = user32.NewProc("GetClientRect")
	procSetWindowTextW   = user32.NewProc("SetWindowTextW")
	procLoadCursorW      = user32.NewProc("LoadCursorW")
	procGetDpiForWindow  = user32.NewProc("GetDpiForWindow")
	procPostMessageW     = user32.NewProc("PostMessageW")
)

const (
	wmDestroy          = 0x0002
	wmSize             = 0x0005
	wmClose            = 0x0010
	wsOverlappedWindow = 0x00CF0000
	cwUseDefault       = 0x80000000
	swHide             = 0
	swShow             = 5
	idcArrow           = 32512
	popupClassName     = "ClankerSignInPopup"
)

// popup is one open popup window.
type popup struct {
	hwnd       uintptr
	controller *comPtr // ICoreWebView2Controller, ours (AddRef'd)
	webview    *comPtr // its ICoreWebView2, ours
}

type wndClassEx struct {
	size       uint32
	style      uint32
	wndProc    uintptr
	clsExtra   int32
	wndExtra   int32
	instance   windows.Handle
	icon       windows.Handle
	cursor     windows.Handle
	background windows.Handle
	menuName   *uint16
	className  *uint16
	iconSm     windows.Handle
}

var (
	popupClass     *uint16
	popupWndProcCb = syscall.NewCallback(popupWndProc)
	popupOwner     *windowsPlatform // the one view of this process (one main window)
)

// registerPopupClass registers the popup window class once.
func registerPopupClass() error {
	if popupClass != nil {
		return nil
	}
	name, _ := windows.UTF16PtrFromString(popupClassName)
	var inst windows.Handle
	if err := windows.GetModuleHandleEx(0, nil, &inst); err != nil {
		return err
	}
	cursor, _, _ := procLoadCursorW.Call(0, idcArrow)
	wc := wndClassEx{wndProc: popupWndProcCb, instance: inst, cursor: windows.Handle(cursor),
		background: windows.Handle(5 + 1), className: name} // COLOR_WINDOW + 1
	wc.size = uint32(unsafe.Sizeof(wc))
	if r, _, err := procRegisterClassExW.Call(uintptr(unsafe.Pointer(&wc))); r == 0 {
		return err
	}
	popupClass = name
	return nil
}

// onNewWindowRequested is the ICoreWebView2NewWindowRequestedEventHandler of the main view.
func (p *windowsPlatform) onNewWindowRequested(_, args uintptr) uintptr {
	a := ptrArg(&args)
	uri, _ := a.getString(3)
	allowed := false
	withEvents(func(e Events) { allowed = e.PopupAllowed(uri) })
	if !allowed {
		a.call(6, 1) // put_Handled(TRUE): nothing opens
		return sOK
	}
	if err := p.openPopup(a); err != nil {
		// WebView2 then opens its own popup window, which shares the session too but
		// which this view cannot follow.
		p.log.Warn("sign-in popup in WebView2's own window", "err", err)
	}
	return sOK
}

// openPopup creates the popup window and, asynchronously, its web view, which becomes
// the new window of the request (put_NewWindow inside the request's deferral).
func (p *windowsPlatform) openPopup(args *comPtr) error {
	if err := registerPopupClass(); err != nil {
		return err
	}
	w, h := p.popupSize(args)
	title, _ := windows.UTF16PtrFromString("Sign in")
	hwnd, _, err := procCreateWindowExW.Call(0, uintptr(unsafe.Pointer(popupClass)), uintptr(unsafe.Pointer(title)),
		wsOverlappedWindow, cwUseDefault, cwUseDefault, uintptr(w), uintptr(h), p.w.hwnd, 0, 0, 0)
	if hwnd == 0 {
		return err
	}
	popupOwner = p
	p.mu.Lock()
	p.popups[hwnd] = &popup{hwnd: hwnd}
	p.mu.Unlock()
	withEvents(func(e Events) { e.PopupCreated() })
	deferral, err := args.getPtr(9) // GetDeferral
	if err != nil {
		procDestroyWindow.Call(hwnd)
		return err
	}
	args.addRef()
	env := (*comPtr)(unsafe.Pointer(p.w.chromium.Environment()))
	done := newHandler(iidCreateControllerDone, func(hr, ctrl uintptr) uintptr {
		defer func() {
			deferral.call(3) // Complete
			deferral.release()
			args.release()
		}()
		if failed(hr) {
			p.log.Warn("sign-in popup: no web view", "err", comError(uint32(hr)))
			procDestroyWindow.Call(hwnd)
			return sOK
		}
		pp, err := p.setUpPopup(hwnd, ptrArg(&ctrl))
		if err != nil {
			p.log.Warn("sign-in popup: web view not set up", "err", err)
			procDestroyWindow.Call(hwnd)
			return sOK
		}
		if err := hresult(args.call(4, uintptr(unsafe.Pointer(pp.webview)))); err != nil { // put_NewWindow
			p.log.Warn("sign-in popup: WebView2 did not take the window", "err", err)
			procDestroyWindow.Call(hwnd)
			return sOK
		}
		procShowWindow.Call(hwnd, swShow)
		withEvents(func(e Events) { e.PopupShown() })
		return sOK
	})
	defer done.release()
	if err := hresult(env.call(3, hwnd, done.ptr())); err != nil { // CreateCoreWebView2Controller
		deferral.release()
		args.release()
		procDestroyWindow.Call(hwnd)
		return err
	}
	return nil
}

// popupSize is the size the page asked for (window.open features), or a sign-in sized
// default, in the owner's pixels.
func (p *windowsPlatform) popupSize(args *comPtr) (w, h int32) {
	w, h = 520, 680
	if f, err := args.getPtr(10); err == nil { // get_WindowFeatures
		if has, _ := f.getInt32(4); has != 0 {
			fh, _ := f.getInt32(7)
			fw, _ := f.getInt32(8)
			if fw >= 200 && fh >= 200 && fw <= 4000 && fh <= 4000 {
				w, h = fw, fh
			}
		}
		f.release()
	}
	if procGetDpiForWindow.Find() == nil { // Windows 10 1607 and later
		if dpi, _, _ := procGetDpiForWindow.Call(p.w.hwnd); dpi > 96 {
			w, h = w*int32(dpi)/96, h*int32(dpi)/96
		}
	}
	return w, h
}

// setUpPopup takes the new controller and configures its web view.
func (p *windowsPlatform) setUpPopup(hwnd uintptr, ctrl *comPtr) (*popup, error) {
	ctrl.addRef()
	wv, err := ctrl.getPtr(25) // get_CoreWebView2 (AddRef'd for us)
	if err != nil {
		ctrl.release()
		return nil, err
	}
	p.mu.Lock()
	pp := p.popups[hwnd]
	if pp == nil { // the window is gone already
		p.mu.Unlock()
		wv.release()
		ctrl.release()
		return nil, errors.New("the popup window was closed before its web view was ready")
	}
	pp.controller, pp.webview = ctrl, wv
	ua := p.cfg.UserAgent
	p.mu.Unlock()
	if s, err := (*edge.ICoreWebView2)(unsafe.Pointer(wv)).GetSettings(); err == nil {
		if ua != "" {
			_ = s.PutUserAgent(ua)
		}
		_ = s.PutAreDevToolsEnabled(false)
	}
	var tok eventToken
	closeReq := newHandler(iidWindowCloseRequested, func(_, _ uintptr) uintptr {
		procPostMessageW.Call(hwnd, wmClose, 0, 0) // window.close() in the popup
		return sOK
	})
	defer closeReq.release()
	if err := hresult(wv.call(wvAddWindowClose, closeReq.ptr(), uintptr(unsafe.Pointer(&tok)))); err != nil {
		return pp, err
	}
	titled := newHandler(iidDocumentTitleChanged, func(sender, _ uintptr) uintptr {
		if t, err := ptrArg(&sender).getString(wvGetDocumentTitle); err == nil && t != "" {
			if u, err := windows.UTF16PtrFromString(t); err == nil {
				procSetWindowTextW.Call(hwnd, uintptr(unsafe.Pointer(u)))
			}
		}
		return sOK
	})
	defer titled.release()
	_ = wv.call(wvAddTitleChanged, titled.ptr(), uintptr(unsafe.Pointer(&tok)))
	perm := newHandler(iidPermissionRequested, func(_, args uintptr) uintptr {
		p.answerPermission(ptrArg(&args), "") // no origin: everything is denied
		return sOK
	})
	defer perm.release()
	if err := hresult(wv.call(wvAddPermission, perm.ptr(), uintptr(unsafe.Pointer(&tok)))); err != nil {
		return pp, err
	}
	resizePopup(pp)
	return pp, hresult(ctrl.call(4, 1)) // put_IsVisible(TRUE)
}

// resizePopup fits the web view to the window's client area.
func resizePopup(pp *popup) {
	var r edge.Rect
	procGetClientRect.Call(pp.hwnd, uintptr(unsafe.Pointer(&r)))
	_ = (*edge.ICoreWebView2Controller)(unsafe.Pointer(pp.controller)).PutBounds(r)
}

// popupWndProc is the popup windows' window procedure (on the UI thread).
func popupWndProc(hwnd, msg, wparam, lparam uintptr) uintptr {
	p := popupOwner
	var pp *popup
	if p != nil {
		p.mu.Lock()
		pp = p.popups[hwnd]
		p.mu.Unlock()
	}
	switch msg {
	case wmSize:
		if pp != nil && pp.controller != nil {
			resizePopup(pp)
		}
	case wmDestroy:
		if pp != nil {
			p.mu.Lock()
			delete(p.popups, hwnd)
			p.mu.Unlock()
			if pp.controller != nil {
				pp.controller.call(24) // Close
				pp.webview.release()
				pp.controller.release()
			}
			withEvents(func(e Events) { e.PopupClosed() })
		}
		return 0
	}
	r, _, _ := procDefWindowProcW.Call(hwnd, msg, wparam, lparam)
	return r
}
