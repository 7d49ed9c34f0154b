package bridgetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	protocol "github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/tests/browser"
)

// These tests hold the bridge to issue 27.1: a belief that the user has a draft is never
// trusted without reading the box. Pages empty the box by script without any event (a
// framework's model binding setting .value fires none and changes no DOM), and restore a
// conversation's draft the same way.

// waitCompose waits for a compose event after mark whose hasUserText is want.
func (h *host) waitCompose(mark int, want bool, what string) protocol.Compose {
	h.t.Helper()
	return h.waitFor(mark, what, minWait, func(e protocol.Event) bool {
		c, ok := e.(protocol.Compose)
		return ok && c.HasUserText == want
	}).(protocol.Compose)
}

// composeStats reads the compose watcher's counters through the stats command.
func (h *host) composeStats() (reads int, polling bool) {
	h.t.Helper()
	var s struct {
		ComposeReads   int  `json:"composeReads"`
		ComposePolling bool `json:"composePolling"`
	}
	if err := json.Unmarshal(h.mustOK(protocol.Stats{}), &s); err != nil {
		h.t.Fatalf("stats: %v", err)
	}
	return s.ComposeReads, s.ComposePolling
}

// userTypes types text into the compose box as the user does (trusted key events).
func (h *host) userTypes(text string) {
	h.t.Helper()
	browser.Run(h.t, h.ctx, "user types "+text, chromedp.Click(`[data-e2e-message-input-box]`, chromedp.ByQuery),
		chromedp.SendKeys(`[data-e2e-message-input-box]`, text, chromedp.ByQuery))
}

// The user's draft emptied by the page's script, with no event, is reported as gone: with
// nothing else happening, with the user's sent row appended after the box was emptied, and
// with the row appended first and the box emptied a moment later. A second draft typed
// afterwards is reported again.
func TestDraftEmptiedWithoutEventsIsReportedGone(t *testing.T) {
	cases := []struct {
		name  string
		clear string // JS run in the page that empties the box without events
	}{
		{"value set, nothing else", `document.querySelector('[data-e2e-message-input-box]').value = ''`},
		{"value set, then the sent row", `document.querySelector('[data-e2e-message-input-box]').value = '';
			fx.append({id:'tmp_41', label: fx.L('You','see you','Sent'), text:'see you', out:true})`},
		{"sent row, value set later", `fx.append({id:'tmp_42', text:'see you', out:true, label: fx.L('You','see you','Sent'), lateLabel: 400});
			setTimeout(function(){ document.querySelector('[data-e2e-message-input-box]').value = ''; }, 250)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
			h.waitConversation(0, "CONV_A")
			m := h.mark()
			h.userTypes("see you")
			h.waitCompose(m, true, "the user's draft reported")
			m = h.mark()
			eval(t, h.ctx, `(function(){ `+c.clear+`; return 1; })()`, nil)
			h.waitCompose(m, false, "the emptied box reported")
			m = h.mark()
			h.userTypes("again")
			h.waitCompose(m, true, "the second draft reported")
		})
	}
}

// A draft the page restores after a switch, without any event, is reported.
func TestDraftRestoredWithoutEventsAfterASwitchIsReported(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	h.mustOK(protocol.Navigate{ConversationID: "CONV_B"})
	h.waitConversation(m, "CONV_B")
	eval(t, h.ctx, `setTimeout(function(){ document.querySelector('[data-e2e-message-input-box]').value = 'half a thought'; }, 800), 1`, nil)
	c := h.waitCompose(m, true, "the restored draft reported")
	if c.ConversationID != "CONV_B" {
		t.Errorf("restored draft reported for %q, want CONV_B", c.ConversationID)
	}
}

// read_compose reads the box now and sends a compose event even when nothing changed,
// and sees a draft that came without an event.
func TestReadComposeReportsTheBoxEvenWhenUnchanged(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	// The page may still be drawing the box or moving focus when the first report comes:
	// wait for the box of CONV_A, and read it once so the bridge's last report is what the
	// box holds now. Only then does an unchanged box make a second read_compose's event the
	// one event.
	h.waitFor(0, "the first report of CONV_A's box", minWait, func(e protocol.Event) bool {
		c, ok := e.(protocol.Compose)
		return ok && c.Present && c.ConversationID == "CONV_A"
	})
	h.do(protocol.ReadCompose{})
	m := h.mark()
	r := h.do(protocol.ReadCompose{})
	var data protocol.Compose
	if err := json.Unmarshal(r.Data, &data); err != nil || !r.OK || !data.Present || data.HasUserText || data.ConversationID != "CONV_A" {
		t.Fatalf("read_compose = %+v (data %s, %v), want ok with the empty box of CONV_A", r, r.Data, err)
	}
	if n := h.count(m, "compose"); n != 1 {
		t.Errorf("read_compose of an unchanged box sent %d compose events, want 1", n)
	}
	eval(t, h.ctx, `document.querySelector('[data-e2e-message-input-box]').value = 'typed elsewhere', 1`, nil)
	m = h.mark()
	r = h.do(protocol.ReadCompose{})
	if err := json.Unmarshal(r.Data, &data); err != nil || !data.HasUserText {
		t.Errorf("read_compose after a silent draft = %s, want hasUserText", r.Data)
	}
	h.waitCompose(m, true, "a compose event with the draft")
}

// The slow re-read runs only while it is needed: while a draft is believed (and for a
// moment after a switch), never on a quiet page with an empty box.
func TestComposeRereadsStopWhenNoDraftIsBelieved(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	quiet := func(what string) {
		t.Helper()
		deadline := time.Now().Add(minWait)
		for {
			if _, polling := h.composeStats(); !polling {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the compose box is still re-read on a timer %s", what)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	quiet("with an empty box after the switch window")
	m := h.mark()
	h.userTypes("draft")
	h.waitCompose(m, true, "the draft reported")
	if _, polling := h.composeStats(); !polling {
		t.Fatal("no re-read timer while a draft is believed")
	}
	before, _ := h.composeStats()
	m = h.mark()
	eval(t, h.ctx, `document.querySelector('[data-e2e-message-input-box]').value = '', 1`, nil)
	h.waitCompose(m, false, "the emptied box reported")
	after, _ := h.composeStats()
	if after <= before {
		t.Errorf("compose reads %d then %d: the box was not read again", before, after)
	}
	quiet("once the box is known to be empty")
}
