package bridgetest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	protocol "github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/tests/browser"
)

// openFixture starts a browser on the fixture at path with the bridge injected per mode.
func openFixture(t *testing.T, path string, mode injectMode) (*host, string) {
	t.Helper()
	srv := startFixture(t)
	b := newBrowser(t)
	h := newHost(t, b.Context(), mode)
	browser.Run(t, b.Context(), "open fixture", chromedp.Navigate(srv.URL+path))
	if mode == afterLoad {
		h.inject()
	}
	return h, srv.URL
}

func TestSettledConversationReportsParsedRowsSidebarAndSelfTest(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	c := h.waitConversation(0, "CONV_A")
	if first := h.all()[0]; first.Type != "hello" || first.Seq != 1 {
		t.Errorf("first event = %s seq %d, want hello seq 1", first.Type, first.Seq)
	}
	if len(c.Messages) != 2 {
		t.Fatalf("conversation has %d messages, want 2: %+v", len(c.Messages), c.Messages)
	}
	m0, m1 := c.Messages[0], c.Messages[1]
	if m0.ID != "a1" || m0.Sender != "Jane Doe" || m0.Direction != "in" || m0.Text != "Anyone up for tacos?" || m0.LabelKind != "full" || m0.Timestamp != "February 3, 2026 at 6:41 PM" {
		t.Errorf("first message parsed as %+v", m0)
	}
	if !m1.OwnClanker || m1.OtherClanker || m1.Direction != "out" || len(m1.Reactions) != 1 || m1.Reactions[0].Reaction != "laugh" ||
		strings.Join(m1.Reactions[0].By, ",") != "Jane Doe" || strings.Join(m1.Status, ",") != "Read" {
		t.Errorf("own clanker message parsed as %+v", m1)
	}
	if strings.Join(c.HeaderNames, ",") != "Jane Doe" || strings.Join(c.Participants, ",") != "Jane Doe" || len(c.Automated) != 0 {
		t.Errorf("header %v participants %v automated %v", c.HeaderNames, c.Participants, c.Automated)
	}
	st := h.waitFor(0, "self_test", 5*time.Second, func(e protocol.Event) bool { _, ok := e.(protocol.SelfTest); return ok }).(protocol.SelfTest)
	if st.State != "conversation" || st.Checked == "" || len(st.Results) < 8 {
		t.Errorf("self test %+v", st)
	}
	for _, r := range st.Results {
		if !r.OK {
			t.Errorf("self test: selector %s (%s) matched %d, expected %s", r.Key, r.Selector, r.Count, r.Expect)
		}
	}
	sb := h.waitFor(0, "sidebar", 5*time.Second, func(e protocol.Event) bool { _, ok := e.(protocol.Sidebar); return ok }).(protocol.Sidebar)
	if !sb.Full || len(sb.Items) != 3 {
		t.Fatalf("first sidebar event full=%v with %d items, want full with 3", sb.Full, len(sb.Items))
	}
	a, bb, s := sb.Items[0], sb.Items[1], sb.Items[2]
	if a.ID != "CONV_A" || !a.Outgoing || !a.Pinned || a.Automated || bb.Name != "Dad, Mom" || !bb.Unread || !bb.Muted || bb.Outgoing || !s.Automated {
		t.Errorf("sidebar items parsed as %+v", sb.Items)
	}
}

func TestSidebarChangesArriveAsDebouncedDiffs(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	h.waitFor(0, "sidebar", 5*time.Second, func(e protocol.Event) bool { _, ok := e.(protocol.Sidebar); return ok })
	m := h.mark()
	eval(t, h.ctx, `(function(){var s=document.querySelectorAll('mws-conversation-snippet span')[1]; s.textContent='Mom: one'; s.textContent='Mom: two, clank?';
		document.querySelectorAll('a[data-e2e-conversation]')[1].setAttribute('data-e2e-is-unread','true'); return 1})()`, nil)
	sb := h.waitFor(m, "sidebar diff", 5*time.Second, func(e protocol.Event) bool { _, ok := e.(protocol.Sidebar); return ok }).(protocol.Sidebar)
	if sb.Full || len(sb.Items) != 1 || sb.Items[0].ID != "CONV_B" || sb.Items[0].Snippet != "Mom: two, clank?" {
		t.Fatalf("sidebar diff = %+v, want only CONV_B with the final snippet", sb)
	}
	if n := h.count(m, "sidebar"); n != 1 {
		t.Errorf("two quick snippet changes produced %d sidebar events, want 1 (debounced)", n)
	}
}

