//go:build windows

package native

// The COM plumbing under the Windows view: calling WebView2 interfaces by vtable slot,
// COM objects implemented in Go (completion and event handlers), and reaching the
// WebView2 and the UI thread that Wails v2 keeps to itself.
//
// NOT RUN HERE: this file compiles on the Linux machines the project is made on
// (GOOS=windows go vet) but only runs on Windows with the WebView2 runtime; the
// Windows workflow exercises it. Vtable slots and interface ids follow the WebView2
// SDK's WebView2.idl (the order go-webview2 mirrors, with QueryInterface at 0).

import (
	"context"
	"errors"
	"fmt"
	"log"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/wailsapp/go-webview2/pkg/edge"
	"golang.org/x/sys/windows"
)

// comPtr is a COM interface pointer: an object outside Go's memory whose first word
// points at its vtable.
type comPtr struct{ vtbl *[256]uintptr }

// call calls the method in vtable slot with the object as its first argument. The
// directive makes pointers converted to uintptr in args escape to the heap and stay
// alive for the call, as for windows.LazyProc.Call.
//
//go:uintptrescapes
func (p *comPtr) call(slot int, args ...uintptr) uintptr {
	a := make([]uintptr, 0, len(args)+1)
	a = append(a, uintptr(unsafe.Pointer(p)))
	a = append(a, args...)
	r, _, _ := syscall.SyscallN(p.vtbl[slot], a...)
	return r
}

func (p *comPtr) addRef()  { p.call(1) }
func (p *comPtr) release() { p.call(2) }

// queryInterface asks the object for another of its interfaces (nil when it has none).
func (p *comPtr) queryInterface(iid *windows.GUID) *comPtr {
	var out *comPtr
	if failed(p.call(0, uintptr(unsafe.Pointer(iid)), uintptr(unsafe.Pointer(&out)))) {
		return nil
	}
	return out
}

// getString calls a get_ method that returns a CoTaskMem string.
func (p *comPtr) getString(slot int) (string, error) {
	var s *uint16
	if err := hresult(p.call(slot, uintptr(unsafe.Pointer(&s)))); err != nil {
		return "", err
	}
	if s == nil {
		return "", nil
	}
	defer windows.CoTaskMemFree(unsafe.Pointer(s))
	return windows.UTF16PtrToString(s), nil
}

// getInt32 calls a get_ method that returns a 32-bit value (BOOL, an enum, an int).
func (p *comPtr) getInt32(slot int) (int32, error) {
	var v int32
	err := hresult(p.call(slot, uintptr(unsafe.Pointer(&v))))
	return v, err
}

// getUint64 calls a get_ method that returns a 64-bit value (a navigation id).
func (p *comPtr) getUint64(slot int) (uint64, error) {
	var v uint64
	err := hresult(p.call(slot, uintptr(unsafe.Pointer(&v))))
	return v, err
}

// getPtr calls a method whose last argument receives an interface pointer.
func (p *comPtr) getPtr(slot int, args ...uintptr) (*comPtr, error) {
	var out *comPtr
	if err := hresult(p.call(slot, append(args, uintptr(unsafe.Pointer(&out)))...)); err != nil {
		return nil, err
	}
	if out == nil {
		return nil, errors.New("WebView2 returned no object")
	}
	return out, nil
}

// callString calls a method whose first argument is a string.
func (p *comPtr) callString(slot int, s string, args ...uintptr) error {
	u, err := windows.UTF16PtrFromString(s)
	if err != nil {
		return fmt.Errorf("string with a NUL character: %w", err)
	}
	return hresult(p.call(slot, append([]uintptr{uintptr(unsafe.Pointer(u))}, args...)...))
}

// comError is a failed HRESULT.
type comError uint32

func (e comError) Error() string {
	return fmt.Sprintf("HRESULT 0x%08X: %v", uint32(e), syscall.Errno(uint32(e)&0xFFFF))
}

func failed(r uintptr) bool { return int32(uint32(r)) < 0 }

func hresult(r uintptr) error {
	if failed(r) {
		return comError(uint32(r))
	}
	return nil
}

const (
	sOK          = 0
	eNoInterface = 0x80004002
)

