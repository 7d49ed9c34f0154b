package desktop

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"
)

// NativeInput delivers key presses that the page receives as trusted (event.isTrusted),
// as from a real keyboard. Google Messages ignores script-made key events and clicks, so
// the final Enter of a reply, and typing where it must look like typing, go through here.
//
// Keys go to whatever element has focus in the page; the caller focuses the compose box
// (through the bridge) first. Both methods wait until the platform has delivered the
// events to the web view, or ctx ends. They work while the window is hidden.
type NativeInput interface {
	// PressEnter presses and releases the Enter key.
	PressEnter(ctx context.Context) error
	// TypeText presses one key per character. A newline is sent as Shift+Enter (a line
	// break, not a send); carriage returns are skipped.
	TypeText(ctx context.Context, text string) error
}

// ErrNotReady is returned when input or reload is asked for before the window exists.
var ErrNotReady = errors.New("desktop: the main window is not ready yet")

// ErrUnsupported is returned by platforms without a native input implementation.
var ErrUnsupported = errors.New("desktop: native input is not implemented on this platform")

// MaxTypeText bounds one TypeText call; longer text is refused rather than cut.
const MaxTypeText = 8000

// checkTypeable refuses text that cannot be typed faithfully, so nothing is half-sent.
func checkTypeable(text string) error {
	if !utf8.ValidString(text) {
		return errors.New("desktop: text to type is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(text); n > MaxTypeText {
		return fmt.Errorf("desktop: text to type has %d characters, limit %d", n, MaxTypeText)
	}
	for i, r := range text {
		if r == 0 || (r < 0x20 && r != '\n' && r != '\t' && r != '\r') || r == 0x7f {
			return fmt.Errorf("desktop: text to type has control character U+%04X at byte %d", r, i)
		}
	}
	return nil
}