func TestAppendedRowIsNewExactlyOnceAfterItsLabelArrives(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	eval(t, h.ctx, `fx.append({id:'a3', label: fx.L('Jane Doe','late label'), text:'late label', lateLabel: 250}), 1`, nil)
	got := h.waitFor(m, "new message a3", 5*time.Second, func(e protocol.Event) bool { n, ok := e.(protocol.NewMessage); return ok && n.Message.ID == "a3" }).(protocol.NewMessage)
	if got.Message.Text != "late label" || got.Message.Sender != "Jane Doe" || got.ConversationID != "CONV_A" {
		t.Errorf("new message = %+v, want the label's sender and text (reported after the label arrived)", got)
	}
	// A re-render of the same row (same id) and a relabel must not report it again.
	eval(t, h.ctx, `fx.replace('a3', {id:'a3', label: fx.L('Jane Doe','late label'), text:'late label'}), 1`, nil)
	eval(t, h.ctx, `fx.append({id:'a4', label: fx.L('Jane Doe','after'), text:'after'}), 1`, nil)
	h.waitFor(m, "new message a4", 5*time.Second, func(e protocol.Event) bool { n, ok := e.(protocol.NewMessage); return ok && n.Message.ID == "a4" })
	var ids []string
	for _, msg := range h.newMessages(m) {
		ids = append(ids, msg.ID)
	}
	if strings.Join(ids, ",") != "a3,a4" {
		t.Errorf("new message events %v, want a3,a4 once each", ids)
	}
}

// New rows are reported in the order the page shows them, whatever order their labels come
// in: the engine reads a new message older than one it already processed as history, so a row
// whose label came first must not overtake the row above it (issue 32's soak lost a burst of
// messages this way, the engine's own sent message among them). The row above is waited for
// at most the labels' grace period; a pending row confirmed while it waits is reported once,
// under its permanent id.
func TestNewRowsAreReportedInPageOrderWhateverOrderTheirLabelsCome(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	// o1's label comes last; o2's and the sent row's at once, and the sent row gets its
	// permanent id in place before o1's label is there.
	eval(t, h.ctx, `fx.append({id:'o1', label: fx.L('Jane Doe','first'), text:'first', lateLabel: 700});
		fx.append({id:'o2', label: fx.L('Jane Doe','second'), text:'second', lateLabel: 50});
		fx.append({id:'tmp_77', label: fx.L('You','third','Sent'), text:'third', out:true});
		fx.append({id:'o4', label: fx.L('Jane Doe','fourth'), text:'fourth'});
		setTimeout(function(){ fx.setId('tmp_77', 'uuid-77'); }, 300); 1`, nil)
	h.waitFor(m, "new message o4", 5*time.Second, func(e protocol.Event) bool { n, ok := e.(protocol.NewMessage); return ok && n.Message.ID == "o4" })
	var ids []string
	for _, msg := range h.newMessages(m) {
		ids = append(ids, msg.ID+":"+msg.Text)
	}
	if strings.Join(ids, ",") != "o1:first,o2:second,uuid-77:third,o4:fourth" {
		t.Errorf("new message events %v, want o1, o2, uuid-77 (the sent row under its permanent id), o4 in page order", ids)
	}
	if n := h.count(m, "message_id"); n != 0 {
		t.Errorf("%d message_id events for a row first reported under its permanent id, want 0", n)
	}
	// A row whose label never comes holds the rows below it only for the grace period: then it
	// is reported with what could be read, and they follow.
	m = h.mark()
	eval(t, h.ctx, `fx.append({id:'p1', label: fx.L('Jane Doe','never labelled'), text:'never labelled', lateLabel: 600000});
		fx.append({id:'p2', label: fx.L('Jane Doe','labelled'), text:'labelled'}); 1`, nil)
	h.waitFor(m, "new message p2", 8*time.Second, func(e protocol.Event) bool { n, ok := e.(protocol.NewMessage); return ok && n.Message.ID == "p2" })
	ids = nil
	for _, msg := range h.newMessages(m) {
		ids = append(ids, msg.ID)
	}
	if strings.Join(ids, ",") != "p1,p2" {
		t.Errorf("new message events %v, want p1 (after its grace, unlabelled) then p2", ids)
	}
}