// ptrArg reads a callback argument that carries an interface pointer. The pointer is
// WebView2's, outside Go's memory; reading it through the argument's address keeps the
// conversion legal for go vet.
func ptrArg(a *uintptr) *comPtr { return *(**comPtr)(unsafe.Pointer(a)) }

// strArg reads a callback argument that carries a borrowed LPCWSTR.
func strArg(a *uintptr) string { return windows.UTF16PtrToString(*(**uint16)(unsafe.Pointer(a))) }

// ---- COM objects implemented in Go ----

// comHandler is a WebView2 handler (ICoreWebView2...Handler): IUnknown plus one Invoke
// method with two arguments, which covers every completion handler (an HRESULT and a
// result) and every event handler (the sender and the event's arguments) used here.
// WebView2 holds the pointer: the object stays registered, and therefore alive and
// pinned, until its reference count drops to zero.
type comHandler struct {
	vtbl   *[4]uintptr // first: COM reads the vtable pointer at offset 0
	iid    windows.GUID
	refs   atomic.Int32
	invoke func(a, b uintptr) uintptr
	pin    runtime.Pinner
}

var (
	handlersMu sync.Mutex
	handlers   = map[*comHandler]struct{}{}
)

var handlerVtbl = [4]uintptr{
	syscall.NewCallback(handlerQueryInterface),
	syscall.NewCallback(handlerAddRef),
	syscall.NewCallback(handlerRelease),
	syscall.NewCallback(handlerInvoke),
}

var iidIUnknown = windows.GUID{Data1: 0x00000000, Data2: 0x0000, Data3: 0x0000, Data4: [8]byte{0xC0, 0, 0, 0, 0, 0, 0, 0x46}}

// newHandler makes a handler for interface iid. It starts with one reference, the
// caller's, which the caller gives up with release once WebView2 holds its own (or at
// once for a handler that lives as long as the process, never).
func newHandler(iid windows.GUID, invoke func(a, b uintptr) uintptr) *comHandler {
	h := &comHandler{vtbl: &handlerVtbl, iid: iid, invoke: invoke}
	h.refs.Store(1)
	h.pin.Pin(h)
	handlersMu.Lock()
	handlers[h] = struct{}{}
	handlersMu.Unlock()
	return h
}

// ptr is the handler as the COM pointer WebView2 receives.
func (h *comHandler) ptr() uintptr { return uintptr(unsafe.Pointer(h)) }

func (h *comHandler) release() { handlerRelease(h) }

func handlerQueryInterface(this *comHandler, iid *windows.GUID, out *uintptr) uintptr {
	if *iid == iidIUnknown || *iid == this.iid {
		*out = uintptr(unsafe.Pointer(this))
		this.refs.Add(1)
		return sOK
	}
	*out = 0
	return eNoInterface
}

func handlerAddRef(this *comHandler) uintptr { return uintptr(this.refs.Add(1)) }

func handlerRelease(this *comHandler) uintptr {
	n := this.refs.Add(-1)
	if n == 0 {
		handlersMu.Lock()
		delete(handlers, this)
		handlersMu.Unlock()
		this.pin.Unpin()
	}
	return uintptr(n)
}

// handlerInvoke runs the handler's Go function. A panic must not unwind into
// WebView2's C++ frames: it is logged and the call reports success.
func handlerInvoke(this *comHandler, a, b uintptr) (r uintptr) {
	defer func() {
		if p := recover(); p != nil {
			log.Printf("clanker: a WebView2 handler panicked: %v", p)
			r = sOK
		}
	}()
	return this.invoke(a, b)
}

// ---- reaching into Wails ----

// wails is what the Windows view needs from Wails v2.13's Windows frontend, which
// exports none of it: the go-webview2 Chromium wrapper, the main window (for its UI
// thread and handle) and the URL Wails serves the app's own pages from.
type wails struct {
	chromium *edge.Chromium
	window   uiWindow
	hwnd     uintptr
	startURL string
}

// uiWindow is the part of Wails' main window (a winc.Form) used here: running a
// function on the window's thread, which is the thread every WebView2 call must be
// made on.
type uiWindow interface {
	Invoke(func()) bool
	InvokeRequired() bool
}

