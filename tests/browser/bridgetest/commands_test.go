package bridgetest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	protocol "github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/tests/browser"
)

// nasty is text no encoding may lose or let escape: quotes, backslashes, a closing script
// tag, line and paragraph separators, NUL and other controls, emoji, lone-surrogate-looking
// escapes, template-literal syntax.
var nasty = "He said \"hi\" & 'bye' \\ \\\\n </script><script>window.__pwned=1</script> \u2028\u2029 \x00\x01\x1f\x7f " +
	"😀👍🏽 \\ud800 ${window.__pwned=1} `x` \r\n\t end"

func TestEncodedCommandsDeliverAnyTextByteForByte(t *testing.T) {
	srv := startFixture(t)
	b := newBrowser(t)
	ctx := b.Context()
	browser.Run(t, ctx, "open blank page", chromedp.Navigate(srv.URL+"/web/other"))
	// A stand-in entry point records exactly the string the encoded JS passes.
	eval(t, ctx, `window.__clanker = { command: function(s){ window.__got = s; } }, 1`, nil)
	for _, text := range []string{nasty, strings.Repeat("\u2028</script>", 300), "plain"} {
		js, err := protocol.EncodeCommand("c1", protocol.InsertText{ConversationID: "A", Text: text})
		if err != nil {
			t.Fatal(err)
		}
		eval(t, ctx, js, nil)
		var got string
		var pwned bool
		eval(t, ctx, `window.__got`, &got)
		eval(t, ctx, `!!window.__pwned`, &pwned)
		var cmd struct {
			Args protocol.InsertText `json:"args"`
		}
		if err := json.Unmarshal([]byte(got), &cmd); err != nil {
			t.Fatalf("page received %q, not the command JSON: %v", got, err)
		}
		if cmd.Args.Text != text {
			t.Errorf("text arrived as %q, want %q byte for byte", cmd.Args.Text, text)
		}
		if pwned {
			t.Fatal("text escaped the string literal and ran as script")
		}
	}
}

