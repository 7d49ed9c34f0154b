//go:build windows

package session

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"
)

// ToastNotifier shows Windows toast notifications through the Windows Runtime
// (Windows.UI.Notifications), as the app identified by AppUserModelID. It neither starts
// PowerShell nor registers a COM activator: a click on a toast brings nothing back to
// the app. The WinRT calls run on one thread of the notifier's own, which initialises
// the Windows Runtime for itself.
//
// Run under Wine (make test-windows): registering the id and initialising the Windows
// Runtime. Not run there: showing a toast, because Wine 8 has no WinRT XML or toast
// classes; the Windows workflow shows one on a real Windows runner.
type ToastNotifier struct {
	jobs chan toastJob
	done chan struct{}
	once sync.Once
}

type toastJob struct {
	xml    string
	result chan error
}

var (
	combase                   = windows.NewLazySystemDLL("combase.dll")
	procRoInitialize          = combase.NewProc("RoInitialize")
	procRoUninitialize        = combase.NewProc("RoUninitialize")
	procRoActivateInstance    = combase.NewProc("RoActivateInstance")
	procRoGetActivationFactor = combase.NewProc("RoGetActivationFactory")
	procWindowsCreateString   = combase.NewProc("WindowsCreateString")
	procWindowsDeleteString   = combase.NewProc("WindowsDeleteString")

	shell32                    = windows.NewLazySystemDLL("shell32.dll")
	procSetCurrentProcessAUMID = shell32.NewProc("SetCurrentProcessExplicitAppUserModelID")
)