// findWails takes the Wails frontend out of the context Wails passes to OnStartup (in
// production builds it is stored under "frontend") and reads its unexported fields by
// reflection. It fails with a clear error when Wails changes them, instead of guessing.
func findWails(ctx context.Context) (*wails, error) {
	fe := ctx.Value("frontend")
	v := reflect.ValueOf(fe)
	if !v.IsValid() || v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("the context from Wails holds no Windows frontend (found %T; a dev-mode build?)", fe)
	}
	s := v.Elem()
	field := func(name string) (reflect.Value, error) {
		f := s.FieldByName(name)
		if !f.IsValid() {
			return reflect.Value{}, fmt.Errorf("the Wails type %s has no field %q (Wails changed; this code reads v2.13)", s.Type(), name)
		}
		return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem(), nil
	}
	w := &wails{startURL: "http://wails.localhost"}
	f, err := field("chromium")
	if err != nil {
		return nil, err
	}
	c, ok := f.Interface().(*edge.Chromium)
	if !ok || c == nil {
		return nil, fmt.Errorf("the chromium field of the Wails frontend is %s, not a *edge.Chromium", f.Type())
	}
	w.chromium = c
	if f, err = field("mainWindow"); err != nil {
		return nil, err
	}
	win, ok := f.Interface().(uiWindow)
	if !ok || f.IsNil() {
		return nil, fmt.Errorf("the main window of the Wails frontend (%s) cannot run functions on its thread", f.Type())
	}
	w.window = win
	h := f.MethodByName("Handle")
	if !h.IsValid() || h.Type().NumIn() != 0 || h.Type().NumOut() != 1 {
		return nil, errors.New("the main window of the Wails frontend has no Handle method")
	}
	w.hwnd = uintptr(h.Call(nil)[0].Uint())
	if f, err = field("startURL"); err == nil {
		if u, ok := f.Interface().(fmt.Stringer); ok && !f.IsNil() {
			w.startURL = u.String()
		}
	}
	return w, nil
}

// onUI runs fn on the window's thread and waits for it, or for ctx.
func (w *wails) onUI(ctx context.Context, fn func()) error {
	if !w.window.InvokeRequired() {
		fn()
		return nil
	}
	done := make(chan struct{})
	if !w.window.Invoke(func() { defer close(done); fn() }) {
		return errors.New("the window's thread did not accept the job (its message queue is full or the window is gone)")
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("the window's thread did not run the job: %w", ctx.Err())
	}
}

// fieldPtr returns a pointer to an unexported field of go-webview2's Chromium.
func fieldPtr(c *edge.Chromium, name string) (unsafe.Pointer, error) {
	f := reflect.ValueOf(c).Elem().FieldByName(name)
	if !f.IsValid() {
		return nil, fmt.Errorf("go-webview2's Chromium has no field %q (go-webview2 changed; this code reads v1.0.22)", name)
	}
	return unsafe.Pointer(f.UnsafeAddr()), nil
}

// webviewOf returns the ICoreWebView2 go-webview2 holds (nil before Embed finished).
func webviewOf(c *edge.Chromium) (*comPtr, error) {
	p, err := fieldPtr(c, "webview")
	if err != nil {
		return nil, err
	}
	return *(**comPtr)(p), nil
}

// replaceInvoke points one of go-webview2's own event handler objects (the field name
// of Chromium) at a copy of its vtable whose Invoke is fn, so the event reaches fn
// instead of go-webview2. It is how the view gets in front of the message and
// permission handlers go-webview2 registers and Wails cannot change. The original
// Invoke is returned for fn to pass events on to.
func replaceInvoke(c *edge.Chromium, field string, fn func(this, sender, args uintptr) uintptr) (orig uintptr, err error) {
	p, err := fieldPtr(c, field)
	if err != nil {
		return 0, err
	}
	obj := *(*unsafe.Pointer)(p)
	if obj == nil {
		return 0, fmt.Errorf("go-webview2 has not created its %s handler", field)
	}
	old := *(**[4]uintptr)(obj)
	vt := &[4]uintptr{old[0], old[1], old[2], syscall.NewCallback(fn)}
	keepVtbl(vt)
	*(**[4]uintptr)(obj) = vt
	return old[3], nil
}

var (
	vtblsMu sync.Mutex
	vtbls   []*[4]uintptr // replacement vtables, alive as long as the handlers using them
)