func TestInsertTypeAndClearTouchOnlyClankersText(t *testing.T) {
	for _, variant := range []struct{ name, query string }{{"textarea", ""}, {"contenteditable", "?ce=1"}} {
		t.Run(variant.name, func(t *testing.T) {
			h, _ := openFixture(t, "/web/conversations/CONV_A"+variant.query, atDocumentStart)
			h.waitConversation(0, "CONV_A")
			read := func() string {
				var s string
				eval(t, h.ctx, `(function(){var b=document.querySelector('[data-e2e-message-input-box]'); return b.value !== undefined ? b.value : b.innerText.replace(/\u00a0/g,' ').replace(/\n$/,'');})()`, &s)
				return s
			}
			text := "[clanker] Sure — tacos at 7? \"yes\" \\ </script> 😀"
			h.mustOK(protocol.InsertText{ConversationID: "CONV_A", Text: text})
			if got := read(); got != text {
				t.Fatalf("box holds %q after insert_text, want %q", got, text)
			}
			comp := h.do(protocol.ComposeState{})
			var cs protocol.Compose
			_ = json.Unmarshal(comp.Data, &cs)
			if cs.HasUserText || !cs.HasClankerText || cs.Kind != variant.name {
				t.Errorf("compose state after Clanker's insert = %+v, want Clanker's text, not the user's", cs)
			}
			h.mustOK(protocol.ClearInserted{})
			if got := read(); got != "" {
				t.Fatalf("box holds %q after clear_inserted, want empty", got)
			}
			// Typing steps build the text; a wrong conversation id is refused.
			for _, step := range []string{"[clanker] ", "h", "i"} {
				h.mustOK(protocol.TypeStep{ConversationID: "CONV_A", Text: step})
			}
			if got := read(); got != "[clanker] hi" {
				t.Fatalf("box holds %q after three typing steps, want %q", got, "[clanker] hi")
			}
			if r := h.do(protocol.TypeStep{ConversationID: "CONV_B", Text: "x"}); r.OK || r.Code != "wrong_conversation" {
				t.Errorf("type_step for another conversation = %+v, want wrong_conversation", r)
			}
			// The user types after Clanker's text: the next step is refused and clearing
			// removes exactly Clanker's text, keeping the user's.
			browser.Run(t, h.ctx, "user types", chromedp.Click(`[data-e2e-message-input-box]`, chromedp.ByQuery),
				chromedp.KeyEvent(kb.End), chromedp.SendKeys(`[data-e2e-message-input-box]`, " mine", chromedp.ByQuery))
			if r := h.do(protocol.TypeStep{ConversationID: "CONV_A", Text: "!"}); r.OK || r.Code != "user_typing" {
				t.Errorf("type_step after the user typed = %+v, want user_typing", r)
			}
			h.mustOK(protocol.ClearInserted{})
			if got := read(); got != " mine" {
				t.Errorf("after clear_inserted the box holds %q, want only the user's %q", got, " mine")
			}
			// With the user's draft present, insert_text refuses and changes nothing.
			r := h.do(protocol.InsertText{ConversationID: "CONV_A", Text: "[clanker] overwrite?"})
			if r.OK || r.Code != "user_typing" {
				t.Errorf("insert_text over a draft = %+v, want user_typing", r)
			}
			if got := read(); got != " mine" {
				t.Errorf("the user's draft became %q, want it untouched", got)
			}
			// Before the Enter: focus_compose refuses while anything of the user's is in the
			// box (the Enter would send it) and focuses a box holding only Clanker's text.
			if r := h.do(protocol.FocusCompose{}); r.OK || r.Code != "user_typing" {
				t.Errorf("focus_compose over the user's draft = %+v, want user_typing", r)
			}
			eval(t, h.ctx, `(function(){var b=document.querySelector('[data-e2e-message-input-box]'); if (b.value !== undefined) b.value=''; else b.textContent=''; return 1;})()`, nil)
			h.mustOK(protocol.InsertText{ConversationID: "CONV_A", Text: "[clanker] ready"})
			data := h.mustOK(protocol.FocusCompose{})
			if !strings.Contains(string(data), `"focused":true`) {
				t.Errorf("focus_compose data %s, want focused", data)
			}
			browser.Run(t, h.ctx, "user types after Clanker's text", chromedp.Click(`[data-e2e-message-input-box]`, chromedp.ByQuery),
				chromedp.KeyEvent(kb.End), chromedp.SendKeys(`[data-e2e-message-input-box]`, " and me", chromedp.ByQuery))
			if r := h.do(protocol.FocusCompose{}); r.OK || r.Code != "user_typing" {
				t.Errorf("focus_compose with the user's text after Clanker's = %+v, want user_typing", r)
			}
		})
	}
}

func TestSendButtonLabelsInTheComposeTextCountAsEmpty(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A?ce=1", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	eval(t, h.ctx, `document.querySelector('[data-e2e-message-input-box]').textContent = 'SMS RCS', 1`, nil)
	r := h.do(protocol.ComposeState{})
	var cs protocol.Compose
	_ = json.Unmarshal(r.Data, &cs)
	if cs.HasUserText {
		t.Errorf("compose with only %q counts as the user's text: %+v", "SMS RCS", cs)
	}
	h.mustOK(protocol.InsertText{ConversationID: "CONV_A", Text: "[clanker] ok"})
}

func TestComposeEventsFollowTheUsersDraft(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	browser.Run(t, h.ctx, "user types", chromedp.SendKeys(`[data-e2e-message-input-box]`, "draft", chromedp.ByQuery))
	h.waitFor(m, "compose with the user's text", 5*time.Second, func(e protocol.Event) bool {
		c, ok := e.(protocol.Compose)
		return ok && c.HasUserText && c.Focused && c.Kind == "textarea"
	})
}

