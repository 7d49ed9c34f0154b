package simtest

import (
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/tests/browser"
)

var (
	tmpID  = regexp.MustCompile(`^tmp_\d{12}$`)
	uuidID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	sentOn = regexp.MustCompile(`^You said: hello from CDP\. Sent on February 3, 2026 at \d{1,2}:\d\d PM\. SMS\.$`)
)

const boxSel = `[data-e2e-message-input-box]`

func TestTrustedEnterSendsAndTheTmpIDBecomesPermanent(t *testing.T) {
	e := start(t, sim.Options{})
	fam := e.conv(sim.DemoFamily)
	e.openConv(fam.ID)

	browser.Run(t, e.ctx, "type and press Enter",
		chromedp.SendKeys(boxSel, "hello from CDP", chromedp.ByQuery),
		chromedp.KeyEvent(kb.Enter))

	e.wait(`[...document.querySelectorAll('mws-text-message-part')].some(p => (p.getAttribute('aria-label')||'').startsWith('You said: hello from CDP.'))`)
	rs := e.rows()
	last := rs[len(rs)-1]
	if !tmpID.MatchString(last.ID) {
		t.Errorf("new row id = %q, want a pending tmp_ id", last.ID)
	}
	if !sentOn.MatchString(last.TextLabel) {
		t.Errorf("new row label = %q, want %s", last.TextLabel, sentOn)
	}
	var draft string
	e.eval(`return document.querySelector('`+boxSel+`').value`, &draft)
	if draft != "" {
		t.Errorf("compose box after send = %q, want it cleared", draft)
	}
	if got := e.snippet(fam.ID); got != "You: hello from CDP" {
		t.Errorf("sidebar snippet = %q, want %q", got, "You: hello from CDP")
	}
	sent := e.sent()
	if len(sent) != 1 || !sent[0].Trusted || sent[0].Via != "enter" || sent[0].Conversation != fam.ID ||
		sent[0].Text != "hello from CDP" || sent[0].MessageID != last.ID {
		t.Errorf("send log = %+v, want one trusted enter send of %q in %s with id %s", sent, "hello from CDP", fam.ID, last.ID)
	}
	if rej := e.rejected(); len(rej) != 0 {
		t.Errorf("rejected log = %+v, want empty", rej)
	}

	// The default confirmation turns the tmp_ id into a UUID in place.
	e.wait(`(() => { const cs = document.querySelectorAll('mws-messages-list [data-e2e-message-wrapper-core]');
	  return /^[0-9a-f]{8}-/.test(cs[cs.length-1].getAttribute('data-e2e-message-id')); })()`)
	rs = e.rows()
	if got := rs[len(rs)-1].ID; !uuidID.MatchString(got) {
		t.Errorf("confirmed id = %q, want a v4 UUID", got)
	}
}

func TestTrustedClickOnSendButtonSends(t *testing.T) {
	e := start(t, sim.Options{})
	jane := e.conv(sim.DemoJane)
	e.openConv(jane.ID)
	browser.Run(t, e.ctx, "type and click send",
		chromedp.SendKeys(boxSel, "clicked send", chromedp.ByQuery),
		chromedp.Click(`[data-e2e-send-text-button]`, chromedp.ByQuery))
	waitFor(t, "a trusted click send in the log", func() bool { return len(e.sent()) == 1 })
	if s := e.sent()[0]; !s.Trusted || s.Via != "click" || s.Text != "clicked send" {
		t.Errorf("send = %+v, want trusted click of %q", s, "clicked send")
	}
	var label string
	e.eval(`return document.querySelector('[data-e2e-send-text-button]').textContent + '|' + document.querySelector('[data-e2e-send-text-button]').getAttribute('aria-label')`, &label)
	if label != "RCS|Send RCS" {
		t.Errorf("send button in an RCS conversation = %q, want %q", label, "RCS|Send RCS")
	}
	e.wait(`document.querySelector('a[href$="` + jane.ID + `"] mws-conversation-snippet span').textContent === 'You: clicked send'`)
}