func TestRowsInsertedAboveAreHistoryNeverNew(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	eval(t, h.ctx, `fx.prepend([{id:'old1', label: fx.L('Jane Doe','older one'), text:'older one', lateLabel: 150}, {id:'old2', label: fx.L('Jane Doe','older two'), text:'older two'}]), fx.removeFirst(), 1`, nil)
	hist := h.waitFor(m, "history", 5*time.Second, func(e protocol.Event) bool {
		hh, ok := e.(protocol.History)
		return ok && hh.Messages[len(hh.Messages)-1].ID == "old2"
	}).(protocol.History)
	if hist.Messages[0].Text != "older two" {
		t.Errorf("history = %+v", hist.Messages)
	}
	// Scroll-back rows are never new, even the one whose label came late.
	eval(t, h.ctx, `fx.append({id:'a9', label: fx.L('Jane Doe','fresh'), text:'fresh'}), 1`, nil)
	h.waitFor(m, "new message a9", 5*time.Second, func(e protocol.Event) bool { n, ok := e.(protocol.NewMessage); return ok && n.Message.ID == "a9" })
	for _, msg := range h.newMessages(m) {
		if msg.ID != "a9" {
			t.Errorf("scroll-back row %s (%q) was reported as new", msg.ID, msg.Text)
		}
	}
}

func TestTmpIDChangeIsAnIDUpdateInPlaceAndByReplacement(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	eval(t, h.ctx, `fx.append({id:'tmp_111', label: fx.L('You','first send','Sent'), text:'first send', out:true}), 1`, nil)
	h.waitFor(m, "tmp_111 as new", 5*time.Second, func(e protocol.Event) bool { n, ok := e.(protocol.NewMessage); return ok && n.Message.ID == "tmp_111" })
	eval(t, h.ctx, `fx.setId('tmp_111', 'uuid-1'), 1`, nil)
	inPlace := h.waitFor(m, "id change in place", 5*time.Second, func(e protocol.Event) bool { _, ok := e.(protocol.MessageID); return ok }).(protocol.MessageID)
	if inPlace.OldID != "tmp_111" || inPlace.NewID != "uuid-1" {
		t.Errorf("in-place id change = %+v", inPlace)
	}
	m2 := h.mark()
	eval(t, h.ctx, `fx.append({id:'tmp_222', label: fx.L('You','second send','Sent'), text:'second send', out:true}), 1`, nil)
	h.waitFor(m2, "tmp_222 as new", 5*time.Second, func(e protocol.Event) bool { n, ok := e.(protocol.NewMessage); return ok && n.Message.ID == "tmp_222" })
	eval(t, h.ctx, `fx.replace('tmp_222', {id:'uuid-2', label: fx.L('You','second send','Sent'), text:'second send', out:true, lateLabel: 120}), 1`, nil)
	repl := h.waitFor(m2, "id change by replacement", 5*time.Second, func(e protocol.Event) bool { _, ok := e.(protocol.MessageID); return ok }).(protocol.MessageID)
	if repl.OldID != "tmp_222" || repl.NewID != "uuid-2" {
		t.Errorf("replacement id change = %+v", repl)
	}
	// The pending row is replaced before its label ever came (reported without a sender).
	m3 := h.mark()
	eval(t, h.ctx, `fx.append({id:'tmp_333', label: fx.L('You','third send','Sent'), text:'third send', out:true, lateLabel: 60000}), 1`, nil)
	if got := h.waitNewID(m3, "tmp_333"); got.Sender != "" || got.Direction != "out" {
		t.Fatalf("unlabelled pending row reported as %+v, want no sender, direction out", got)
	}
	eval(t, h.ctx, `fx.replace('tmp_333', {id:'uuid-3', label: fx.L('You','third send','Sent'), text:'third send', out:true}), 1`, nil)
	late := h.waitFor(m3, "id change of an unlabelled row", 5*time.Second, func(e protocol.Event) bool { _, ok := e.(protocol.MessageID); return ok }).(protocol.MessageID)
	if late.OldID != "tmp_333" || late.NewID != "uuid-3" {
		t.Errorf("replacement of an unlabelled pending row = %+v", late)
	}
	for _, msg := range h.newMessages(m) {
		if strings.HasPrefix(msg.ID, "uuid-") {
			t.Errorf("permanent id %s was reported as a new message", msg.ID)
		}
	}
}