// NewNotifier registers the app's id for toasts (see RegisterAppID) and starts the
// notifier's thread. appName is the name Windows shows on the toasts; icon is unused
// (Windows takes the icon from the Start-menu shortcut or the executable).
func NewNotifier(appName, icon string) (*ToastNotifier, error) {
	if err := RegisterAppID(appName); err != nil {
		return nil, err
	}
	t := &ToastNotifier{jobs: make(chan toastJob), done: make(chan struct{})}
	ready := make(chan error, 1)
	go t.run(ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	return t, nil
}

// RegisterAppID makes this process known to Windows as AppUserModelID: it sets the id
// on the process (which must happen before its first window appears, so the taskbar
// groups the windows with the Start-menu shortcut) and writes the id's registry entry
// under HKEY_CURRENT_USER, which lets the notification platform accept toasts from the
// portable .exe, which has no shortcut. Existing values are overwritten, so the entry
// always names the app as it is now.
func RegisterAppID(displayName string) error {
	id, _ := windows.UTF16PtrFromString(AppUserModelID)
	if err := procSetCurrentProcessAUMID.Find(); err != nil {
		return fmt.Errorf("notifications: this Windows cannot name the process (%w)", err)
	}
	if hr, _, _ := procSetCurrentProcessAUMID.Call(uintptr(unsafe.Pointer(id))); int32(uint32(hr)) < 0 {
		return fmt.Errorf("notifications: set the process's app id: HRESULT 0x%08X", uint32(hr))
	}
	k, _, err := registry.CreateKey(registry.CURRENT_USER, appIDKey, registry.SET_VALUE)
	if err != nil {
		return fmt.Errorf("notifications: create HKCU\\%s: %w", appIDKey, err)
	}
	defer k.Close()
	for name, value := range appIDValues(displayName) {
		if err := k.SetStringValue(name, value); err != nil {
			return fmt.Errorf("notifications: write %s under HKCU\\%s: %w", name, appIDKey, err)
		}
	}
	return nil
}

// run is the notifier's thread: it initialises the Windows Runtime (multithreaded) and
// shows the toasts it is given until Close.
func (t *ToastNotifier) run(ready chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const roInitMultithreaded = 1
	if err := procRoInitialize.Find(); err != nil {
		ready <- fmt.Errorf("notifications: no Windows Runtime on this Windows (%w)", err)
		return
	}
	if hr, _, _ := procRoInitialize.Call(roInitMultithreaded); int32(uint32(hr)) < 0 {
		ready <- fmt.Errorf("notifications: initialise the Windows Runtime: HRESULT 0x%08X", uint32(hr))
		return
	}
	defer procRoUninitialize.Call()
	ready <- nil
	for {
		select {
		case j := <-t.jobs:
			j.result <- showToast(j.xml)
		case <-t.done:
			return
		}
	}
}

// Notify shows n as a toast. It fails when Windows refuses the toast (notifications off
// for the app, no Windows Runtime); callers log that and carry on.
func (t *ToastNotifier) Notify(n Notification) error {
	j := toastJob{xml: toastXML(n), result: make(chan error, 1)}
	select {
	case t.jobs <- j:
	case <-t.done:
		return errors.New("notifications: the notifier is closed")
	}
	select {
	case err := <-j.result:
		return err
	case <-time.After(30 * time.Second):
		return errors.New("notifications: Windows did not answer within 30 s")
	}
}

// Withdraw does nothing on Windows yet: toasts are not tagged, so each stays in the
// Action Center until the user clears it, and a conversation's messages are not stacked.
func (t *ToastNotifier) Withdraw(key string) error { return nil }

// Close stops the notifier's thread.
func (t *ToastNotifier) Close() error {
	t.once.Do(func() { close(t.done) })
	return nil
}

// ---- Windows Runtime calls (vtable slots count IUnknown 0-2 and IInspectable 3-5) ----

type inspectable struct{ vtbl *[16]uintptr }

// call calls the method in vtable slot; like windows.LazyProc.Call, it keeps pointers
// converted to uintptr in args on the heap and alive for the call.
//
//go:uintptrescapes
func (o *inspectable) call(slot int, args ...uintptr) uintptr {
	a := append([]uintptr{uintptr(unsafe.Pointer(o))}, args...)
	r, _, _ := syscall.SyscallN(o.vtbl[slot], a...)
	return r
}

func (o *inspectable) release() { o.call(2) }

func (o *inspectable) query(iid *windows.GUID) (*inspectable, error) {
	var out *inspectable
	if err := hr("QueryInterface", o.call(0, uintptr(unsafe.Pointer(iid)), uintptr(unsafe.Pointer(&out)))); err != nil {
		return nil, err
	}
	return out, nil
}

var (
	iidIXmlDocument                     = windows.GUID{Data1: 0xF7F3A506, Data2: 0x1E87, Data3: 0x42D6, Data4: [8]byte{0xBC, 0xFB, 0xB8, 0xC8, 0x09, 0xFA, 0x54, 0x94}}
	iidIXmlDocumentIO                   = windows.GUID{Data1: 0x6CD0E74E, Data2: 0xEE65, Data3: 0x4489, Data4: [8]byte{0x9E, 0xBF, 0xCA, 0x43, 0xE8, 0x7B, 0xA6, 0x37}}
	iidIToastNotificationManagerStatics = windows.GUID{Data1: 0x50AC103F, Data2: 0xD235, Data3: 0x4598, Data4: [8]byte{0xBB, 0xEF, 0x98, 0xFE, 0x4D, 0x1A, 0x3A, 0xD4}}
	iidIToastNotificationFactory        = windows.GUID{Data1: 0x04124B20, Data2: 0x82C6, Data3: 0x4229, Data4: [8]byte{0xB1, 0x09, 0xFD, 0x9E, 0xD4, 0x66, 0x2B, 0x53}}
)

func hr(what string, r uintptr) error {
	if int32(uint32(r)) < 0 {
		return fmt.Errorf("%s: HRESULT 0x%08X", what, uint32(r))
	}
	return nil
}

// hstring makes a Windows Runtime string; free it with deleteHString.
func hstring(s string) (uintptr, error) {
	u, err := windows.UTF16FromString(s)
	if err != nil {
		return 0, err
	}
	var h uintptr
	r, _, _ := procWindowsCreateString.Call(uintptr(unsafe.Pointer(&u[0])), uintptr(len(u)-1), uintptr(unsafe.Pointer(&h)))
	return h, hr("WindowsCreateString", r)
}

func deleteHString(h uintptr) { procWindowsDeleteString.Call(h) }

func activationFactory(class string, iid *windows.GUID) (*inspectable, error) {
	h, err := hstring(class)
	if err != nil {
		return nil, err
	}
	defer deleteHString(h)
	var f *inspectable
	r, _, _ := procRoGetActivationFactor.Call(h, uintptr(unsafe.Pointer(iid)), uintptr(unsafe.Pointer(&f)))
	return f, hr("RoGetActivationFactory "+class, r)
}

// showToast loads xml into a Windows.Data.Xml.Dom.XmlDocument, makes a ToastNotification
// of it and shows it with the toast notifier of AppUserModelID.
func showToast(xml string) error {
	cls, err := hstring("Windows.Data.Xml.Dom.XmlDocument")
	if err != nil {
		return err
	}
	var obj *inspectable
	r, _, _ := procRoActivateInstance.Call(cls, uintptr(unsafe.Pointer(&obj)))
	deleteHString(cls)
	if err := hr("notifications: create an XmlDocument", r); err != nil {
		return err
	}
	defer obj.release()
	docIO, err := obj.query(&iidIXmlDocumentIO)
	if err != nil {
		return err
	}
	defer docIO.release()
	content, err := hstring(xml)
	if err != nil {
		return err
	}
	err = hr("notifications: load the toast XML", docIO.call(6, content)) // IXmlDocumentIO.LoadXml
	deleteHString(content)
	if err != nil {
		return err
	}
	doc, err := obj.query(&iidIXmlDocument)
	if err != nil {
		return err
	}
	defer doc.release()

	manager, err := activationFactory("Windows.UI.Notifications.ToastNotificationManager", &iidIToastNotificationManagerStatics)
	if err != nil {
		return err
	}
	defer manager.release()
	id, err := hstring(AppUserModelID)
	if err != nil {
		return err
	}
	var notifier *inspectable
	err = hr("notifications: the toast notifier of "+AppUserModelID, manager.call(7, id, uintptr(unsafe.Pointer(&notifier)))) // CreateToastNotifierWithId
	deleteHString(id)
	if err != nil {
		return err
	}
	defer notifier.release()

	factory, err := activationFactory("Windows.UI.Notifications.ToastNotification", &iidIToastNotificationFactory)
	if err != nil {
		return err
	}
	defer factory.release()
	var toast *inspectable
	if err := hr("notifications: make the toast", factory.call(6, uintptr(unsafe.Pointer(doc)), uintptr(unsafe.Pointer(&toast)))); err != nil { // CreateToastNotification
		return err
	}
	defer toast.release()
	return hr("notifications: show the toast", notifier.call(6, uintptr(unsafe.Pointer(toast)))) // IToastNotifier.Show
}
