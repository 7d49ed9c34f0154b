package bridgetest

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chromedp/chromedp"

	protocol "github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/tests/browser"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// These tests prove the bridge on page shapes other than the simulator's: each one is a
// class of behaviour an independently written page (or Google's next redesign) may have.

// historyIDs returns the ids of every history row reported after mark, in order.
func (h *host) historyIDs(mark int) []string {
	var ids []string
	for _, e := range h.since(mark) {
		if hh, ok := e.Event.(protocol.History); ok {
			for _, m := range hh.Messages {
				ids = append(ids, m.ID)
			}
		}
	}
	return ids
}

// waitNewID waits for the new-message event of id.
func (h *host) waitNewID(mark int, id string) protocol.Message {
	h.t.Helper()
	return h.waitFor(mark, "new message "+id, 10*time.Second, func(e protocol.Event) bool {
		n, ok := e.(protocol.NewMessage)
		return ok && n.Message.ID == id
	}).(protocol.NewMessage).Message
}

// waitUpdate waits for a message_update of id that satisfies ok.
func (h *host) waitUpdate(mark int, id, what string, ok func(protocol.Message) bool) protocol.Message {
	h.t.Helper()
	return h.waitFor(mark, "message_update of "+id+": "+what, 15*time.Second, func(e protocol.Event) bool {
		u, isUp := e.(protocol.MessageUpdate)
		return isUp && u.Message.ID == id && ok(u.Message)
	}).(protocol.MessageUpdate).Message
}

// Whether a row is new or history depends only on its place in document
// order among the message rows, never on the rows being siblings, on their depth or on
// the order of their attributes.
func TestNewVersusHistoryByDocumentOrderAtAnyNestingDepth(t *testing.T) {
	for _, nest := range []string{"0", "1", "2", "mixed"} {
		t.Run("nest="+nest, func(t *testing.T) {
			h, _ := openFixture(t, "/web/conversations/CONV_A?nest="+nest, atDocumentStart)
			c := h.waitConversation(0, "CONV_A")
			if len(c.Messages) != 2 {
				t.Fatalf("baseline has %d messages, want 2", len(c.Messages))
			}
			m := h.mark()
			// Scroll-back: two rows above all others (one labelled late, one with its id
			// attribute first); then one row between the two known rows.
			eval(t, h.ctx, `fx.prepend([{id:'old1', label: fx.L('Jane Doe','older one'), text:'older one', lateLabel: 150},
				{id:'old2', label: fx.L('Jane Doe','older two'), text:'older two', idFirst: true}]), 1`, nil)
			eval(t, h.ctx, `fx.before('a2', {id:'mid', label: fx.L('Jane Doe','in between'), text:'in between'}), 1`, nil)
			// The page appends the newest row first and then slips the one before it above
			// it, in one task; the second one is its own wrapper-core.
			eval(t, h.ctx, `(function(){ fx.append({id:'n2', label: fx.L('Jane Doe','second new'), text:'second new'});
				fx.before('n2', {id:'n1', label: fx.L('Jane Doe','first new'), text:'first new', coreIsWrapper: true}); return 1; })()`, nil)
			h.waitNewID(m, "n2")
			testkit.Poll(minWait, func() (bool, string) { return len(h.historyIDs(m)) >= 3, "" })
			hist := h.historyIDs(m)
			sort.Strings(hist)
			if strings.Join(hist, ",") != "mid,old1,old2" {
				t.Errorf("history rows %v, want mid, old1 and old2; events: %s", hist, summary(h.since(m)))
			}
			var news []string
			for _, msg := range h.newMessages(m) {
				news = append(news, msg.ID)
			}
			if strings.Join(news, ",") != "n1,n2" {
				t.Errorf("new rows %v, want n1,n2 (document order, once each)", news)
			}
			// After all that, a row at the bottom is still new.
			eval(t, h.ctx, `fx.append({id:'n3', label: fx.L('Jane Doe','third new'), text:'third new'}), 1`, nil)
			if got := h.waitNewID(m, "n3"); got.Text != "third new" {
				t.Errorf("n3 = %+v", got)
			}
		})
	}
}