func TestScriptClickAndDispatchedEnterAreRejectedAndLogged(t *testing.T) {
	e := start(t, sim.Options{})
	fam := e.conv(sim.DemoFamily)
	e.openConv(fam.ID)
	before := len(e.rows())

	browser.Run(t, e.ctx, "type a draft", chromedp.SendKeys(boxSel, "not from a person", chromedp.ByQuery))
	var ok bool
	browser.Run(t, e.ctx, "untrusted click and Enter", chromedp.Evaluate(`(() => {
	  document.querySelector('[data-e2e-send-text-button]').click();
	  const box = document.querySelector('`+boxSel+`');
	  box.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', code: 'Enter', keyCode: 13, bubbles: true, cancelable: true}));
	  return true; })()`, &ok))

	waitFor(t, "two rejected attempts", func() bool { return len(e.rejected()) == 2 })
	rej := e.rejected()
	vias := rej[0].Via + "," + rej[1].Via
	if vias != "click,enter" {
		t.Errorf("rejected vias = %q, want %q", vias, "click,enter")
	}
	for _, r := range rej {
		if r.Trusted || r.Conversation != fam.ID || r.Text != "not from a person" {
			t.Errorf("rejected entry = %+v, want untrusted, conversation %s, text %q", r, fam.ID, "not from a person")
		}
	}
	if s := e.sent(); len(s) != 0 {
		t.Errorf("send log = %+v, want nothing sent", s)
	}
	var draft string
	e.eval(`return document.querySelector('`+boxSel+`').value`, &draft)
	if draft != "not from a person" {
		t.Errorf("draft after rejected attempts = %q, want it untouched", draft)
	}
	if after := len(e.rows()); after != before {
		t.Errorf("rows after rejected attempts = %d, want %d (no new row)", after, before)
	}
}

func TestShiftEnterInsertsANewlineInsteadOfSending(t *testing.T) {
	e := start(t, sim.Options{})
	fam := e.conv(sim.DemoFamily)
	e.openConv(fam.ID)
	browser.Run(t, e.ctx, "type, Shift+Enter, type",
		chromedp.SendKeys(boxSel, "line one", chromedp.ByQuery),
		input.DispatchKeyEvent(input.KeyDown).WithKey("Enter").WithCode("Enter").
			WithWindowsVirtualKeyCode(13).WithModifiers(input.ModifierShift).WithText("\r"),
		input.DispatchKeyEvent(input.KeyUp).WithKey("Enter").WithCode("Enter").
			WithWindowsVirtualKeyCode(13).WithModifiers(input.ModifierShift),
		chromedp.SendKeys(boxSel, "line two", chromedp.ByQuery))
	var draft string
	e.eval(`return document.querySelector('`+boxSel+`').value`, &draft)
	if draft != "line one\nline two" {
		t.Errorf("draft = %q, want %q", draft, "line one\nline two")
	}
	if s, r := e.sent(), e.rejected(); len(s)+len(r) != 0 {
		t.Errorf("send log %+v, rejected %+v: want no send attempt for Shift+Enter", s, r)
	}
	// The multi-line draft then sends whole with a plain trusted Enter.
	browser.Run(t, e.ctx, "Enter", chromedp.KeyEvent(kb.Enter))
	waitFor(t, "the multi-line send", func() bool { return len(e.sent()) == 1 })
	if got := e.sent()[0].Text; got != "line one\nline two" {
		t.Errorf("sent text = %q, want the two lines", got)
	}
	e.wait(`[...document.querySelectorAll('mws-text-message-part')].some(p => (p.getAttribute('aria-label')||'').startsWith('You said: line one\nline two. Sent on'))`)
}

func TestContentEditableComposeVariantSendsOnTrustedEnter(t *testing.T) {
	e := start(t, sim.Options{Variants: []sim.Variant{sim.VariantContentEditable}})
	bob := e.conv(sim.DemoBob)
	e.openConv(bob.ID)
	var shape string
	e.eval(`const b = document.querySelector('[data-e2e-message-input] `+boxSel+`'); return b.tagName + ':' + b.getAttribute('contenteditable')`, &shape)
	if shape != "DIV:true" {
		t.Fatalf("compose box = %q, want a contenteditable DIV inside [data-e2e-message-input]", shape)
	}
	browser.Run(t, e.ctx, "type and Enter",
		chromedp.SendKeys(boxSel, "rich box", chromedp.ByQuery), chromedp.KeyEvent(kb.Enter))
	waitFor(t, "the send", func() bool { return len(e.sent()) == 1 })
	if s := e.sent()[0]; s.Text != "rich box" || !s.Trusted {
		t.Errorf("send = %+v, want trusted %q", s, "rich box")
	}
	var left string
	e.eval(`return document.querySelector('`+boxSel+`').textContent`, &left)
	if strings.TrimSpace(left) != "" {
		t.Errorf("contenteditable after send = %q, want empty", left)
	}
}