func TestBadCommandsAreAnsweredWithAClearError(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	cases := []struct{ raw, id, want string }{
		{`not json`, "", "not valid JSON"},
		{`{"v":1,"id":"x1","type":"eval","args":{}}`, "x1", "unknown command type"},
		{`{"v":1,"id":"x2","type":"show_toast","args":{"text":"hi","onclick":"alert(1)"}}`, "x2", "unknown argument"},
		{`{"v":1,"id":"x3","type":"show_toast","args":{"text":5}}`, "x3", "must be a string"},
		{`{"v":1,"id":"x4","type":"insert_text","args":{"conversationId":"CONV_A","text":"` + strings.Repeat("a", 4001) + `"}}`, "x4", "longer than 4000"},
		{`{"v":2,"id":"x5","type":"snapshot"}`, "x5", "protocol version"},
		{`{"v":1,"id":"bad id","type":"snapshot"}`, "", "bad command id"},
		{`{"v":1,"id":"x6","type":"fetch_image","args":{"src":"blob:x","maxBytes":1.5}}`, "x6", "integer"},
	}
	for _, c := range cases {
		m := h.mark()
		lit, _ := json.Marshal(c.raw)
		eval(t, h.ctx, `window.__clanker.command(`+string(lit)+`), 1`, nil)
		r := h.waitFor(m, "result for "+c.raw[:min(len(c.raw), 40)], 5*time.Second, func(e protocol.Event) bool { _, ok := e.(protocol.Result); return ok }).(protocol.Result)
		if r.OK || r.Code != "bad_command" || r.ID != c.id || !strings.Contains(r.Error, c.want) {
			t.Errorf("command %.60s answered %+v, want bad_command for id %q mentioning %q", c.raw, r, c.id, c.want)
		}
	}
}

func TestFetchImageReturnsTheBlobBytesAndExplainsFailures(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	// 300 KiB of patterned bytes: more than three chunks.
	want := make([]byte, 300<<10)
	for i := range want {
		want[i] = byte(i*7 + i/251)
	}
	var src string
	eval(t, h.ctx, `(function(){var n=300*1024, a=new Uint8Array(n); for (var i=0;i<n;i++) a[i]=(i*7+Math.floor(i/251))&255;
		window.__blob = URL.createObjectURL(new Blob([a], {type:'image/png'})); return window.__blob;})()`, &src)
	m := h.mark()
	id := h.send(protocol.FetchImage{Src: src})
	r := h.result(m, id)
	if !r.OK {
		t.Fatalf("fetch_image failed: %s %s", r.Code, r.Error)
	}
	// Reassemble exactly as the desktop shell will.
	asm := protocol.NewImageAssembly(id)
	n := 0
	for _, e := range h.since(m) {
		if c, ok := e.Event.(protocol.ImageChunk); ok && c.ID == id {
			if err := asm.Add(c); err != nil {
				t.Fatalf("chunk %d refused: %v", c.Index, err)
			}
			n++
		}
	}
	got, mime, err := asm.Finish(r)
	if err != nil || mime != "image/png" || n != 4 || !bytes.Equal(got, want) {
		t.Fatalf("fetch_image gave %d bytes (%q) in %d chunks, err %v; want image/png, %d identical bytes in 4 chunks", len(got), mime, n, err, len(want))
	}
	if r := h.do(protocol.FetchImage{Src: src, MaxBytes: 1000}); r.OK || r.Code != "too_large" {
		t.Errorf("fetch_image over maxBytes = %+v, want too_large", r)
	}
	eval(t, h.ctx, `URL.revokeObjectURL(window.__blob), 1`, nil)
	if r := h.do(protocol.FetchImage{Src: src}); r.OK || r.Code != "image_gone" {
		t.Errorf("fetch_image of a revoked blob = %+v, want image_gone", r)
	}
	if r := h.do(protocol.FetchImage{Src: "https://example.com/x.png"}); r.OK || r.Code != "bad_source" {
		t.Errorf("fetch_image of a web URL = %+v, want bad_source", r)
	}
}

func TestPageStatesSignedOutNoConversationAndUnrecognised(t *testing.T) {
	srv := startFixture(t)
	b := newBrowser(t)
	h := newHost(t, b.Context(), atDocumentStart)
	browser.Run(t, h.ctx, "open landing", chromedp.Navigate(srv.URL+"/web/conversations"))
	h.waitState(0, "no_conversation", 5*time.Second)
	m := h.mark()
	browser.Run(t, h.ctx, "open pairing page", chromedp.Navigate(srv.URL+"/web/authentication"))
	h.waitState(m, "signed_out", 5*time.Second)
	m = h.mark()
	browser.Run(t, h.ctx, "open unknown page", chromedp.Navigate(srv.URL+"/web/other"))
	h.waitState(m, "loading", 5*time.Second)
	h.mustOK(protocol.Configure{UnrecognisedGraceMs: 600})
	h.waitState(m, "unrecognised", 5*time.Second)
	st := h.do(protocol.RunSelfTest{})
	if !st.OK {
		t.Fatalf("self_test command failed: %+v", st)
	}
	// SPA navigation from the landing page into a conversation is seen without a reload.
	m = h.mark()
	browser.Run(t, h.ctx, "open landing again", chromedp.Navigate(srv.URL+"/web/conversations"))
	h.waitState(m, "no_conversation", 5*time.Second)
	eval(t, h.ctx, `fx.open('CONV_B', 0), 1`, nil)
	h.waitConversation(m, "CONV_B")
}