func keepVtbl(vt *[4]uintptr) {
	vtblsMu.Lock()
	vtbls = append(vtbls, vt)
	vtblsMu.Unlock()
}

// Interface ids (WebView2.idl).
var (
	iidCallDevToolsCompleted = windows.GUID{Data1: 0x5C4889F0, Data2: 0x5EF6, Data3: 0x4C5A, Data4: [8]byte{0x95, 0x2C, 0xD8, 0xF1, 0xB9, 0x2D, 0x05, 0x74}}
	iidAddScriptCompleted    = windows.GUID{Data1: 0xB99369F3, Data2: 0x9B11, Data3: 0x47B5, Data4: [8]byte{0xBC, 0x6F, 0x8E, 0x78, 0x95, 0xFC, 0xEA, 0x17}}
	iidNavigationStarting    = windows.GUID{Data1: 0x9ADBE429, Data2: 0xF36D, Data3: 0x432B, Data4: [8]byte{0x9D, 0xDC, 0xF8, 0x88, 0x1F, 0xBD, 0x76, 0xE3}}
	iidNewWindowRequested    = windows.GUID{Data1: 0xD4C185FE, Data2: 0xC81C, Data3: 0x4989, Data4: [8]byte{0x97, 0xAF, 0x2D, 0x3F, 0xA7, 0xAB, 0x56, 0x51}}
	iidCreateControllerDone  = windows.GUID{Data1: 0x6C4819F3, Data2: 0xC9B7, Data3: 0x4260, Data4: [8]byte{0x81, 0x27, 0xC9, 0xF5, 0xBD, 0xE7, 0xF6, 0x8C}}
	iidWindowCloseRequested  = windows.GUID{Data1: 0x5C19E9E0, Data2: 0x092F, Data3: 0x486B, Data4: [8]byte{0xAF, 0xFA, 0xCA, 0x82, 0x31, 0x91, 0x30, 0x39}}
	iidDocumentTitleChanged  = windows.GUID{Data1: 0xF5F2B923, Data2: 0x953E, Data3: 0x4042, Data4: [8]byte{0x9F, 0x95, 0xF3, 0xA1, 0x18, 0xE1, 0xAF, 0xD4}}
	iidPermissionRequested   = windows.GUID{Data1: 0x15E1C6A3, Data2: 0xC72A, Data3: 0x4DF3, Data4: [8]byte{0x91, 0xD7, 0xD0, 0x97, 0xFB, 0xEC, 0x6B, 0xFD}}
	iidContextMenuRequested  = windows.GUID{Data1: 0x04D3FE1D, Data2: 0xAB87, Data3: 0x42FB, Data4: [8]byte{0xA8, 0x98, 0xDA, 0x24, 0x1D, 0x35, 0xB6, 0x3C}}
	iidCustomItemSelected    = windows.GUID{Data1: 0x49E1D0BC, Data2: 0xFE9E, Data3: 0x4481, Data4: [8]byte{0xB7, 0xC2, 0x32, 0x32, 0x4A, 0xA2, 0x19, 0x98}}
	iidICoreWebView2_11      = windows.GUID{Data1: 0x0BE78E56, Data2: 0xC193, Data3: 0x4051, Data4: [8]byte{0xB9, 0x43, 0x23, 0xB4, 0x60, 0xC0, 0x8B, 0xDB}}
	iidICoreWebView2Environ9 = windows.GUID{Data1: 0xF06F41BF, Data2: 0x4B5A, Data3: 0x49D8, Data4: [8]byte{0xB9, 0xF6, 0xFA, 0x16, 0xCD, 0x29, 0xF2, 0x74}}
)

// Vtable slots of ICoreWebView2 (and ICoreWebView2_11 for the context menu).
const (
	wvGetSettings           = 3
	wvGetSource             = 4
	wvNavigate              = 5
	wvAddNavigationStarting = 7
	wvAddPermission         = 23
	wvAddScriptOnCreated    = 27
	wvReload                = 31
	wvCallDevToolsMethod    = 36
	wvAddNewWindow          = 44
	wvAddTitleChanged       = 46
	wvGetDocumentTitle      = 48
	wvAddWindowClose        = 59
	wv11AddContextMenuReqd  = 100
)

// eventToken receives an EventRegistrationToken (an int64).
type eventToken struct{ value int64 }
