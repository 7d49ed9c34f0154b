package macos

// The NSEvent types of key events (NSEventTypeKeyDown, NSEventTypeKeyUp).
const (
	KeyDown = 10
	KeyUp   = 11
)

// Key is one key of a Mac keyboard: its virtual key code (the kVK_ constants of Carbon's
// HIToolbox/Events.h, which NSEvent.keyCode reports) and the characters it types.
type Key struct {
	Name  string
	Code  uint16
	Chars string
}

// Return is the main keyboard's Return key (kVK_Return, 0x24). AppKit reports "\r" as
// its characters, and WebKit turns that into a keydown whose key is "Enter": the key
// that sends a message in Google Messages. It is the only key the shell presses: the
// text of a reply is inserted by the bridge (document.execCommand("insertText"), whose
// input events WebKit marks trusted), so no map from characters to key codes is needed.
var Return = Key{Name: "Return", Code: 0x24, Chars: "\r"}

// KeyEvent is everything +[NSEvent keyEventWithType:...] needs apart from the window,
// the location and the time, which the Objective-C side fills in.
type KeyEvent struct {
	Type                        int
	KeyCode                     uint16
	Modifiers                   uint64 // NSEventModifierFlags; none for the keys pressed here
	Characters                  string
	CharactersIgnoringModifiers string
}

// Press is one press of k: a key-down and a key-up, in that order, as a keyboard sends
// them.
func Press(k Key) []KeyEvent {
	down := KeyEvent{Type: KeyDown, KeyCode: k.Code, Characters: k.Chars, CharactersIgnoringModifiers: k.Chars}
	up := down
	up.Type = KeyUp
	return []KeyEvent{down, up}
}
