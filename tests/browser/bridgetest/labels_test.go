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
		{"(555) 555-7334 said: hi clank. Received on Jan 2, 2026 at 1:05 AM.", "hi clank",
			want{"(555) 555-7334", "in", "hi clank", "Jan 2, 2026 at 1:05 AM", "full", "", "", false, false}},
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
	}
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
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
	last := fmt.Sprintf("L%d", len(cases)-1)
	h.waitFor(m, "row "+last, 8*time.Second, func(e protocol.Event) bool { n, ok := e.(protocol.NewMessage); return ok && n.Message.ID == last })
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
	}
}
