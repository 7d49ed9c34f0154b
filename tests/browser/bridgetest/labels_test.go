package bridgetest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	protocol "github.com/clanker-desktop/clanker/app/page"
)

// TestLabelGrammarCases appends one row per label form the real page is known to use (and
// some unusual ones it may produce) and checks what the bridge reads from each. Every row must be reported:
// an unusual label may lose detail, never the message.
func TestLabelGrammarCases(t *testing.T) {
	type want struct {
		sender, dir, text, ts, kind string
		status                      string // comma-joined
		reactions                   string // "kind:by1+by2;..."
		own, other                  bool
	}
	cases := []struct {
		label, visible string
		want           want
	}{
		{"You said: Hello. Sent on January 1, 2026 at 12:00 PM. SMS.", "Hello",
			want{"You", "out", "Hello", "January 1, 2026 at 12:00 PM", "full", "SMS", "", false, false}},
		{"You said: [clanker] Sure, tacos sound great. Sent on February 3, 2026 at 6:42 PM. Read. Jane Doe reacted with laugh.", "[clanker] Sure, tacos sound great",
			want{"You", "out", "[clanker] Sure, tacos sound great", "February 3, 2026 at 6:42 PM", "full", "Read", "laugh:Jane Doe", true, false}},
		{"Bob said: [clanker] Bob's bot here. Received on February 3, 2026 at 6:43 PM.", "[clanker] Bob's bot here",
			want{"Bob", "in", "[clanker] Bob's bot here", "February 3, 2026 at 6:43 PM", "full", "", "", false, true}},
		{"(555) 555-7334 said: hi clank. Received on Feb 3, 2026 at 6:43 PM.", "hi clank",
			want{"(555) 555-7334", "in", "hi clank", "Feb 3, 2026 at 6:43 PM", "full", "", "", false, false}},
		{"Jane Doe said: Laughed at \"tacos\". Received on February 3, 2026 at 6:44 PM. You and (555) 555-7334 reacted with laugh. Mom reacted with love.", "Laughed at \"tacos\"",
			want{"Jane Doe", "in", "Laughed at \"tacos\"", "February 3, 2026 at 6:44 PM", "full", "", "laugh:You+(555) 555-7334;love:Mom", false, false}},
		{"Jane Doe said: I agree.. Received on February 3, 2026 at 6:45 PM.", "I agree.",
			want{"Jane Doe", "in", "I agree.", "February 3, 2026 at 6:45 PM", "full", "", "", false, false}},
		{"Jane Doe said: line one\nline two. Received on February 3, 2026 at 6:46 PM. Delivered.", "line one\nline two",
			want{"Jane Doe", "in", "line one\nline two", "February 3, 2026 at 6:46 PM", "full", "Delivered", "", false, false}},
		{"Jane Doe said: I said: quote this. Received on February 3, 2026 at 6:47 PM.", "I said: quote this",
			want{"Jane Doe", "in", "I said: quote this", "February 3, 2026 at 6:47 PM", "full", "", "", false, false}},
		{"Mom said: see you. Received at 2:56 PM.", "see you",
			want{"Mom", "in", "see you", "at 2:56 PM", "time_only", "", "", false, false}},
		{"Received at 2:56 PM.", "no sender here",
			want{"", "in", "no sender here", "at 2:56 PM", "partial", "", "", false, false}},
		{"Dad said: no timestamp at all", "no timestamp at all",
			want{"Dad", "unknown", "no timestamp at all", "", "partial", "", "", false, false}},
		{"", "label never came",
			want{"", "unknown", "label never came", "", "none", "", "", false, false}},
		// Reaction grammar: names with periods, three or more reactors, an
		// Oxford comma, a single reactor whose name has a comma, emoji kinds, statuses.
		{"Jane Doe said: one. Received on February 3, 2026 at 6:48 PM. Read. Dr. Alice Chen reacted with love.", "one",
			want{"Jane Doe", "in", "one", "February 3, 2026 at 6:48 PM", "full", "Read", "love:Dr. Alice Chen", false, false}},
		{"Jane Doe said: two. Received on February 3, 2026 at 6:49 PM. Ann, Bob and Cy reacted with laugh. You, Dr. Who, and J. R. Smith reacted with wow.", "two",
			want{"Jane Doe", "in", "two", "February 3, 2026 at 6:49 PM", "full", "", "laugh:Ann+Bob+Cy;wow:You+Dr. Who+J. R. Smith", false, false}},
		{"You said: three. Sent on February 3, 2026 at 6:50 PM. SMS. Delivered. Acme, Inc. reacted with like. Mom reacted with 👍.", "three",
			want{"You", "out", "three", "February 3, 2026 at 6:50 PM", "full", "SMS,Delivered", "like:Acme, Inc.;👍:Mom", false, false}},
		{"Doe, Jane said: from a comma name. Received on February 3, 2026 at 6:51 PM.", "from a comma name",
			want{"Doe, Jane", "in", "from a comma name", "February 3, 2026 at 6:51 PM", "full", "", "", false, false}},
		{"Bob said: four. Received on February 3, 2026 at 6:52 PM. Doe, Jane and Mr. Bob Jr. reacted with love. Mrs. Smith and You reacted with laugh.", "four",
			want{"Bob", "in", "four", "February 3, 2026 at 6:52 PM", "full", "", "love:Doe, Jane+Mr. Bob Jr.;laugh:Mrs. Smith+You", false, false}},
		{"Jane Doe said: five. Received on February 3, 2026 at 6:54 PM. Read. Ann and 2 others reacted with wow.", "five",
			want{"Jane Doe", "in", "five", "February 3, 2026 at 6:54 PM", "full", "Read", "wow:Ann", false, false}},
		{"Dr. Alice Chen said: hello. Received on February 3, 2026 at 6:53 PM. St. John and Dr. Alice Chen reacted with love.", "hello",
			want{"Dr. Alice Chen", "in", "hello", "February 3, 2026 at 6:53 PM", "full", "", "love:St. John+Dr. Alice Chen", false, false}},
	}
	// The rows are new messages, so the conversation they come to is older than all of them
	// (a row whose label time is older than the newest message known is history).
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	eval(t, h.ctx, `fx.data.CONV_G = {header: ['Jane Doe'], rows: [{id:'g0', label: 'Jane Doe said: last year. Received on December 1, 2025 at 9:00 AM.', text:'last year'}]};
		fx.open('CONV_G'), 1`, nil)
	h.waitConversation(m, "CONV_G")
	m = h.mark()
	var js strings.Builder
	js.WriteString("(function(){")
	for i, c := range cases {
		l, _ := json.Marshal(c.label)
		v, _ := json.Marshal(c.visible)
		if c.label == "" {
			fmt.Fprintf(&js, "fx.append({id:'L%d', label: undefined, text:%s}); (function(){var p=document.createElement('mws-text-message-part'); p.textContent=%s; document.querySelector('[data-e2e-message-id=\"L%d\"]').appendChild(p);})();", i, v, v, i)
			continue
		}
		fmt.Fprintf(&js, "fx.append({id:'L%d', label:%s, text:%s});", i, l, v)
	}
	js.WriteString("return 1})()")
	eval(t, h.ctx, js.String(), nil)
	// Every row is reported, the unlabelled one after its grace period.
	for i := range cases {
		id := fmt.Sprintf("L%d", i)
		h.waitFor(m, "row "+id, 8*time.Second, func(e protocol.Event) bool { n, ok := e.(protocol.NewMessage); return ok && n.Message.ID == id })
	}
	got := map[string]protocol.Message{}
	for _, msg := range h.newMessages(m) {
		got[msg.ID] = msg
	}
	for i, c := range cases {
		id := fmt.Sprintf("L%d", i)
		g, ok := got[id]
		if !ok {
			t.Errorf("label %q: row not reported", c.label)
			continue
		}
		var rs []string
		for _, r := range g.Reactions {
			rs = append(rs, r.Reaction+":"+strings.Join(r.By, "+"))
		}
		have := want{g.Sender, g.Direction, g.Text, g.Timestamp, g.LabelKind, strings.Join(g.Status, ","), strings.Join(rs, ";"), g.OwnClanker, g.OtherClanker}
		if have != c.want {
			t.Errorf("label %q:\n got  %+v\n want %+v", c.label, have, c.want)
		}
		// The time read from a full label is that minute in the page's time zone (the
		// browser and this test run on one machine); other labels give none.
		var at int64
		for _, layout := range []string{"January 2, 2006 at 3:04 PM", "Jan 2, 2006 at 3:04 PM"} {
			if tm, err := time.ParseInLocation(layout, g.Timestamp, time.Local); err == nil && c.want.kind == "full" {
				at = tm.UnixMilli()
			}
		}
		if g.At != at {
			t.Errorf("label %q: at = %d (%s), want %d", c.label, g.At, time.UnixMilli(g.At), at)
		}
	}
}