func TestSwitchingConversationNeverReportsThePreviousRows(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	// The old rows stay in the DOM for 800 ms after the URL changes, then B's rows come.
	eval(t, h.ctx, `window.fxKeepOld = true; window.fxDelay = 800; 1`, nil)
	r := h.do(protocol.Navigate{ConversationID: "CONV_B"})
	if !r.OK {
		t.Fatalf("navigate: %s %s", r.Code, r.Error)
	}
	c := h.waitConversation(m, "CONV_B")
	// The switch was announced before the settled conversation event.
	announced := false
	for _, e := range h.since(m) {
		if p, ok := e.Event.(protocol.PageState); ok && p.ConversationID == "CONV_B" {
			announced = true
		}
		if _, ok := e.Event.(protocol.Conversation); ok {
			break
		}
	}
	if !announced {
		t.Errorf("no page_state for CONV_B before its conversation event: %s", summary(h.since(m)))
	}
	for _, msg := range c.Messages {
		if strings.HasPrefix(msg.ID, "a") {
			t.Errorf("CONV_B was reported with CONV_A's row %s", msg.ID)
		}
	}
	if len(c.Messages) != 2 || c.Messages[1].Text != "I agree." {
		t.Errorf("CONV_B messages = %+v, want b1, b2 with the period restored from the visible text", c.Messages)
	}
	if strings.Join(c.HeaderNames, ",") != "Dad,Mom" {
		t.Errorf("header names %v, want Dad,Mom", c.HeaderNames)
	}
	if n := len(h.newMessages(m)); n != 0 {
		t.Errorf("the switch produced %d new-message events, want 0", n)
	}
	if r := h.do(protocol.Navigate{ConversationID: "NOPE"}); r.OK || r.Code != "not_found" {
		t.Errorf("navigate to a missing conversation = %+v, want not_found", r)
	}
}

func TestInjectingTwiceAfterLoadKeepsOneObserver(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", afterLoad)
	h.inject()
	h.waitConversation(0, "CONV_A")
	if n := h.count(0, "hello"); n != 1 {
		t.Fatalf("two injections sent %d hello events, want 1", n)
	}
	m := h.mark()
	eval(t, h.ctx, `fx.append({id:'a5', label: fx.L('Jane Doe','once'), text:'once'}), 1`, nil)
	h.waitFor(m, "a5", 5*time.Second, func(e protocol.Event) bool { n, ok := e.(protocol.NewMessage); return ok && n.Message.ID == "a5" })
	// Give a duplicate observer every chance to report too: another row after it.
	eval(t, h.ctx, `fx.append({id:'a6', label: fx.L('Jane Doe','twice?'), text:'twice?'}), 1`, nil)
	h.waitFor(m, "a6", 5*time.Second, func(e protocol.Event) bool { n, ok := e.(protocol.NewMessage); return ok && n.Message.ID == "a6" })
	if n := len(h.newMessages(m)); n != 2 {
		t.Errorf("two rows after a double injection gave %d message events, want 2", n)
	}
	var writable bool
	eval(t, h.ctx, `(function(){ try { window.__clanker = null; } catch(e) {} return window.__clanker === null; })()`, &writable)
	if writable {
		t.Error("the page could overwrite window.__clanker")
	}
}

func TestTransportIsCapturedAtInjection(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	eval(t, h.ctx, `window.__stolen = [];
		var steal = function(s){ window.__stolen.push(s); };
		window.webkit.messageHandlers.external.postMessage = steal;
		window.webkit = {messageHandlers: {external: {postMessage: steal}}};
		window.chrome = {webview: {postMessage: steal}};
		fx.append({id:'a7', label: fx.L('Jane Doe','private'), text:'private'}), 1`, nil)
	h.waitFor(m, "a7 through the original host", 5*time.Second, func(e protocol.Event) bool { n, ok := e.(protocol.NewMessage); return ok && n.Message.ID == "a7" })
	var stolen int
	eval(t, h.ctx, `window.__stolen.length`, &stolen)
	if stolen != 0 {
		t.Errorf("a host function swapped in by the page received %d events, want 0", stolen)
	}
}

