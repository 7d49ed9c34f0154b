package page

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestEncodeCommandKeepsAnyTextInsideOneStringLiteral(t *testing.T) {
	text := "quote\" back\\slash </script><script>alert(1)</script> \u2028\u2029 nul\x00 emoji 😀 `${x}` '\n\r\t"
	js, err := EncodeCommand("c1", InsertText{ConversationID: "A", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"</script", "\u2028", "\u2029", "\x00", "\n"} {
		if strings.Contains(js, bad) {
			t.Errorf("encoded JS contains raw %q: %s", bad, js)
		}
	}
	// The argument is one JSON string literal whose content is the command JSON.
	if !strings.HasPrefix(js, commandPrefix) {
		t.Fatalf("script %q does not start with the bridge call", js)
	}
	start := len(commandPrefix)
	end := strings.LastIndex(js, ");")
	var inner string
	if err := json.Unmarshal([]byte(js[start:end]), &inner); err != nil {
		t.Fatalf("argument %q is not one string literal: %v", js[start:end], err)
	}
	var cmd struct {
		V    int
		ID   string
		Type string
		Args InsertText
	}
	if err := json.Unmarshal([]byte(inner), &cmd); err != nil {
		t.Fatal(err)
	}
	if cmd.Args.Text != text || cmd.Type != "insert_text" || cmd.V != ProtocolVersion || cmd.ID != "c1" {
		t.Fatalf("round trip gave %+v, want text %q", cmd, text)
	}
}

func TestEncodeCommandRejectsInvalidCommands(t *testing.T) {
	cases := []struct {
		id   string
		args CommandArgs
		want string
	}{
		{"bad id!", Snapshot{}, "id"},
		{"", Snapshot{}, "id"},
		{"c1", InsertText{ConversationID: "A"}, "text: required"},
		{"c1", InsertText{ConversationID: "A", Text: strings.Repeat("é", 4001)}, "4001 characters"},
		{"c1", ShowToast{Text: "hi", Level: "shout"}, "level"},
		{"c1", FetchImage{Src: "blob:x", MaxBytes: MaxImageBytes + 1}, "maxBytes"},
		{"c1", nil, "no arguments"},
	}
	for _, c := range cases {
		_, err := EncodeCommand(c.id, c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("EncodeCommand(%q, %#v) error = %v, want one mentioning %q", c.id, c.args, err, c.want)
		}
	}
}