// An image whose src (or whole <img>) arrives after its row is reported as
// an update of the message it belongs to.
func TestImageThatLoadsAfterItsRowIsAnUpdateOfTheMessage(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A?nest=1", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	eval(t, h.ctx, `(function(){
		var src = function(n){ return 'blob:' + location.origin + '/' + n; };
		var lab = 'Jane Doe sent an image. Received on February 3, 2026 at 6:41 PM.';
		fx.append({id:'i1', image:{label: lab, src: src('late-src'), alt:'a cat', lateSrc: 500}});
		fx.append({id:'i2', image:{label: lab, src: src('late-img'), alt:'a dog', lateImg: 700}});
		fx.append({id:'i3', label: fx.L('Jane Doe','look at this'), text:'look at this', image:{label:'', src: src('with-text'), lateSrc: 600}});
		return 1})()`, nil)
	for _, c := range []struct{ id, name string }{{"i1", "late-src"}, {"i2", "late-img"}, {"i3", "with-text"}} {
		first := h.waitNewID(m, c.id)
		up := h.waitUpdate(m, c.id, "with its image", func(msg protocol.Message) bool { return len(msg.Images) == 1 })
		if !strings.HasPrefix(up.Images[0].Src, "blob:") || !strings.HasSuffix(up.Images[0].Src, "/"+c.name) {
			t.Errorf("%s: updated image %+v, want the blob URL set late", c.id, up.Images)
		}
		if first.Sender != "Jane Doe" || up.Sender != "Jane Doe" {
			t.Errorf("%s: sender %q then %q, want Jane Doe both times", c.id, first.Sender, up.Sender)
		}
		if len(first.Images) != 0 {
			t.Errorf("%s: first report carried images %+v before any src was set", c.id, first.Images)
		}
	}
	if n := len(h.newMessages(m)); n != 3 {
		t.Errorf("%d new-message events, want 3 (an image arriving is not a new message)", n)
	}
}

// A label filled in long after the row appeared (8 s, 11 s: well past the 1.5 s grace even
// when a loaded machine runs the grace timer late; also on a baseline row and an attachment
// row) is sent as an update when it arrives.
func TestLabelsLaterThanTheGracePeriodArriveAsUpdates(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A?nest=2", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	eval(t, h.ctx, `(function(){
		fx.append({id:'late3', label: fx.L('Jane Doe','three seconds'), text:'three seconds', lateLabel: 8000});
		fx.append({id:'late5', label: fx.L('Dr. Alice Chen','five seconds'), text:'five seconds', lateLabel: 11000});
		fx.append({id:'late3v', attachment:{kind:'video', label:'Jane Doe sent a video. Received on February 3, 2026 at 6:52 PM.'}, lateLabel: 8000});
		return 1})()`, nil)
	for _, c := range []struct{ id, sender, text string }{{"late3", "Jane Doe", "three seconds"}, {"late5", "Dr. Alice Chen", "five seconds"}, {"late3v", "Jane Doe", ""}} {
		first := h.waitNewID(m, c.id)
		if first.Sender != "" || first.LabelKind != "none" || first.Text != c.text {
			t.Errorf("%s: reported before its label as %s, want no sender, labelKind none and the visible text", c.id, dump(first))
		}
		up := h.waitUpdate(m, c.id, "labelled", func(msg protocol.Message) bool { return msg.LabelKind == "full" })
		if up.Sender != c.sender || up.Direction != "in" || up.Timestamp == "" || up.Text != c.text {
			t.Errorf("%s: update %s, want sender %q, direction in, a timestamp and the text", c.id, dump(up), c.sender)
		}
	}
	if n := len(h.newMessages(m)); n != 3 {
		t.Errorf("%d new-message events, want 3 (a late label is an update, not a new message)", n)
	}

	// A baseline row whose label comes after the conversation settled.
	m = h.mark()
	eval(t, h.ctx, `fx.data.CONV_L = {header: ['Jane Doe'], rows: [
		{id:'l0', label: fx.L('Jane Doe','on time'), text:'on time'},
		{id:'l1', label: fx.L('Jane Doe','slow label'), text:'slow label', lateLabel: 4000}]};
		fx.open('CONV_L'), 1`, nil)
	c := h.waitConversation(m, "CONV_L")
	if len(c.Messages) != 2 || c.Messages[1].LabelKind != "none" {
		t.Fatalf("CONV_L settled with %s, want l1 still unlabelled", dump(c.Messages))
	}
	up := h.waitUpdate(m, "l1", "labelled", func(msg protocol.Message) bool { return msg.Sender == "Jane Doe" })
	if up.LabelKind != "full" || up.Text != "slow label" {
		t.Errorf("baseline row update %s", dump(up))
	}
	if n := len(h.newMessages(m)); n != 0 {
		t.Errorf("%d new-message events for a baseline row's late label, want 0", n)
	}
}

// Text limits count Unicode code points, so 3,000 emoji (6,000 UTF-16
// units) arrive whole and only text over 4,000 code points is cut.
func TestTextLengthIsCountedInCodePoints(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	eval(t, h.ctx, `(function(){
		var e = function(n){ return '\ud83d\ude00'.repeat(n); };
		fx.append({id:'e3000', label: fx.L('Jane Doe', e(3000)), text: e(3000)});
		fx.append({id:'e4001', label: fx.L('Jane Doe', e(4001)), text: e(4001)});
		fx.append({id:'mix', label: fx.L('Jane Doe', 'a' + e(3999)), text: 'a' + e(3999)});
		return 1})()`, nil)
	for _, c := range []struct {
		id        string
		runes     int
		truncated bool
	}{{"e3000", 3000, false}, {"e4001", 4000, true}, {"mix", 4000, false}} {
		got := h.waitNewID(m, c.id)
		if n := utf8.RuneCountInString(got.Text); n != c.runes || got.TextTruncated != c.truncated || !utf8.ValidString(got.Text) || strings.ContainsRune(got.Text, utf8.RuneError) {
			t.Errorf("%s: %d code points, truncated=%v, want %d and %v with no broken surrogate", c.id, n, got.TextTruncated, c.runes, c.truncated)
		}
	}
}

// The new-chat page is not a conversation: no id, nothing reported as one,
// no command can target it.
func TestNewChatPageIsNotAConversation(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	h.waitState(0, "conversation", 10*time.Second) // may follow the conversation event
	// The compose report that follows the settle is posted right after the conversation
	// event and may reach the test a moment later: it belongs before the mark.
	settled := 0
	for i, e := range h.all() {
		if c, ok := e.Event.(protocol.Conversation); ok && c.ConversationID == "CONV_A" {
			settled = i
			break
		}
	}
	h.waitFor(settled, "the compose report of CONV_A", minWait, func(e protocol.Event) bool {
		c, ok := e.(protocol.Compose)
		return ok && c.ConversationID == "CONV_A"
	})
	m := h.mark()
	// The page's own new-chat navigation (SPA): URL change, thread pane emptied.
	eval(t, h.ctx, `history.pushState({}, '', '/web/conversations/new'); document.querySelector('mws-messages-list').innerHTML = ''; 1`, nil)
	ps := h.waitState(m, "no_conversation", 10*time.Second)
	if ps.ConversationID != "" {
		t.Errorf("page_state on the new-chat page names conversation %q, want none", ps.ConversationID)
	}
	// Whatever appears on that page is not a conversation's message, and a sidebar link
	// to it is not a conversation either.
	eval(t, h.ctx, `(function(){ fx.append({id:'x1', label: fx.L('Jane Doe','draft preview'), text:'draft preview'});
		var a = document.createElement('a'); a.setAttribute('data-e2e-conversation',''); a.href = '/web/conversations/new';
		a.innerHTML = '<span data-e2e-conversation-name>New</span>';
		document.querySelector('mws-conversations-list nav').appendChild(a); return 1})()`, nil)
	if r := h.do(protocol.InsertText{ConversationID: "new", Text: "[clanker] hi"}); r.OK || r.Code != "wrong_conversation" {
		t.Errorf("insert_text for \"new\" = %+v, want wrong_conversation", r)
	}
	if r := h.do(protocol.Navigate{ConversationID: "new"}); r.OK || r.Code != "not_found" {
		t.Errorf("navigate to \"new\" = %+v, want not_found", r)
	}
	// A real load of the new-chat page (the Start chat link) says the same.
	m2 := h.mark()
	eval(t, h.ctx, `document.querySelector('a[data-e2e-start-button]').click(), 1`, nil)
	h.waitFor(m2, "hello after loading the new-chat page", 10*time.Second, func(e protocol.Event) bool { _, ok := e.(protocol.Hello); return ok })
	h.waitState(m2, "no_conversation", 10*time.Second)
	h.mustOK(protocol.RunSelfTest{})
	for _, e := range h.since(m) {
		switch ev := e.Event.(type) {
		case protocol.Conversation:
			t.Errorf("a conversation event for %q on the new-chat page", ev.ConversationID)
		case protocol.NewMessage, protocol.History:
			t.Errorf("a %s event on the new-chat page", e.Type)
		case protocol.PageState:
			if ev.ConversationID != "" {
				t.Errorf("page_state %s names conversation %q", ev.State, ev.ConversationID)
			}
		case protocol.Compose:
			if ev.ConversationID != "" {
				t.Errorf("compose event names conversation %q", ev.ConversationID)
			}
		case protocol.Sidebar:
			for _, it := range ev.Items {
				if strings.EqualFold(it.ID, "new") {
					t.Errorf("sidebar item %+v for the new-chat link", it)
				}
			}
		}
	}
}

// When a redesign renames part of the structure, the self-test reports the
// selectors that no longer match, and everything that still matches keeps working: the
// page is never declared unrecognised and commands still act.
func TestSelectorDriftIsReportedButTheBridgeKeepsWorking(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A?drift=1", atDocumentStart)
	h.mustOK(protocol.Configure{UnrecognisedGraceMs: 1000})
	c := h.waitConversation(0, "CONV_A")
	if len(c.Messages) != 2 || c.Messages[0].Sender != "Jane Doe" {
		t.Fatalf("drifted page settled with %s", dump(c.Messages))
	}
	st := h.waitFor(0, "self_test", 10*time.Second, func(e protocol.Event) bool { _, ok := e.(protocol.SelfTest); return ok }).(protocol.SelfTest)
	failed := map[string]bool{}
	for _, r := range st.Results {
		if !r.OK {
			failed[r.Key] = true
		}
	}
	for _, k := range []string{"conversationContainer", "messagesList", "headerTitle", "sidebarList"} {
		if !failed[k] {
			t.Errorf("self-test did not report %s as failing on the drifted page: %+v", k, st.Results)
		}
	}
	// Well past the grace period, the page still counts as a conversation: new rows,
	// scroll-back and compose commands work.
	m := h.mark()
	eval(t, h.ctx, `setTimeout(function(){ fx.append({id:'d1', label: fx.L('Jane Doe','after drift'), text:'after drift'}); fx.prepend([{id:'d0', label: fx.L('Jane Doe','older'), text:'older'}]); }, 1500), 1`, nil)
	if got := h.waitNewID(m, "d1"); got.Text != "after drift" {
		t.Errorf("new row on the drifted page: %s", dump(got))
	}
	h.waitFor(m, "history d0", 10*time.Second, func(e protocol.Event) bool { hh, ok := e.(protocol.History); return ok && hh.Messages[0].ID == "d0" })
	h.mustOK(protocol.InsertText{ConversationID: "CONV_A", Text: "[clanker] still here"})
	h.mustOK(protocol.RunSelfTest{})
	again := h.waitFor(m, "second self_test", 10*time.Second, func(e protocol.Event) bool { _, ok := e.(protocol.SelfTest); return ok }).(protocol.SelfTest)
	if again.State != "conversation" {
		t.Errorf("self-test state after the grace period = %q, want conversation", again.State)
	}
	for _, e := range h.all() {
		if p, ok := e.Event.(protocol.PageState); ok && p.State != "conversation" && p.State != "loading" {
			t.Errorf("page_state %s on a page whose rows and compose box still work", p.State)
		}
	}

	// The landing page with the drifted sidebar (only its links still match).
	h2, _ := openFixture(t, "/web/conversations?drift=1", atDocumentStart)
	h2.mustOK(protocol.Configure{UnrecognisedGraceMs: 1000})
	h2.waitState(0, "no_conversation", 10*time.Second)
}

// Attachment rows (video, file) in a group report the sender wherever the
// page shows it: a label on the attachment part or the core, or the name drawn above it.
func TestAttachmentRowsInGroupsReportTheirSender(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_B?nest=mixed", atDocumentStart)
	h.waitConversation(0, "CONV_B")
	m := h.mark()
	at := "Received on February 3, 2026 at 6:55 PM."
	eval(t, h.ctx, fmt.Sprintf(`(function(){
		fx.append({id:'v1', attachment:{kind:'video', label:'Dad sent a video. %[1]s'}});
		fx.append({id:'f1', attachment:{kind:'file', label:'Dr. Mom sent a file. %[1]s Read.', on:'core'}});
		fx.append({id:'f2', attachment:{kind:'file'}, shownName:'Mom'});
		fx.append({id:'f3', out: true, attachment:{kind:'file', label:'You sent a file. Sent on February 3, 2026 at 6:56 PM.'}});
		fx.append({id:'f4', attachment:{kind:'file'}});
		return 1})()`, at), nil)
	want := []struct{ id, sender, dir, kind string }{
		{"v1", "Dad", "in", "full"}, {"f1", "Dr. Mom", "in", "full"}, {"f2", "Mom", "unknown", "none"},
		{"f3", "You", "out", "full"}, {"f4", "", "unknown", "none"},
	}
	for _, w := range want {
		got := h.waitNewID(m, w.id)
		if got.Sender != w.sender || got.Direction != w.dir || got.LabelKind != w.kind || !got.Unsupported {
			t.Errorf("%s: %s, want sender %q direction %s labelKind %s, unsupported", w.id, dump(got), w.sender, w.dir, w.kind)
		}
	}
}

// A pairing element means signed out only on a page without conversations: a signed-in
// page may show one in a dialog, and a redesign may move the pairing page's path.
func TestPairingElementOnASignedInPageIsNotSignedOut(t *testing.T) {
	h, url := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	eval(t, h.ctx, `(function(){ var d = document.createElement('div'); d.setAttribute('role','dialog');
		d.appendChild(document.createElement('mw-qr-code')); document.body.appendChild(d);
		fx.append({id:'q1', label: fx.L('Jane Doe','after the dialog'), text:'after the dialog'}); return 1})()`, nil)
	h.waitNewID(m, "q1")
	h.mustOK(protocol.RunSelfTest{})
	st := h.waitFor(m, "self_test", 10*time.Second, func(e protocol.Event) bool { _, ok := e.(protocol.SelfTest); return ok }).(protocol.SelfTest)
	if st.State != "conversation" {
		t.Errorf("page state with a QR dialog over the conversation = %q, want conversation", st.State)
	}
	m = h.mark()
	browser.Run(t, h.ctx, "open a pairing page at another path", chromedp.Navigate(url+"/web/pair"))
	h.waitState(m, "signed_out", 10*time.Second)
}
