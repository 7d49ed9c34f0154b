package page

import (
	"errors"
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/app/engine"
)

const goodMessage = `{"v":1,"type":"message","seq":7,"data":{"conversationId":"CONV_A","message":{"id":"MxJQ=x","sender":"Jane Doe","direction":"in","text":"Anyone up for tacos?","textTruncated":false,"images":[{"src":"blob:https://messages.google.com/6f1c","alt":"a taco"}],"reactions":[{"reaction":"laugh","by":["You","Bob"]}],"status":["SMS"],"quote":{"sender":"Bob","text":"hungry?"},"timestamp":"February 3, 2026 at 6:41 PM","labelKind":"full","ownClanker":false,"otherClanker":false,"unsupported":false}}}`

func TestDecodeEventReturnsTypedMessage(t *testing.T) {
	env, err := DecodeEvent([]byte(goodMessage))
	if err != nil {
		t.Fatalf("DecodeEvent(good message) error: %v", err)
	}
	m, ok := env.Event.(NewMessage)
	if !ok {
		t.Fatalf("event is %T, want NewMessage", env.Event)
	}
	if env.Seq != 7 || m.ConversationID != "CONV_A" || m.Message.Text != "Anyone up for tacos?" ||
		m.Message.Quote == nil || m.Message.Quote.Text != "hungry?" || len(m.Message.Reactions[0].By) != 2 {
		t.Fatalf("decoded %+v (seq %d), fields lost", m, env.Seq)
	}
}

func TestDecodeEventRejectsBadInputWithAClearError(t *testing.T) {
	long := strings.Repeat("x", MaxTextLen+1)
	cases := []struct {
		name, in, want string
	}{
		{"not json", `{"v":1,`, "envelope"},
		{"trailing data", `{"v":1,"type":"banner_dismissed","seq":1,"data":{}} {}`, "trailing"},
		{"wrong version", `{"v":2,"type":"banner_dismissed","seq":1,"data":{}}`, "protocol version 2"},
		{"unknown type", `{"v":1,"type":"exec_this","seq":1,"data":{}}`, `unknown type "exec_this"`},
		{"unknown envelope field", `{"v":1,"type":"banner_dismissed","seq":1,"data":{},"x":1}`, "unknown field"},
		{"unknown data field", `{"v":1,"type":"banner_dismissed","seq":1,"data":{"apiKey":"k"}}`, "unknown field"},
		{"missing data", `{"v":1,"type":"page_state","seq":1}`, "missing data"},
		{"zero seq", `{"v":1,"type":"banner_dismissed","seq":0,"data":{}}`, "sequence number"},
		{"bad enum", `{"v":1,"type":"page_state","seq":1,"data":{"state":"hacked"}}`, `state: "hacked" is not one of`},
		{"required empty", `{"v":1,"type":"message_id","seq":1,"data":{"conversationId":"A","oldId":"","newId":"b"}}`, "oldId: required"},
		{"text too long", `{"v":1,"type":"message","seq":1,"data":{"conversationId":"A","message":{"id":"x","direction":"in","labelKind":"full","text":"` + long + `"}}}`, "message.text: 4001 characters, limit 4000"},
		{"too many images", `{"v":1,"type":"message","seq":1,"data":{"conversationId":"A","message":{"id":"x","direction":"in","labelKind":"full","images":[` + strings.TrimSuffix(strings.Repeat(`{"src":"s"},`, 11), ",") + `]}}}`, "message.images: 11 items, limit 10"},
		{"wrong type", `{"v":1,"type":"compose","seq":1,"data":{"kind":"textarea","present":"yes"}}`, "cannot unmarshal"},
		{"negative int", `{"v":1,"type":"image_chunk","seq":1,"data":{"id":"c1","index":-1,"total":1,"data":""}}`, "index: -1 is below 0"},
	}
	for _, c := range cases {
		_, err := DecodeEvent([]byte(c.in))
		if err == nil {
			t.Errorf("%s: DecodeEvent accepted %q, want an error containing %q", c.name, engine.Clip(c.in, maxQuoted), c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not contain %q", c.name, err, c.want)
		}
	}
}

func TestDecodeEventRefusesOversizedInputBeforeParsing(t *testing.T) {
	big := make([]byte, MaxEventBytes+1)
	for i := range big {
		big[i] = '{' // not even JSON: the size check must come first
	}
	_, err := DecodeEvent(big)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("DecodeEvent(%d bytes) error = %v, want ErrTooLarge", len(big), err)
	}
}

func FuzzDecodeEvent(f *testing.F) {
	for _, s := range []string{
		goodMessage,
		`{"v":1,"type":"hello","seq":1,"data":{"bridge":"clanker-bridge/1","transport":"test","url":"https://messages.google.com/web","readyState":"loading","selectorsChecked":"2026-02-15"}}`,
		`{"v":1,"type":"conversation","seq":2,"data":{"conversationId":"A","headerNames":["Mom"],"participants":["Mom"],"automated":[],"messages":[],"omitted":0}}`,
		`{"v":1,"type":"sidebar","seq":3,"data":{"full":true,"items":[{"id":"A","name":"72975","snippet":"You: hi","outgoing":true,"automated":true}],"removed":[]}}`,
		`{"v":1,"type":"result","seq":4,"data":{"id":"c1","command":"insert_text","ok":false,"code":"user_typing","error":"x","data":null}}`,
		`{"v":1,"type":"image_chunk","seq":5,"data":{"id":"c2","index":0,"total":1,"data":"AAEC"}}`,
		`{"v":1,"type":"message","seq":1,"data":{"conversationId":"A","message":{"id":"x","direction":"in","labelKind":"full","text":"\u2028</script>\u0000"}}}`,
		`{"v":1,"type":"page_state","seq":1,"data":null}`,
		`[]`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		env, err := DecodeEvent(raw)
		if err != nil {
			return
		}
		if env.Event == nil || env.Event.EventType() != env.Type {
			t.Fatalf("accepted event with type %q but Event %T", env.Type, env.Event)
		}
		if len(raw) > MaxEventBytes {
			t.Fatalf("accepted %d bytes, over the cap", len(raw))
		}
	})
}
