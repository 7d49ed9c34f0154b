//go:build windows

package native

// NOT TESTED: this file compiles (GOOS=windows go vet) but has never run. Wails does not
// expose its WebView2 controller, so this minimal version has no document-start script
// (the DOM-ready fallback injects the bridge), no user agent change, no popup handling
// and no crash reload. Native input uses SendInput, which reaches the page only while
// the window is in the foreground: hidden-window input needs WebView2's
// ICoreWebView2Controller (MoveFocus plus DevTools Input.dispatchKeyEvent), which is the
// next step once Wails exposes the controller or the shell creates its own.

import (
	"context"
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	user32    = windows.NewLazySystemDLL("user32.dll")
	sendInput = user32.NewProc("SendInput")
)

type windowsPlatform struct{}

// NewView returns the Windows view.
func NewView() View { return windowsPlatform{} }

func (windowsPlatform) Setup(context.Context, Config) error {
	return errors.New("document-start injection is not implemented on Windows; using the DOM-ready fallback")
}

func (windowsPlatform) Reload(context.Context) error { return ErrUnsupported }

func (windowsPlatform) Input() Input { return sendInputKeys{} }

// sendInputKeys presses keys through the Win32 SendInput API (keyboard input of the foreground window).
type sendInputKeys struct{}

const (
	inputKeyboard  = 1
	keyeventfKeyUp = 0x0002
	vkReturn       = 0x0D
)

// keybdInput mirrors the Win32 INPUT structure with its KEYBDINPUT member (64-bit layout).
type keybdInput struct {
	typ     uint32
	_       uint32
	vk      uint16
	scan    uint16
	flags   uint32
	time    uint32
	_       uint32
	extra   uintptr
	padding [8]byte
}

func (sendInputKeys) send(in []keybdInput) error {
	if len(in) == 0 {
		return nil
	}
	n, _, err := sendInput.Call(uintptr(len(in)), uintptr(unsafe.Pointer(&in[0])), unsafe.Sizeof(in[0]))
	if int(n) != len(in) {
		return fmt.Errorf("desktop: SendInput delivered %d of %d events: %v", n, len(in), err)
	}
	return nil
}

func (k sendInputKeys) PressEnter(ctx context.Context) error {
	return k.send([]keybdInput{
		{typ: inputKeyboard, vk: vkReturn},
		{typ: inputKeyboard, vk: vkReturn, flags: keyeventfKeyUp},
	})
}
