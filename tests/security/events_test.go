package security

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// marker is message text a forged event carries; it must never show up in a log line.
const marker = "PRIVATE-MESSAGE-TEXT-7f3a"

// msgEvent wraps a message object (JSON) in a valid "message" envelope.
func msgEvent(message string) string {
	return `{"v":1,"type":"message","seq":1,"data":{"conversationId":"CONV","message":` + message + `}}`
}

const okMsg = `{"id":"m1","sender":"Ann","direction":"in","labelKind":"full","text":"` + marker + `"}`

// hugeFieldName names a forged event whose unknown field name is 490 KB: encoding/json's
// "unknown field" error quotes it whole, so DecodeEvent must clip its error text or a hostile
// page could flood the log (and put page content into it).
const hugeFieldName = "huge unknown field name"

// forgedEvents is a generated corpus of events that lie about types, sizes, nesting and text.
func forgedEvents() map[string]string {
	out := map[string]string{}
	// Types that lie: each field of a message given a value of the wrong JSON type.
	for _, f := range []struct{ field, val string }{
		{"id", "5"}, {"id", `["m1"]`}, {"sender", "{}"}, {"direction", "1"}, {"text", "true"},
		{"textTruncated", `"yes"`}, {"images", `{"src":"x"}`}, {"reactions", `"laugh"`}, {"status", `"SMS"`},
		{"quote", `"hi"`}, {"labelKind", "0"}, {"ownClanker", `"true"`}, {"otherClanker", "1"},
	} {
		out["message."+f.field+" is "+f.val] = msgEvent(strings.Replace(okMsg, `"labelKind":"full"`, `"labelKind":"full","`+f.field+`":`+f.val, 1))
	}
	out["envelope seq is a string"] = `{"v":1,"type":"banner_dismissed","seq":"1","data":{}}`
	out["envelope seq is a fraction"] = `{"v":1,"type":"banner_dismissed","seq":1.5,"data":{}}`
	out["envelope seq overflows"] = `{"v":1,"type":"banner_dismissed","seq":1e400,"data":{}}`
	out["envelope v is a string"] = `{"v":"1","type":"banner_dismissed","seq":1,"data":{}}`
	out["data is an array"] = `{"v":1,"type":"message","seq":1,"data":[` + okMsg + `]}`
	out["data is a string"] = `{"v":1,"type":"message","seq":1,"data":"` + marker + `"}`
	out["type is an object"] = `{"v":1,"type":{"x":1},"seq":1,"data":{}}`
	out["two values"] = msgEvent(okMsg) + msgEvent(okMsg)
	out["prototype pollution key"] = msgEvent(strings.Replace(okMsg, `{`, `{"__proto__":{"admin":true},`, 1))
	out["unknown field named like the key"] = msgEvent(strings.Replace(okMsg, `{`, `{"apiKey":"sk-x",`, 1))
	// Sizes that lie: over every limit, and over the whole event cap.
	out["text 4001 characters"] = msgEvent(strings.Replace(okMsg, marker, strings.Repeat("a", 4001), 1))
	out["text 4001 astral characters"] = msgEvent(strings.Replace(okMsg, marker, strings.Repeat("😀", 4001), 1))
	out["text 4001 escaped characters"] = msgEvent(strings.Replace(okMsg, marker, strings.Repeat(`\u00e9`, 4001), 1))
	out["id 201 characters"] = msgEvent(strings.Replace(okMsg, `"m1"`, `"`+strings.Repeat("i", 201)+`"`, 1))
	out["11 images"] = msgEvent(strings.Replace(okMsg, `{`, `{"images":[`+strings.TrimSuffix(strings.Repeat(`{"src":"blob:x"},`, 11), ",")+`],`, 1))
	out["2001 messages in a conversation"] = `{"v":1,"type":"conversation","seq":1,"data":{"conversationId":"C","messages":[` +
		strings.TrimSuffix(strings.Repeat(`{"id":"m","direction":"in","labelKind":"none"},`, 2001), ",") + `]}}`
	out["negative omitted count"] = `{"v":1,"type":"conversation","seq":1,"data":{"conversationId":"C","omitted":-1}}`
	out["image chunk index past total"] = `{"v":1,"type":"image_chunk","seq":1,"data":{"id":"c1","index":-5,"total":1,"data":""}}`
	out["over the event cap"] = msgEvent(strings.Replace(okMsg, marker, strings.Repeat(marker, page.MaxEventBytes/len(marker)+1), 1))
	// Nesting: far deeper than any real event, inside a field that wants a string.
	out["nested arrays 5000 deep"] = msgEvent(strings.Replace(okMsg, `"Ann"`, strings.Repeat("[", 5000)+strings.Repeat("]", 5000), 1))
	out["nested objects 20000 deep"] = msgEvent(strings.Replace(okMsg, `"Ann"`, strings.Repeat(`{"a":`, 20000)+"1"+strings.Repeat("}", 20000), 1))
	// Text that lies about its encoding or its enums.
	out["direction with a zero-width space"] = msgEvent(strings.Replace(okMsg, `"in"`, `"in\u200b"`, 1))
	out["direction in another case"] = msgEvent(strings.Replace(okMsg, `"in"`, `"IN"`, 1))
	out["direction with a NUL"] = msgEvent(strings.Replace(okMsg, `"in"`, `"in\u0000"`, 1))
	out["state with a homoglyph"] = `{"v":1,"type":"page_state","seq":1,"data":{"state":"cоnversation"}}`
	out[hugeFieldName] = msgEvent(strings.Replace(okMsg, `{`, `{"`+strings.Repeat("FORGED-", 70000)+`":1,`, 1))
	out["huge unknown type"] = `{"v":1,"type":"` + strings.Repeat("FORGED-", 70000) + `","seq":1,"data":{}}`
	out["huge bad enum"] = `{"v":1,"type":"page_state","seq":1,"data":{"state":"` + strings.Repeat("FORGED-", 70000) + `"}}`
	out["raw invalid UTF-8 in the type"] = "{\"v\":1,\"type\":\"mess\xffage\",\"seq\":1,\"data\":{}}"
	return out
}

