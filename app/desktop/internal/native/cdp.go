package native

import "encoding/json"

// The Windows view types through the Chrome DevTools Protocol (CDP), which WebView2
// exposes to its host as ICoreWebView2::CallDevToolsProtocolMethod. CDP input events
// enter Chromium below the page, exactly where the keyboard's do, so the page sees
// isTrusted events; and they are addressed to this web view, never to whatever window
// has the keyboard focus, so they work while the window is hidden or behind another
// program. This file builds the calls; it has no Windows code, so its tests run
// everywhere (and against a real Chromium, see cdp_chromium_test.go).

// cdpCall is one CDP method call: the method's name and its parameters as JSON, the two
// strings CallDevToolsProtocolMethod takes.
type cdpCall struct {
	Method string
	Params string
}

// keyDef describes one key as the page sees it in a KeyboardEvent.
type keyDef struct {
	// key and code are KeyboardEvent.key and KeyboardEvent.code.
	key, code string
	// vk is the Windows virtual-key code (KeyboardEvent.keyCode in Chromium).
	vk int
	// text is what the key types ("" for keys that type nothing).
	text string
}

// keyEnter is the Return key of the main keyboard block. Its text is a carriage return,
// as on a real keyboard: Chromium then also fires keypress, and the page's own Enter
// handler decides what happens (Messages sends; a textarea would insert a line break).
var keyEnter = keyDef{key: "Enter", code: "Enter", vk: 0x0D, text: "\r"}

// dispatchKeyEvent is the parameter object of CDP Input.dispatchKeyEvent, with the
// fields this app sets.
type dispatchKeyEvent struct {
	Type                  string `json:"type"`
	Key                   string `json:"key"`
	Code                  string `json:"code"`
	WindowsVirtualKeyCode int    `json:"windowsVirtualKeyCode"`
	NativeVirtualKeyCode  int    `json:"nativeVirtualKeyCode"`
	Text                  string `json:"text,omitempty"`
	UnmodifiedText        string `json:"unmodifiedText,omitempty"`
}

// keyPressCalls are the CDP calls of one press and release of k. A key that types text
// goes down as "keyDown" with the text (Chromium then fires keydown and keypress); a key
// that types nothing goes down as "rawKeyDown" (keydown only), as Chromium's own input
// does.
func keyPressCalls(k keyDef) []cdpCall {
	down := dispatchKeyEvent{Type: "rawKeyDown", Key: k.key, Code: k.code,
		WindowsVirtualKeyCode: k.vk, NativeVirtualKeyCode: k.vk}
	if k.text != "" {
		down.Type = "keyDown"
		down.Text = k.text
		down.UnmodifiedText = k.text
	}
	up := dispatchKeyEvent{Type: "keyUp", Key: k.key, Code: k.code,
		WindowsVirtualKeyCode: k.vk, NativeVirtualKeyCode: k.vk}
	return []cdpCall{mustCall("Input.dispatchKeyEvent", down), mustCall("Input.dispatchKeyEvent", up)}
}

// focusEmulationCall turns CDP focus emulation on or off. While it is on, the page
// behaves as focused (document.hasFocus() is true and the focused element keeps its
// editing focus) even when the window is hidden in the tray or another program is in
// front. It is switched on only around a key press, so the page does not believe it
// is being looked at (and mark messages read) the rest of the time.
func focusEmulationCall(on bool) cdpCall {
	return mustCall("Emulation.setFocusEmulationEnabled", struct {
		Enabled bool `json:"enabled"`
	}{on})
}

// pressKeyCalls is the whole sequence for one trusted key press into the page's focused
// element: focus emulation on, the key down and up, focus emulation off.
func pressKeyCalls(k keyDef) []cdpCall {
	calls := []cdpCall{focusEmulationCall(true)}
	calls = append(calls, keyPressCalls(k)...)
	return append(calls, focusEmulationCall(false))
}

// mustCall encodes params; the parameter types above always encode.
func mustCall(method string, params any) cdpCall {
	b, err := json.Marshal(params)
	if err != nil {
		panic("native: CDP parameters must encode: " + err.Error())
	}
	return cdpCall{Method: method, Params: string(b)}
}
