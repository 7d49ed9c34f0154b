package native

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestEnterIsAKeyDownWithCarriageReturnThenAKeyUp(t *testing.T) {
	got := keyPressCalls(keyEnter)
	want := []cdpCall{
		{"Input.dispatchKeyEvent", `{"type":"keyDown","key":"Enter","code":"Enter","windowsVirtualKeyCode":13,"nativeVirtualKeyCode":13,"text":"\r","unmodifiedText":"\r"}`},
		{"Input.dispatchKeyEvent", `{"type":"keyUp","key":"Enter","code":"Enter","windowsVirtualKeyCode":13,"nativeVirtualKeyCode":13}`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Enter calls:\n got %q\nwant %q", got, want)
	}
}

func TestAKeyWithoutTextGoesDownRaw(t *testing.T) {
	tab := keyDef{key: "Tab", code: "Tab", vk: 0x09}
	got := keyPressCalls(tab)
	if len(got) != 2 {
		t.Fatalf("want down and up, got %q", got)
	}
	var down map[string]any
	if err := json.Unmarshal([]byte(got[0].Params), &down); err != nil {
		t.Fatal(err)
	}
	if down["type"] != "rawKeyDown" {
		t.Errorf("a key that types nothing must go down as rawKeyDown (keydown only), got %v", down["type"])
	}
	if _, has := down["text"]; has {
		t.Errorf("a key that types nothing must carry no text, got %v", down)
	}
}

func TestPressIsWrappedInFocusEmulationSwitchedOnThenOff(t *testing.T) {
	got := pressKeyCalls(keyEnter)
	if len(got) != 4 {
		t.Fatalf("want 4 calls, got %q", got)
	}
	on, off := got[0], got[3]
	if on.Method != "Emulation.setFocusEmulationEnabled" || on.Params != `{"enabled":true}` {
		t.Errorf("first call = %q; want focus emulation switched on", on)
	}
	if off.Method != "Emulation.setFocusEmulationEnabled" || off.Params != `{"enabled":false}` {
		t.Errorf("last call = %q; want focus emulation switched off again", off)
	}
	if !reflect.DeepEqual(got[1:3], keyPressCalls(keyEnter)) {
		t.Errorf("middle calls = %q; want the key press itself", got[1:3])
	}
}