func TestUnusualRowsAreReportedNotDropped(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	eval(t, h.ctx, `(function(){
		fx.append({id:'u1', label:'Received at 2:56 PM.', text:'time only'});
		fx.append({id:'u2', label: fx.L('Bob','see. Received on Monday. ok'), text:'see. Received on Monday. ok'});
		fx.append({id:'u3', label: fx.L('Mom','the reply'), text:'the reply', quote:{label: fx.L('Dad','the parent'), text:'the parent'}});
		fx.append({id:'u4', image:{label:'Jane Doe sent an image. Received on February 3, 2026 at 6:41 PM.', src:'blob:'+location.origin+'/x', alt:'a cat'}});
		fx.append({id:'u5'});
		fx.append({id:'u6', label: fx.L('Bob','[clanker] bot here'), text:'[clanker] bot here', tombstone: true});
		fx.append({id:'u7', label: fx.L('Bob','[clanker] bot here'), text:'[clanker] bot here'});
		fx.append({id:'u8', label: 'Mystery label', text:'odd'});
		return 1})()`, nil)
	h.waitFor(m, "video row after its grace period", 8*time.Second, func(e protocol.Event) bool { n, ok := e.(protocol.NewMessage); return ok && n.Message.ID == "u5" })
	h.waitFor(m, "odd row", 8*time.Second, func(e protocol.Event) bool { n, ok := e.(protocol.NewMessage); return ok && n.Message.ID == "u8" })
	got := map[string]protocol.Message{}
	for _, msg := range h.newMessages(m) {
		got[msg.ID] = msg
	}
	check := func(id string, ok bool, what string) {
		t.Helper()
		if !ok {
			b, _ := json.Marshal(got[id])
			t.Errorf("%s: %s: got %s", id, what, b)
		}
	}
	check("u1", got["u1"].LabelKind == "partial" && got["u1"].Direction == "in" && got["u1"].Timestamp == "at 2:56 PM" && got["u1"].Text == "time only", "time-only label keeps direction, time and visible text")
	check("u2", got["u2"].Text == "see. Received on Monday. ok" && got["u2"].LabelKind == "full", "text containing '. Received on' is not truncated")
	check("u3", got["u3"].Text == "the reply" && got["u3"].Sender == "Mom" && got["u3"].Quote != nil && got["u3"].Quote.Text == "the parent" && got["u3"].Quote.Sender == "Dad", "quoted reply: own text from the non-embedded part, parent as quote")
	check("u4", len(got["u4"].Images) == 1 && got["u4"].Images[0].Alt == "a cat" && strings.HasPrefix(got["u4"].Images[0].Src, "blob:") && got["u4"].Sender == "Jane Doe", "image with blob src and alt")
	check("u5", got["u5"].Unsupported && got["u5"].LabelKind == "none", "row without parts is an unsupported attachment")
	if _, ok := got["u6"]; ok {
		t.Error("u6: a tombstone row was reported")
	}
	check("u7", got["u7"].OtherClanker && !got["u7"].OwnClanker, "another person's [clanker] message is flagged otherClanker")
	check("u8", got["u8"].LabelKind == "none" && got["u8"].Text == "odd", "a label that cannot be parsed keeps the visible text")
}

func TestRelabelledKnownRowIsReportedOnlyWhenItsContentChanges(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	eval(t, h.ctx, `(function(){var p=document.querySelector('[data-e2e-message-id="a1"] mws-text-message-part');
		p.setAttribute('aria-label', p.getAttribute('aria-label'));
		p.setAttribute('aria-label', p.getAttribute('aria-label') + ' Read.'); return 1})()`, nil)
	up := h.waitFor(m, "message_update", 5*time.Second, func(e protocol.Event) bool { _, ok := e.(protocol.MessageUpdate); return ok }).(protocol.MessageUpdate)
	if up.Message.ID != "a1" || strings.Join(up.Message.Status, ",") != "Read" {
		t.Errorf("update %+v, want a1 with status Read", up.Message)
	}
	eval(t, h.ctx, `fx.append({id:'a8', label: fx.L('Jane Doe','fence'), text:'fence'}), 1`, nil)
	h.waitFor(m, "a8", 5*time.Second, func(e protocol.Event) bool { n, ok := e.(protocol.NewMessage); return ok && n.Message.ID == "a8" })
	if n := h.count(m, "message_update"); n != 1 {
		t.Errorf("%d message_update events, want 1 (re-setting the same label is not a change)", n)
	}
}
