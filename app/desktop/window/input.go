package window

import "github.com/clanker-desktop/clanker/app/desktop/internal/native"

// NativeInput delivers key presses that the page receives as trusted (event.isTrusted),
// as from a real keyboard: the final Enter of a reply (the bridge inserts the text).
// Keys go to the focused element of the page, while the window is hidden too. Each
// platform implements it in app/desktop/internal/native (see native.Input for the full
// contract).
type NativeInput = native.Input

// ErrNotReady is returned when input or reload is asked for before the window exists.
var ErrNotReady = native.ErrNotReady

// ErrUnsupported is returned by platforms without a native input implementation.
var ErrUnsupported = native.ErrUnsupported