// The user starts typing while Clanker types: Clanker's own steps never show up as the user's

// Clanker's partial text that a switch or a restart left in a box is in the box before this
// page load knew of it (Messages restores it as the conversation's draft), so the bridge holds
// no record of it. Named by Go, it is removed from the start of the box and the user's text
// after it stays exactly as typed; a name the box does not start with removes nothing, and
// without a name and a record nothing is removed either.
func TestClearInsertedRemovesNamedTextTheBridgeHasNoRecordOf(t *testing.T) {
	for _, variant := range []struct{ name, query string }{{"textarea", ""}, {"contenteditable", "?ce=1"}} {
		t.Run(variant.name, func(t *testing.T) {
			h, _ := openFixture(t, "/web/conversations/CONV_A"+variant.query, atDocumentStart)
			h.waitConversation(0, "CONV_A")
			read := func() string {
				var s string
				eval(t, h.ctx, `(function(){var b=document.querySelector('[data-e2e-message-input-box]'); return b.value !== undefined ? b.value : b.innerText.replace(/\u00a0/g,' ').replace(/\n$/,'');})()`, &s)
				return s
			}
			const left = "[clanker] sure, sev"
			browser.Run(t, h.ctx, "the restored draft and the user's typing", chromedp.Click(`[data-e2e-message-input-box]`, chromedp.ByQuery),
				chromedp.SendKeys(`[data-e2e-message-input-box]`, left+" ok", chromedp.ByQuery))
			if got := read(); got != left+" ok" {
				t.Fatalf("box holds %q before the test, want %q", got, left+" ok")
			}
			if r := h.do(protocol.ClearInserted{}); !r.OK || read() != left+" ok" {
				t.Fatalf("clear_inserted without a name or a record = %+v and the box holds %q; want ok and nothing removed", r, read())
			}
			if r := h.do(protocol.ClearInserted{Text: "[clanker] other"}); r.OK || r.Code != "not_found" {
				t.Errorf("clear_inserted naming text the box does not start with = %+v, want not_found", r)
			}
			if r := h.do(protocol.ClearInserted{Text: "ok"}); r.OK || r.Code != "not_found" {
				t.Errorf("clear_inserted naming text that is only inside the box = %+v, want not_found", r)
			}
			if got := read(); got != left+" ok" {
				t.Fatalf("a refused clear_inserted changed the box to %q", got)
			}
			h.mustOK(protocol.ClearInserted{Text: left})
			if got := read(); got != " ok" {
				t.Fatalf("after clear_inserted naming %q the box holds %q, want only the user's %q", left, got, " ok")
			}
		})
	}
}

// text, the user's keys do at once, and taking Clanker's partial text out leaves the user's
// characters exactly as typed with the caret where they left it, so the next key lands after
// them.
func TestUserTypingDuringClankersTypingKeepsTheirTextAndCaret(t *testing.T) {
	for _, variant := range []struct{ name, query string }{{"textarea", ""}, {"contenteditable", "?ce=1"}} {
		t.Run(variant.name, func(t *testing.T) {
			h, _ := openFixture(t, "/web/conversations/CONV_A"+variant.query, atDocumentStart)
			h.waitConversation(0, "CONV_A")
			read := func() string {
				var s string
				eval(t, h.ctx, `(function(){var b=document.querySelector('[data-e2e-message-input-box]'); return b.value !== undefined ? b.value : b.innerText.replace(/\u00a0/g,' ').replace(/\n$/,'');})()`, &s)
				return s
			}
			m := h.mark()
			for _, step := range []string{"[clanker] ", "s", "u", "r"} {
				h.mustOK(protocol.TypeStep{ConversationID: "CONV_A", Text: step})
			}
			for _, env := range h.since(m) {
				if c, ok := env.Event.(protocol.Compose); ok && c.HasUserText {
					t.Fatalf("Clanker's own typing was reported as the user's text: %+v (events: %s)", c, summary(h.since(m)))
				}
			}
			m = h.mark()
			browser.Run(t, h.ctx, "user types", chromedp.Click(`[data-e2e-message-input-box]`, chromedp.ByQuery),
				chromedp.KeyEvent(kb.End), chromedp.SendKeys(`[data-e2e-message-input-box]`, "no", chromedp.ByQuery))
			h.waitFor(m, "compose with the user's text", 5*time.Second, func(e protocol.Event) bool {
				c, ok := e.(protocol.Compose)
				return ok && c.HasUserText
			})
			h.mustOK(protocol.ClearInserted{})
			if got := read(); got != "no" {
				t.Fatalf("after clear_inserted the box holds %q, want only the user's %q", got, "no")
			}
			browser.Run(t, h.ctx, "user keeps typing", chromedp.SendKeys(`[data-e2e-message-input-box]`, "pe", chromedp.ByQuery))
			if got := read(); got != "nope" {
				t.Fatalf("the user's next keys made %q, want %q (caret kept after their text)", got, "nope")
			}
			if r := h.do(protocol.TypeStep{ConversationID: "CONV_A", Text: "x"}); r.OK || r.Code != "user_typing" {
				t.Errorf("type_step over the user's draft = %+v, want user_typing", r)
			}
		})
	}
}

