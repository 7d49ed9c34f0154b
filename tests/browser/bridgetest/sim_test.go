package bridgetest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	protocol "github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/tests/browser"
	"github.com/clanker-desktop/clanker/tests/simctl"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// simEnv is one simulator, one browser tab with the bridge injected at document start.
type simEnv struct {
	*host
	t   *testing.T
	s   *simctl.Server
	ctl *simctl.Control
}

// simVariants adds simulator variants to every simulator test in this package, so the whole
// suite can run on another page shape: go test ./tests/browser/bridgetest -sim.variants=nest-2,late-labels
var simVariants = flag.String("sim.variants", "", "comma-separated simulator variants (app/demo/sim) every simulator test also runs with")

func startSim(t *testing.T, opts sim.Options) *simEnv {
	t.Helper()
	for _, v := range strings.Split(*simVariants, ",") {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(opts.Variants, sim.Variant(v)) {
			opts.Variants = append(opts.Variants, sim.Variant(v))
		}
	}
	s, err := simctl.Start(opts)
	if err != nil {
		t.Fatalf("start simulator: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	b := newBrowser(t)
	return &simEnv{host: newHost(t, b.Context(), atDocumentStart), t: t, s: s, ctl: s.Control()}
}

func (e *simEnv) conv(name string) sim.Conversation {
	e.t.Helper()
	c, err := e.ctl.ConversationByName(name)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

func (e *simEnv) open(url string) {
	e.t.Helper()
	browser.Run(e.t, e.ctx, "open "+url, chromedp.Navigate(url))
}

// openConv loads a conversation page and returns its settled conversation event.
func (e *simEnv) openConv(name string) protocol.Conversation {
	e.t.Helper()
	c := e.conv(name)
	m := e.mark()
	e.open(e.s.ConversationURL(c.ID))
	return e.waitConversation(m, c.ID)
}

func (e *simEnv) deliver(conv string, msg sim.Message) sim.Message {
	e.t.Helper()
	got, err := e.ctl.Deliver(conv, msg)
	if err != nil {
		e.t.Fatalf("deliver: %v", err)
	}
	return got
}

func (e *simEnv) waitNew(mark int, what string, match func(protocol.Message) bool) protocol.Message {
	e.t.Helper()
	return e.waitFor(mark, what, 10*time.Second, func(ev protocol.Event) bool {
		n, ok := ev.(protocol.NewMessage)
		return ok && match(n.Message)
	}).(protocol.NewMessage).Message
}

// settled waits until what the events after mark say about the messages of conversation c
// (its baseline, completed by later updates: an image's src, a late label) satisfies ok, and
// returns those messages. On some page shapes the baseline is not complete at once.
func (e *simEnv) settled(mark int, c protocol.Conversation, ok func([]protocol.Message) bool) []protocol.Message {
	e.t.Helper()
	cur := func() []protocol.Message {
		out := make([]protocol.Message, 0, len(c.Messages))
		for _, m := range c.Messages {
			if v, found := e.view(mark, m.ID); found {
				m = v
			}
			out = append(out, m)
		}
		return out
	}
	deadline := time.Now().Add(minWait)
	for !ok(cur()) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	return cur()
}

func byText(msgs []protocol.Message, text string) *protocol.Message {
	for i := range msgs {
		if msgs[i].Text == text {
			return &msgs[i]
		}
	}
	return nil
}

func dump(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Checklist 1: landing page, then a conversation opened through the sidebar.
func TestSimLandingPageThenSidebarClickReportsTheConversation(t *testing.T) {
	e := startSim(t, sim.Options{})
	e.open(e.s.AppURL())
	e.waitState(0, "no_conversation", 10*time.Second)
	if n := e.count(0, "conversation"); n != 0 {
		t.Fatalf("landing page produced %d conversation events, want 0", n)
	}
	jane := e.conv(sim.DemoJane)
	m := e.mark()
	if r := e.do(protocol.Navigate{ConversationID: jane.ID}); !r.OK {
		t.Fatalf("navigate: %+v", r)
	}
	c := e.waitConversation(m, jane.ID)
	if len(c.Messages) == 0 || c.Messages[0].Text != "Anyone up for tacos?" {
		t.Errorf("Jane's conversation opened with %s", dump(c.Messages))
	}
	e.waitState(m, "conversation", 5*time.Second)
}

// Checklist 2: a conversation that stays empty for 3 s is reported with its rows, not empty.
func TestSimSlowConversationIsReportedOnlyWhenItsRowsArrive(t *testing.T) {
	e := startSim(t, sim.Options{})
	bob := e.conv(sim.DemoBob)
	m := e.mark()
	e.open(e.s.ConversationURL(bob.ID) + "?variant=slow")
	c := e.waitConversation(m, bob.ID)
	if len(c.Messages) != 3 {
		t.Fatalf("slow conversation reported with %d messages, want its 3 rows", len(c.Messages))
	}
	if n := e.count(m, "message"); n != 0 {
		t.Errorf("the late rows produced %d new-message events, want 0 (they are the baseline)", n)
	}
}

// Checklist 3, 4, 11, 12 on the demo content.
func TestSimDemoRowsParseWithFlagsQuotesAndOddLabels(t *testing.T) {
	e := startSim(t, sim.Options{})
	mark := e.mark()
	fam := e.openConv(sim.DemoFamily)
	// Both photo rows carry their image once it loaded (at once, or as an update).
	msgs := e.settled(mark, fam, func(ms []protocol.Message) bool {
		n := 0
		for _, m := range ms {
			n += len(m.Images)
		}
		return n >= 2
	})
	if m := byText(msgs, "Look at the view from the hike!"); m == nil || len(m.Images) != 1 || !strings.HasPrefix(m.Images[0].Src, "blob:") || m.Sender != "Dad" {
		t.Errorf("text+image row: %s", dump(m))
	}
	imageOnly, video := 0, 0
	for _, m := range msgs {
		if m.Text == "" && len(m.Images) == 1 && m.Sender == "Dad" {
			imageOnly++
		}
		if m.Unsupported {
			video++
			// The group's video row has no label; the page draws Dad's name beside it.
			if m.Sender != "Dad" || m.Direction != "in" {
				t.Errorf("group video row reported from %q (%s), want Dad, incoming", m.Sender, m.Direction)
			}
		}
	}
	if imageOnly != 1 || video != 1 {
		t.Errorf("family: %d image-only rows and %d unsupported rows, want 1 and 1: %s", imageOnly, video, dump(msgs))
	}
	if len(msgs) != 8 {
		t.Errorf("family has %d messages, want 8 (tombstone skipped, video kept as unsupported): %s", len(msgs), dump(msgs))
	}
	reply := byText(msgs, "Where was this?")
	if reply == nil || reply.Sender != "Mom" || reply.Quote == nil || reply.Quote.Text != "Look at the view from the hike!" || reply.Quote.Sender != "Dad" {
		t.Errorf("quoted reply: %s", dump(reply))
	}
	if own := byText(msgs, "[clanker] Sweet, see you then"); own == nil || !own.OwnClanker || own.Direction != "out" ||
		len(own.Reactions) != 1 || own.Reactions[0].Reaction != "love" {
		t.Errorf("own clanker row with reaction: %s", dump(own))
	}

	jane := e.openConv(sim.DemoJane)
	if m := byText(jane.Messages, "The receipt says. Received on Tuesday, weird"); m == nil {
		t.Errorf("text containing '. Received on' was cut: %s", dump(jane.Messages))
	}
	if m := byText(jane.Messages, "See you at 7."); m == nil {
		t.Errorf("trailing period lost: %s", dump(jane.Messages))
	}
	if m := byText(jane.Messages, "Shopping list:\n- tortillas\n- limes\n- cilantro"); m == nil {
		t.Errorf("multi-line text lost: %s", dump(jane.Messages))
	}

	bob := e.openConv(sim.DemoBob)
	if m := byText(bob.Messages, "[clanker] Bob's bot here. Bob is thinking of a comedy."); m == nil || !m.OtherClanker || m.OwnClanker {
		t.Errorf("another user's clanker row: %s", dump(bob.Messages))
	}

	phone := e.openConv(sim.DemoPhone)
	m := byText(phone.Messages, "ok thanks")
	if m == nil || m.LabelKind != "time_only" || m.Sender != sim.DemoPhone || m.Direction != "in" || m.Timestamp == "" {
		t.Errorf("time-only label row: %s", dump(phone.Messages))
	}
}

// Checklist 5: automated (all-digit) senders in header and sidebar.
func TestSimShortCodeConversationIsMarkedAutomated(t *testing.T) {
	e := startSim(t, sim.Options{})
	c := e.openConv(sim.DemoShortCode)
	if strings.Join(c.Automated, ",") != sim.DemoShortCode || strings.Join(c.HeaderNames, ",") != sim.DemoShortCode {
		t.Errorf("short-code conversation: header %v automated %v", c.HeaderNames, c.Automated)
	}
	sb := e.waitFor(0, "sidebar", 5*time.Second, func(ev protocol.Event) bool { s, ok := ev.(protocol.Sidebar); return ok && s.Full }).(protocol.Sidebar)
	for _, it := range sb.Items {
		if it.Automated != (it.Name == sim.DemoShortCode) {
			t.Errorf("sidebar item %q automated=%v", it.Name, it.Automated)
		}
	}
}

// Checklist 6 and 9: a live incoming row once, and a background conversation's snippet diff.
func TestSimLiveRowIsNewOnceAndBackgroundSnippetIsADiff(t *testing.T) {
	e := startSim(t, sim.Options{})
	jane := e.conv(sim.DemoJane)
	e.openConv(sim.DemoJane)
	e.waitFor(0, "sidebar", 5*time.Second, func(ev protocol.Event) bool { _, ok := ev.(protocol.Sidebar); return ok })
	m := e.mark()
	live := e.deliver(jane.ID, sim.Message{From: sim.DemoJane, Text: "hey clanker, dinner at 8?"})
	e.waitNew(m, "Jane's live message", func(msg protocol.Message) bool { return msg.ID == live.ID })
	// Its label may come after the message was reported (then as an update).
	got := e.waitView(m, live.ID, "Jane's live message labelled", func(msg protocol.Message) bool { return msg.LabelKind != "none" })
	if got.Sender != sim.DemoJane || got.Direction != "in" || got.LabelKind != "full" || got.Text != "hey clanker, dinner at 8?" {
		t.Errorf("live row parsed as %s", dump(got))
	}
	bob := e.conv(sim.DemoBob)
	e.deliver(bob.ID, sim.Message{From: sim.DemoBob, Text: "clank, you there?"})
	sb := e.waitFor(m, "sidebar diff for Bob", 5*time.Second, func(ev protocol.Event) bool {
		s, ok := ev.(protocol.Sidebar)
		if !ok || s.Full {
			return false
		}
		for _, it := range s.Items {
			if it.ID == bob.ID && strings.Contains(it.Snippet, "clank, you there?") {
				return true
			}
		}
		return false
	}).(protocol.Sidebar)
	for _, it := range sb.Items {
		if it.ID == bob.ID && (!it.Unread || it.Outgoing) {
			t.Errorf("Bob's sidebar item %+v, want unread and not outgoing", it)
		}
	}
	if n := len(e.newMessages(m)); n != 1 {
		t.Errorf("%d new-message events, want 1 (the background message is not in the foreground)", n)
	}
}

// sendWithEnter inserts text through the bridge and presses a trusted Enter, as the
// desktop shell will.
func (e *simEnv) sendWithEnter(convID, text string) {
	e.t.Helper()
	e.mustOK(protocol.InsertText{ConversationID: convID, Text: text})
	e.mustOK(protocol.FocusCompose{})
	browser.Run(e.t, e.ctx, "trusted Enter",
		input.DispatchKeyEvent(input.KeyDown).WithKey("Enter").WithCode("Enter").WithWindowsVirtualKeyCode(13),
		input.DispatchKeyEvent(input.KeyUp).WithKey("Enter").WithCode("Enter").WithWindowsVirtualKeyCode(13))
}

// Checklist 7 and 10: Enter-to-send, then the tmp_ id becomes permanent in place and by
// replacement, each an id update, never a second new message.
func TestSimSentMessageTmpIDSwapsAreIDUpdates(t *testing.T) {
	e := startSim(t, sim.Options{ConfirmAfter: -1})
	jane := e.conv(sim.DemoJane)
	e.openConv(sim.DemoJane)
	for i, mode := range []sim.SwapMode{sim.SwapInPlace, sim.SwapReplace} {
		text := fmt.Sprintf("[clanker] reply %d (%s)", i, mode)
		m := e.mark()
		e.sendWithEnter(jane.ID, text)
		own := e.waitNew(m, "own sent row", func(msg protocol.Message) bool { return msg.Text == text })
		if !strings.HasPrefix(own.ID, "tmp_") || !own.OwnClanker {
			t.Errorf("sent row %s, want a tmp_ id and ownClanker", dump(own))
		}
		swaps, err := e.ctl.SwapPendingIDs(mode)
		if err != nil || len(swaps) != 1 {
			t.Fatalf("swap %s: %v %v", mode, swaps, err)
		}
		idc := e.waitFor(m, "message_id", 5*time.Second, func(ev protocol.Event) bool { _, ok := ev.(protocol.MessageID); return ok }).(protocol.MessageID)
		if idc.OldID != own.ID || strings.HasPrefix(idc.NewID, "tmp_") || idc.ConversationID != jane.ID {
			t.Errorf("%s swap reported as %+v, want %s -> permanent", mode, idc, own.ID)
		}
		// A later incoming row proves the observer is still running and nothing else came.
		e.deliver(jane.ID, sim.Message{From: sim.DemoJane, Text: fmt.Sprintf("ok %d", i)})
		e.waitNew(m, "next incoming", func(msg protocol.Message) bool { return msg.Text == fmt.Sprintf("ok %d", i) })
		if n := len(e.newMessages(m)); n != 2 {
			t.Errorf("%s swap: %d new-message events, want 2 (the send and the reply)", mode, n)
		}
	}
	sent, _ := e.ctl.Sent()
	if len(sent) != 2 || !sent[0].Trusted {
		t.Errorf("simulator logged sends %+v, want 2 trusted", sent)
	}
}

// Checklist 10: a draft in the textarea (.value) is never overwritten, and a conversation
// switch during typing makes the next step fail instead of typing into the other chat.
func TestSimDraftBlocksInsertAndASwitchStopsTyping(t *testing.T) {
	e := startSim(t, sim.Options{})
	jane := e.conv(sim.DemoJane)
	bob := e.conv(sim.DemoBob)
	e.openConv(sim.DemoJane)
	e.mustOK(protocol.TypeStep{ConversationID: jane.ID, Text: "[clanker] "})
	m := e.mark()
	if err := e.ctl.ClickConversation(bob.ID); err != nil {
		t.Fatal(err)
	}
	e.waitConversation(m, bob.ID)
	if r := e.do(protocol.TypeStep{ConversationID: jane.ID, Text: "x"}); r.OK || r.Code != "wrong_conversation" {
		t.Errorf("type_step for Jane after the user opened Bob = %+v, want wrong_conversation", r)
	}
	if err := e.ctl.UserTypesDraft("my own words"); err != nil {
		t.Fatal(err)
	}
	browser.WaitJS(t, e.ctx, `document.querySelector('[data-e2e-message-input-box]').value === 'my own words'`, minWait)
	r := e.do(protocol.InsertText{ConversationID: bob.ID, Text: "[clanker] hi"})
	if r.OK || r.Code != "user_typing" {
		t.Errorf("insert_text over the user's draft = %+v, want user_typing", r)
	}
	var v string
	eval(t, e.ctx, `document.querySelector('[data-e2e-message-input-box]').value`, &v)
	if v != "my own words" {
		t.Errorf("draft became %q", v)
	}
}

// Checklist 8: older rows loaded at the top are history, never new.
func TestSimScrollBackRowsAreHistory(t *testing.T) {
	e := startSim(t, sim.Options{})
	c := e.openConv(sim.DemoBookClub)
	if len(c.Messages) != 35 {
		t.Errorf("book club baseline has %d rows, want the 35-row window", len(c.Messages))
	}
	m := e.mark()
	if err := e.ctl.LoadOlder(10); err != nil {
		t.Fatal(err)
	}
	got := 0
	testkit.Poll(minWait, func() (bool, string) {
		got = 0
		for _, ev := range e.since(m) {
			if h, ok := ev.Event.(protocol.History); ok {
				got += len(h.Messages)
			}
		}
		return got >= 10, ""
	})
	if got != 10 {
		t.Fatalf("history events carried %d rows, want 10; events: %s", got, summary(e.since(m)))
	}
	if n := len(e.newMessages(m)); n != 0 {
		t.Errorf("scroll-back produced %d new-message events, want 0", n)
	}
	// A new row after scroll-back is new again.
	e.deliver(e.conv(sim.DemoBookClub).ID, sim.Message{From: "Ana", Text: "back to chapter 12"})
	e.waitNew(m, "new row after scroll-back", func(msg protocol.Message) bool { return msg.Text == "back to chapter 12" })
}

func TestSimContentEditableComposeBox(t *testing.T) {
	e := startSim(t, sim.Options{Variants: []sim.Variant{sim.VariantContentEditable}, ConfirmAfter: -1})
	jane := e.conv(sim.DemoJane)
	e.openConv(sim.DemoJane)
	m := e.mark()
	e.sendWithEnter(jane.ID, "[clanker] typed into a div")
	e.waitNew(m, "sent row", func(msg protocol.Message) bool { return msg.Text == "[clanker] typed into a div" && msg.OwnClanker })
	if err := e.ctl.UserTypesDraft("mine"); err != nil {
		t.Fatal(err)
	}
	browser.WaitJS(t, e.ctx, `document.querySelector('[data-e2e-message-input-box]').textContent === 'mine'`, minWait)
	if r := e.do(protocol.InsertText{ConversationID: jane.ID, Text: "[clanker] no"}); r.OK || r.Code != "user_typing" {
		t.Errorf("insert_text over a contenteditable draft = %+v, want user_typing", r)
	}
}

func TestSimUnrecognisedAndSignedOutPages(t *testing.T) {
	e := startSim(t, sim.Options{Variants: []sim.Variant{sim.VariantUnrecognised}})
	e.open(e.s.AppURL())
	e.waitState(0, "loading", 5*time.Second)
	e.mustOK(protocol.Configure{UnrecognisedGraceMs: 1000})
	e.waitState(0, "unrecognised", 5*time.Second)
	if n := e.count(0, "conversation"); n != 0 {
		t.Errorf("unrecognised page produced %d conversation events", n)
	}
	if err := e.ctl.SetVariant(sim.VariantSignedOut); err != nil {
		t.Fatal(err)
	}
	m := e.mark()
	e.open(e.s.AppURL())
	e.waitState(m, "signed_out", 10*time.Second)
	st := e.do(protocol.RunSelfTest{})
	if !st.OK {
		t.Fatal(st)
	}
	res := e.waitFor(m, "self_test", 5*time.Second, func(ev protocol.Event) bool { _, ok := ev.(protocol.SelfTest); return ok }).(protocol.SelfTest)
	for _, r := range res.Results {
		if !r.OK {
			t.Errorf("signed-out self test: %s matched %d, expected %s", r.Key, r.Count, r.Expect)
		}
	}
}

func TestSimSelfTestPassesOnEveryKeySelector(t *testing.T) {
	e := startSim(t, sim.Options{})
	e.openConv(sim.DemoJane)
	res := e.waitFor(0, "self_test", 5*time.Second, func(ev protocol.Event) bool { _, ok := ev.(protocol.SelfTest); return ok }).(protocol.SelfTest)
	if len(res.Results) < 10 {
		t.Errorf("self test checked %d selectors", len(res.Results))
	}
	for _, r := range res.Results {
		if !r.OK {
			t.Errorf("self test on the simulator: %s (%s) matched %d, expected %s", r.Key, r.Selector, r.Count, r.Expect)
		}
	}
}

func TestSimFetchImageReturnsThePhotoBytes(t *testing.T) {
	e := startSim(t, sim.Options{})
	mark := e.mark()
	fam := e.openConv(sim.DemoFamily)
	msgs := e.settled(mark, fam, func(ms []protocol.Message) bool {
		p := byText(ms, "Look at the view from the hike!")
		return p != nil && len(p.Images) > 0
	})
	photo := byText(msgs, "Look at the view from the hike!")
	if photo == nil || len(photo.Images) == 0 {
		t.Fatalf("no photo row: %s", dump(msgs))
	}
	m := e.mark()
	id := e.send(protocol.FetchImage{Src: photo.Images[0].Src})
	r := e.result(m, id)
	if !r.OK {
		t.Fatalf("fetch_image: %s %s", r.Code, r.Error)
	}
	var data []byte
	for _, ev := range e.since(m) {
		if c, ok := ev.Event.(protocol.ImageChunk); ok && c.ID == id {
			b, _ := base64.StdEncoding.DecodeString(c.Data)
			data = append(data, b...)
		}
	}
	if !bytes.HasPrefix(data, []byte{0xFF, 0xD8}) {
		t.Errorf("fetched %d bytes, want a JPEG (FF D8 ...)", len(data))
	}
}

func TestSimReactionOnAKnownRowIsAMessageUpdateNotANewMessage(t *testing.T) {
	e := startSim(t, sim.Options{})
	jane := e.conv(sim.DemoJane)
	c := e.openConv(sim.DemoJane)
	var target *protocol.Message
	for i := range c.Messages {
		if c.Messages[i].OwnClanker {
			target = &c.Messages[i]
		}
	}
	if target == nil {
		t.Fatalf("no own clanker row in %s", dump(c.Messages))
	}
	m := e.mark()
	e.deliver(jane.ID, sim.Message{Reaction: &sim.Reaction{Target: target.ID, From: sim.DemoJane, Kind: "love"}})
	up := e.waitFor(m, "message_update", 10*time.Second, func(ev protocol.Event) bool { _, ok := ev.(protocol.MessageUpdate); return ok }).(protocol.MessageUpdate)
	var kinds []string
	for _, r := range up.Message.Reactions {
		kinds = append(kinds, r.Reaction)
	}
	if up.Message.ID != target.ID || strings.Join(kinds, ",") != "laugh,love" || up.Message.Text != target.Text {
		t.Errorf("update %s, want %s with reactions laugh,love", dump(up), target.ID)
	}
	if n := len(e.newMessages(m)); n != 0 {
		t.Errorf("a reaction produced %d new-message events, want 0", n)
	}
}

// The conversation list is reported as soon as the page has drawn it, on the landing page
// with nothing opened: it is the baseline new messages elsewhere are told from. A list
// first reported only with the first new message would carry that message as baseline,
// and Clanker would not notify about it (the app waiting hidden in the tray after a login
// start sees exactly this page).
func TestSimSidebarBaselineIsReportedBeforeAnyNewMessage(t *testing.T) {
	e := startSim(t, sim.Options{})
	// The page draws its list late, well after the bridge's first look (which finds no
	// list): the simulator holds it back until the page has been unrecognised for a while.
	if err := e.ctl.HoldPages(); err != nil {
		t.Fatal(err)
	}
	e.open(e.s.AppURL())
	e.waitState(0, "loading", 10*time.Second)
	e.mustOK(protocol.Configure{UnrecognisedGraceMs: 1000})
	e.waitState(0, "unrecognised", 10*time.Second)
	if n := e.count(0, "sidebar"); n != 0 {
		t.Fatalf("%d sidebar reports before the page drew a list", n)
	}
	if err := e.ctl.ReleasePages(); err != nil {
		t.Fatal(err)
	}
	e.waitState(0, "no_conversation", 10*time.Second)
	sb := e.waitFor(0, "the first sidebar report", 10*time.Second, func(ev protocol.Event) bool {
		s, ok := ev.(protocol.Sidebar)
		return ok && s.Full && len(s.Items) > 0
	}).(protocol.Sidebar)
	jane := e.conv(sim.DemoJane)
	m := e.mark()
	e.deliver(jane.ID, sim.Message{From: sim.DemoJane, Text: "a new one on the landing page"})
	got := e.waitFor(m, "the sidebar change", 10*time.Second, func(ev protocol.Event) bool {
		s, ok := ev.(protocol.Sidebar)
		return ok && len(s.Items) > 0
	}).(protocol.Sidebar)
	if got.Full || got.Items[0].ID != jane.ID || got.Items[0].Snippet == "" {
		t.Fatalf("after the baseline (%d rows) the new message came as %s; want a change of Jane's row", len(sb.Items), dump(got))
	}
}

// Someone writing for the first time: the page draws their conversation above the rows it
// listed, and the bridge marks that row aboveKnown. A row that comes in below every known
// row (scrolling or loading more) is not marked, however unread.
func TestSimFirstTimeWritersRowIsMarkedAboveKnownAndARowAddedBelowIsNot(t *testing.T) {
	e := startSim(t, sim.Options{})
	e.open(e.s.AppURL())
	e.waitFor(0, "the first sidebar report", 10*time.Second, func(ev protocol.Event) bool {
		s, ok := ev.(protocol.Sidebar)
		return ok && s.Full && len(s.Items) > 0
	})
	item := func(mark int, what, id string) protocol.SidebarItem {
		t.Helper()
		var found protocol.SidebarItem
		e.waitFor(mark, what, 10*time.Second, func(ev protocol.Event) bool {
			s, ok := ev.(protocol.Sidebar)
			if !ok || s.Full {
				return false
			}
			for _, it := range s.Items {
				if it.ID == id && it.Snippet != "" {
					found = it
					return true
				}
			}
			return false
		})
		return found
	}
	m := e.mark()
	zoe, err := e.ctl.CreateConversation(sim.NewConversation{Participants: []string{"Zoe"}})
	if err != nil {
		t.Fatal(err)
	}
	e.deliver(zoe.ID, sim.Message{From: "Zoe", Text: "hi, it's Zoe from the climbing gym"})
	if it := item(m, "Zoe's new row", zoe.ID); !it.AboveKnown || !it.Unread {
		t.Errorf("the first-time writer's row came as %s; want unread and aboveKnown", dump(it))
	}
	// A known row's change is not marked.
	bob := e.conv(sim.DemoBob)
	m = e.mark()
	e.deliver(bob.ID, sim.Message{From: sim.DemoBob, Text: "still there?"})
	if it := item(m, "Bob's changed row", bob.ID); it.AboveKnown {
		t.Errorf("a known row's change came marked: %s", dump(it))
	}
	// An unread row the page adds at the bottom of the list, as loading more does.
	m = e.mark()
	var ok bool
	browser.Run(t, e.ctx, "add a row at the bottom of the list", chromedp.Evaluate(`(() => {
		const nav = document.querySelector('mws-conversations-list nav');
		const last = nav && nav.lastElementChild;
		if (!last) return false;
		const row = last.cloneNode(true);
		const a = row.querySelector('a');
		a.setAttribute('href', '/web/conversations/987654');
		a.setAttribute('data-e2e-is-unread', 'true');
		row.querySelector('[data-e2e-conversation-name]').textContent = 'Old friend';
		row.querySelector('mws-conversation-snippet span').textContent = 'from months ago';
		nav.appendChild(row);
		return true;
	})()`, &ok))
	if !ok {
		t.Fatal("the simulator's list has no row to copy")
	}
	if it := item(m, "the row added at the bottom", "987654"); it.AboveKnown || !it.Unread {
		t.Errorf("the row added below the known rows came as %s; want unread, not aboveKnown", dump(it))
	}
}