// TestForgedAndOversizedEventsAreRejectedWithAShortError feeds every forged event to
// page.DecodeEvent: each must be refused with an error, and the error must stay short and free
// of the message text, since it is what gets logged.
func TestForgedAndOversizedEventsAreRejectedWithAShortError(t *testing.T) {
	if _, err := page.DecodeEvent([]byte(msgEvent(okMsg))); err != nil {
		t.Fatalf("the unforged event must decode, got %v", err)
	}
	evs := forgedEvents()
	if len(evs) < 40 {
		t.Fatalf("want at least 40 forged events, have %d", len(evs))
	}
	for name, raw := range evs {
		env, err := page.DecodeEvent([]byte(raw))
		if err == nil {
			t.Errorf("%s: accepted as %T, want an error", name, env.Event)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, marker) {
			t.Errorf("%s: the error echoes the message text: %.200s", name, msg)
		}
		if len(msg) > 600 {
			t.Errorf("%s: error of %d bytes echoes the event beyond a short clip: %.200s", name, len(msg), msg)
		}
	}
}

// TestAcceptedEventsCarryOnlyValidUnicode checks the events that are legal but odd: escaped lone
// surrogates and raw invalid bytes in text are accepted, but arrive as valid UTF-8 (replacement
// characters), so nothing downstream handles broken strings.
func TestAcceptedEventsCarryOnlyValidUnicode(t *testing.T) {
	for name, text := range map[string]string{
		"lone high surrogate":  `\ud800`,
		"lone low surrogate":   `x\udfffy`,
		"raw invalid bytes":    "bad \xff\xfe bytes",
		"overlong slash":       "\xc0\xaf",
		"right-to-left mark":   `\u202egnp.exe`,
		"4000 astral runes":    strings.Repeat("😀", 4000),
		"NUL and controls":     `a\u0000b\u001bc`,
		"line separators":      `\u2028\u2029`,
		"combining characters": strings.Repeat("e\u0301", 2000),
	} {
		env, err := page.DecodeEvent([]byte(msgEvent(strings.Replace(okMsg, marker, text, 1))))
		if err != nil {
			t.Errorf("%s: refused (%v), want it accepted", name, err)
			continue
		}
		got := env.Event.(page.NewMessage).Message.Text
		if !utf8.ValidString(got) {
			t.Errorf("%s: decoded text %q is not valid UTF-8", name, got)
		}
	}
}

// TestLinkDropsUnsealedEventsAndRefusesForgedOnesWithOneLogLine drives page.Link, the shell's
// entry point for page events: an event without this run's nonce (as a popup or a foreign script
// on the same origin would send) and every forged event with the nonce are dropped before the
// engine sees them, each with exactly one warning that never contains the message text.
func TestLinkDropsUnsealedEventsAndRefusesForgedOnesWithOneLogLine(t *testing.T) {
	var logs testkit.Buffer
	var mu sync.Mutex
	var got []engine.Event
	link, err := page.NewLink(page.LinkConfig{
		Exec:   func(string) error { return nil },
		Events: func(ev engine.Event) error { mu.Lock(); got = append(got, ev); mu.Unlock(); return nil },
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	nonce := link.Nonce()

	cases := map[string][]byte{
		"no nonce":         []byte(msgEvent(okMsg)),
		"wrong nonce":      []byte(strings.Repeat("0", len(nonce)) + msgEvent(okMsg)),
		"nonce prefix":     []byte(nonce[:len(nonce)-1] + msgEvent(okMsg)),
		"empty":            nil,
		"nonce after text": []byte(msgEvent(okMsg) + nonce),
	}
	for name, raw := range forgedEvents() {
		cases["sealed, "+name] = []byte(nonce + raw)
	}
	for name, raw := range cases {
		before := strings.Count(logs.String(), "\n")
		link.HandleRaw(raw)
		lines := strings.Split(strings.TrimSpace(logs.String()), "\n")[before:]
		if len(lines) != 1 || !strings.Contains(lines[0], "level=WARN") {
			t.Errorf("%s: want exactly one warning, got %d lines: %q", name, len(lines), lines)
			continue
		}
		if strings.Contains(lines[0], marker) {
			t.Errorf("%s: the log line carries the message text: %.300s", name, lines[0])
		}
		if len(lines[0]) > 1000 {
			t.Errorf("%s: the log line (%d bytes) carries event content: %.300s", name, len(lines[0]), lines[0])
		}
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(got) }
	if n := count(); n != 0 {
		t.Fatalf("want no event to reach the engine, got %d", n)
	}
	// A sealed, well-formed event does reach it: the drops above were not an accident of the
	// test.
	link.HandleRaw([]byte(nonce + `{"v":1,"type":"page_state","seq":1,"data":{"state":"conversation","conversationId":"CONV"}}`))
	if count() == 0 {
		t.Errorf("a sealed, valid page_state event did not reach the engine")
	}
}