// A visit is Clanker's idea, not the user's: while the user is using the window (a trusted
// key or click a moment ago, or text of theirs in the box) the page refuses a navigate marked
// as a visit and changes nothing, and takes it once they have been quiet. Script-made events
// are not the user's, a navigation that is not a visit (the user clicked a notification) is
// never held back, and Clanker's own text in the box does not count.
func TestAVisitWaitsWhileTheUserUsesTheWindow(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	path := func() string {
		var p string
		eval(t, h.ctx, `location.pathname`, &p)
		return p
	}
	goTo := func(id string, visit bool) {
		t.Helper()
		m := h.mark()
		h.mustOK(protocol.Navigate{ConversationID: id, Visit: visit})
		h.waitConversation(m, id)
	}
	refused := func(why string) {
		t.Helper()
		if r := h.do(protocol.Navigate{ConversationID: "CONV_B", Visit: true}); r.OK || r.Code != "user_active" {
			t.Fatalf("a visit %s = %+v, want user_active", why, r)
		}
		if p := path(); !strings.HasSuffix(p, "/CONV_A") {
			t.Fatalf("a refused visit %s moved the page to %s", why, p)
		}
	}
	// Script-made key and input events, and Clanker's own text, leave the way open.
	eval(t, h.ctx, `(function(){var b=document.querySelector('[data-e2e-message-input-box]');
		b.dispatchEvent(new KeyboardEvent('keydown',{key:'x',bubbles:true}));
		b.dispatchEvent(new Event('input',{bubbles:true})); return 1;})()`, nil)
	h.mustOK(protocol.InsertText{ConversationID: "CONV_A", Text: "[clanker] on my way"})
	goTo("CONV_B", true)
	goTo("CONV_A", false)

	// The quiet time is stretched so a slow machine cannot let it run out mid-test.
	h.mustOK(protocol.Configure{UserQuietMs: 120000})
	// A trusted click and key that leave the box empty: the user is there, about to type.
	browser.Run(t, h.ctx, "user clicks the box and presses a key", chromedp.Click(`[data-e2e-message-input-box]`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.End))
	refused("right after the user's click and key")
	// A navigation the user asked for is not a visit and goes at once.
	goTo("CONV_B", false)
	goTo("CONV_A", false)

	// Once the user has been quiet long enough the visit goes, unless their text is in the box.
	h.mustOK(protocol.Configure{UserQuietMs: 1})
	browser.Run(t, h.ctx, "user types a draft", chromedp.Click(`[data-e2e-message-input-box]`, chromedp.ByQuery),
		chromedp.SendKeys(`[data-e2e-message-input-box]`, "see you", chromedp.ByQuery))
	refused("with the user's draft in the box")
	browser.Run(t, h.ctx, "user clears the draft", chromedp.KeyEvent("a", chromedp.KeyModifiers(input.ModifierCtrl)), chromedp.KeyEvent(kb.Backspace))
	var box string
	eval(t, h.ctx, `document.querySelector('[data-e2e-message-input-box]').value`, &box)
	if box != "" {
		t.Fatalf("the box holds %q after the user cleared it", box)
	}
	goTo("CONV_B", true)
}
