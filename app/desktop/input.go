package desktop

import (
	"context"
	"errors"
)

// NativeInput delivers key presses that the page receives as trusted (event.isTrusted),
// as from a real keyboard. Google Messages ignores script-made key events and clicks, so
// the final Enter of a reply goes through here; the text itself is inserted by the bridge.
//
// Keys go to whatever element has focus in the page; the caller focuses the compose box
// (through the bridge) first. PressEnter waits until the platform has delivered the
// events to the web view, or ctx ends. It works while the window is hidden.
type NativeInput interface {
	// PressEnter presses and releases the Enter key.
	PressEnter(ctx context.Context) error
}

// ErrNotReady is returned when input or reload is asked for before the window exists.
var ErrNotReady = errors.New("desktop: the main window is not ready yet")

// ErrUnsupported is returned by platforms without a native input implementation.
var ErrUnsupported = errors.New("desktop: native input is not implemented on this platform")
