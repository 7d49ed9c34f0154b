// Package simtest proves the Google Messages simulator (app/demo/sim) in headless Chromium: every
// DOM shape, timing and trust rule the bridge relies on is checked here against a real browser.
package simtest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/tests/browser"
	"github.com/clanker-desktop/clanker/tests/simctl"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// env is one simulator and one browser tab on it.
type env struct {
	t   *testing.T
	s   *simctl.Server
	ctl *simctl.Control
	b   *browser.Browser
	ctx context.Context
}

func start(t *testing.T, opts sim.Options) *env {
	t.Helper()
	s, err := simctl.Start(opts)
	if err != nil {
		t.Fatalf("start simulator: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	b := browser.New(t)
	// Leave the simulator page before the browser shuts down, so Chromium is not still writing
	// to its profile (an open event stream delays its exit) when the profile directory is removed.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(b.Context(), 5*time.Second)
		defer cancel()
		chromedp.Run(ctx, chromedp.Navigate("about:blank"))
		// Close the browser gracefully and wait for it, before the harness removes the profile.
		chromedp.Cancel(b.Context())
	})
	return &env{t: t, s: s, ctl: s.Control(), b: b, ctx: b.Context()}
}

// startIn starts a simulator and opens a tab for it in a browser shared by several
// subtests (each browser costs seconds to start).
func startIn(t *testing.T, b *browser.Browser, opts sim.Options) *env {
	t.Helper()
	s, err := simctl.Start(opts)
	if err != nil {
		t.Fatalf("start simulator: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := b.NewTab(t)
	t.Cleanup(func() {
		c, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		chromedp.Run(c, chromedp.Navigate("about:blank"))
	})
	return &env{t: t, s: s, ctl: s.Control(), b: b, ctx: ctx}
}

// open loads a page URL and waits until the simulator has rendered its state.
func (e *env) open(url string) {
	e.t.Helper()
	browser.Run(e.t, e.ctx, "navigate to "+url, chromedp.Navigate(url))
	e.wait(`document.body.getAttribute('data-sim-ready') === '1'`)
}

// openConv opens a conversation page and waits for its rows.
func (e *env) openConv(id string) {
	e.t.Helper()
	e.open(e.s.ConversationURL(id))
	e.wait(fmt.Sprintf(`document.body.getAttribute('data-sim-shown') === %q`, id))
}

func (e *env) conv(name string) sim.Conversation {
	e.t.Helper()
	c, err := e.ctl.ConversationByName(name)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

func (e *env) wait(expr string) {
	e.t.Helper()
	browser.WaitJS(e.t, e.ctx, expr, waitTimeout)
}

// eval runs JavaScript and decodes its JSON-able result into out.
func (e *env) eval(js string, out any) {
	e.t.Helper()
	var raw json.RawMessage
	browser.Run(e.t, e.ctx, "evaluate "+firstLine(js), chromedp.Evaluate(`JSON.stringify((()=>{`+js+`})())`, &raw))
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		e.t.Fatalf("evaluate %s: result %s is not a JSON string: %v", firstLine(js), raw, err)
	}
	if err := json.Unmarshal([]byte(s), out); err != nil {
		e.t.Fatalf("evaluate %s: decode %s: %v", firstLine(js), s, err)
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

// row is a message row as the DOM presents it.
type row struct {
	ID         string `json:"id"`
	TextLabel  string `json:"textLabel"`
	ImageLabel string `json:"imageLabel"`
	ImgSrc     string `json:"imgSrc"`
	Tombstone  bool   `json:"tombstone"`
	Parts      int    `json:"parts"`
	QuoteFirst bool   `json:"quoteFirst"`
}

// rowsJS lists the message cores in DOM order with their parts' labels.
const rowsJS = `return [...document.querySelectorAll('mws-messages-list [data-e2e-message-wrapper-core]')].map(c => {
  const tps = [...c.querySelectorAll('mws-text-message-part')];
  const own = tps.filter(p => !p.closest('.embed-msg-part-container'));
  const ip = c.querySelector('mws-image-message-part');
  const img = ip && ip.querySelector('img');
  return {id: c.getAttribute('data-e2e-message-id'),
    textLabel: own.length ? (own[0].getAttribute('aria-label') || '') : '',
    imageLabel: ip ? (ip.getAttribute('aria-label') || '') : '',
    imgSrc: img ? img.src : '',
    tombstone: c.hasAttribute('data-e2e-message-tombstone') || !!c.closest('[data-e2e-message-tombstone]'),
    parts: c.querySelectorAll('mws-text-message-part, mws-image-message-part').length,
    quoteFirst: tps.length > 1 && !!tps[0].closest('.embed-msg-part-container')};
});`

func (e *env) rows() []row {
	e.t.Helper()
	var rs []row
	e.eval(rowsJS, &rs)
	return rs
}

func (e *env) snippet(conv string) string {
	e.t.Helper()
	var s string
	e.eval(fmt.Sprintf(`const a = document.querySelector('a[data-e2e-conversation][href="/web/conversations/%s"]');
return a ? a.querySelector('mws-conversation-snippet span').textContent : '<no item>';`, conv), &s)
	return s
}

func (e *env) sent() []sim.Send {
	e.t.Helper()
	s, err := e.ctl.Sent()
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

func (e *env) rejected() []sim.Send {
	e.t.Helper()
	s, err := e.ctl.Rejected()
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// waitFor polls a Go condition (e.g. on the control API's logs) with a deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testkit.Until(t, waitTimeout, what, cond)
}

// sendKeys types text into the compose box and presses Enter, as trusted CDP input.
func sendKeys(text string) []chromedp.Action {
	return []chromedp.Action{chromedp.SendKeys(`[data-e2e-message-input-box]`, text, chromedp.ByQuery), chromedp.KeyEvent(kb.Enter)}
}

// waitTimeout bounds every condition wait. It is generous on purpose: a condition that holds
// ends the wait at once, and CI runs these tests beside others on two cores under the race
// detector, where drawing the 12-megapixel photo alone can take many seconds.
const waitTimeout = 60 * time.Second
