package window

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// loadTrayIcon loads b the way fyne's systray does on Windows: written to a file, then
// LoadImage(IMAGE_ICON, LR_LOADFROMFILE|LR_DEFAULTSIZE). It reports whether an icon
// handle came back.
func loadTrayIcon(t *testing.T, dir, name string, b []byte) bool {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		t.Fatal(err)
	}
	const imageIcon, lrLoadFromFile, lrDefaultSize = 1, 0x10, 0x40
	load := windows.NewLazySystemDLL("user32.dll").NewProc("LoadImageW")
	destroy := windows.NewLazySystemDLL("user32.dll").NewProc("DestroyIcon")
	h, _, _ := load.Call(0, uintptr(unsafe.Pointer(p)), imageIcon, 0, 0, lrLoadFromFile|lrDefaultSize)
	if h == 0 {
		return false
	}
	destroy.Call(h)
	return true
}

// The icon the tray hands to systray on Windows loads as an icon, in every state; the
// PNG it used to hand over does not, which is why no icon showed.
func TestWindowsLoadsTheTrayIconAsAnIcon(t *testing.T) {
	// Not t.TempDir: under Wine its clean-up fails (os.RemoveAll: "Invalid function").
	dir, err := os.MkdirTemp("", "clanker-tray-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for _, on := range []bool{false, true} {
		for _, badge := range []int{0, 5, 12} {
			if !loadTrayIcon(t, dir, "icon.ico", trayIcon(on, badge, trayWantsICO)) {
				t.Errorf("on=%v badge=%d: LoadImage(IMAGE_ICON) refused the tray icon", on, badge)
			}
		}
	}
	if loadTrayIcon(t, dir, "icon.png", trayIcon(true, 0, false)) {
		t.Error("LoadImage(IMAGE_ICON) loaded PNG bytes; this test could not tell an ICO from a PNG")
	}
}
