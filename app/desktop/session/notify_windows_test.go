//go:build windows

package session

import (
	"testing"
	"unsafe"

	"github.com/clanker-desktop/clanker/tests/testkit"
	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"
)

// Run under Wine by make test-windows.
func TestNewNotifierRegistersTheAppIDAndStartsTheWindowsRuntime(t *testing.T) {
	n, err := NewNotifier("Clanker", "")
	if err != nil {
		t.Fatalf("NewNotifier: %v", err)
	}
	defer n.Close()
	k, err := registry.OpenKey(registry.CURRENT_USER, appIDKey, registry.QUERY_VALUE)
	if err != nil {
		t.Fatalf("no HKCU\\%s: %v", appIDKey, err)
	}
	defer k.Close()
	for name, want := range appIDValues("Clanker") {
		if got, _, err := k.GetStringValue(name); err != nil || got != want {
			t.Errorf("%s = %q (%v); want %q", name, got, err, want)
		}
	}
	// The process carries the id. Wine 8 accepts the id but cannot hand it back
	// (E_NOTIMPL); real Windows can.
	get := shell32.NewProc("GetCurrentProcessExplicitAppUserModelID")
	var id *uint16
	r, _, _ := get.Call(uintptr(unsafe.Pointer(&id)))
	const eNotImpl = 0x80004001
	switch {
	case uint32(r) == eNotImpl:
		t.Log("this system cannot report the process's app id back (Wine)")
	case int32(uint32(r)) < 0:
		t.Errorf("GetCurrentProcessExplicitAppUserModelID: HRESULT 0x%08X", uint32(r))
	default:
		got := windows.UTF16PtrToString(id)
		windows.CoTaskMemFree(unsafe.Pointer(id))
		if got != AppUserModelID {
			t.Errorf("the process's app id is %q; want %q", got, AppUserModelID)
		}
	}
}

// Run on real Windows (the Windows workflow).
func TestToastIsAcceptedByWindows(t *testing.T) {
	if testkit.UnderWine() {
		t.Skip("Wine 8 has no Windows Runtime XML or toast classes (Windows.Data.Xml.Dom.XmlDocument is not registered: REGDB_E_CLASSNOTREG)")
	}
	n, err := NewNotifier("Clanker", "")
	if err != nil {
		t.Fatalf("NewNotifier: %v", err)
	}
	defer n.Close()
	if err := n.Notify(Notification{Summary: "Clanker test", Body: "A toast from the test suite <&>."}); err != nil {
		t.Fatalf("Notify: %v", err)
	}
}
