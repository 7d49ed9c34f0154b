package simtest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/tests/browser"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

func TestSPANavigationBySidebarClickPushStateAndBack(t *testing.T) {
	e := start(t, sim.Options{})
	fam, jane, bob := e.conv(sim.DemoFamily), e.conv(sim.DemoJane), e.conv(sim.DemoBob)
	e.open(e.s.AppURL())

	// A trusted click on a sidebar link opens the conversation without a page load.
	var ok bool
	e.eval(`window.__samePage = true; return true;`, &ok)
	browser.Run(t, e.ctx, "click the family conversation",
		chromedp.Click(fmt.Sprintf(`a[data-e2e-conversation][href="/web/conversations/%s"]`, fam.ID), chromedp.ByQuery))
	e.wait(fmt.Sprintf(`document.body.getAttribute('data-sim-shown') === %q`, fam.ID))
	var st struct {
		Path, Selected string
		Same           bool
	}
	e.eval(fmt.Sprintf(`return {Path: location.pathname, Same: window.__samePage === true,
	  Selected: document.querySelector('a[href$="%s"]').getAttribute('aria-selected')}`, fam.ID), &st)
	if st.Path != "/web/conversations/"+fam.ID || !st.Same || st.Selected != "true" {
		t.Errorf("after sidebar click: %+v; want path of %s, same document, aria-selected true", st, fam.ID)
	}
	waitFor(t, "the page to report the open conversation", func() bool {
		s, _ := e.ctl.Status()
		return s.OpenConversation == fam.ID
	})

	// A script .click() (what Clanker does) navigates too, and the old rows leave synchronously
	// with the URL change: nothing of the previous conversation is left to be adopted.
	var sync struct {
		Path  string
		Cores int
	}
	e.eval(fmt.Sprintf(`document.querySelector('a[href$="%s"]').click();
	  return {Path: location.pathname, Cores: document.querySelectorAll('[data-e2e-message-wrapper-core]').length};`, jane.ID), &sync)
	if sync.Path != "/web/conversations/"+jane.ID || sync.Cores != 0 {
		t.Errorf("in the click's own task: path %q with %d cores; want the new path and no rows yet", sync.Path, sync.Cores)
	}
	e.wait(fmt.Sprintf(`document.body.getAttribute('data-sim-shown') === %q`, jane.ID))
	janeMsgs, _ := e.ctl.Messages(jane.ID)
	rows := e.rows()
	if len(rows) != len(janeMsgs) || rows[0].ID != janeMsgs[0].ID {
		t.Errorf("after switching: %d rows starting %v; want Jane's %d rows", len(rows), rows, len(janeMsgs))
	}

	// The control API's ClickConversation goes through the same sidebar link.
	if err := e.ctl.ClickConversation(bob.ID); err != nil {
		t.Fatal(err)
	}
	e.wait(fmt.Sprintf(`document.body.getAttribute('data-sim-shown') === %q && location.pathname.endsWith(%q)`, bob.ID, bob.ID))

	// Back (popstate) walks the history: Jane, family, then the landing page with nothing selected.
	for _, want := range []string{jane.ID, fam.ID} {
		browser.Run(t, e.ctx, "history back", chromedp.Evaluate(`history.back()`, nil))
		e.wait(fmt.Sprintf(`location.pathname.endsWith(%q) && document.body.getAttribute('data-sim-shown') === %q`, want, want))
		var header string
		e.eval(`return [...document.querySelectorAll('[data-e2e-header-title] h2')].map(h => h.textContent).join(', ')`, &header)
		if c := e.conv(header); c.ID != want {
			t.Errorf("after back: header %q belongs to %s, want %s", header, c.ID, want)
		}
	}
	browser.Run(t, e.ctx, "history back to landing", chromedp.Evaluate(`history.back()`, nil))
	e.wait(`location.pathname === '/web/conversations' && !document.querySelector('[data-e2e-conversation-container]')`)
	var sel int
	e.eval(`return document.querySelectorAll('a[data-e2e-conversation][aria-selected="true"]').length`, &sel)
	if sel != 0 {
		t.Errorf("landing page has %d selected sidebar items, want 0", sel)
	}
	e.eval(`return window.__samePage === true`, &ok)
	if !ok {
		t.Error("navigation reloaded the document; want SPA navigation throughout")
	}
}

func TestSignInPopupOnTheAccountsOriginCompletesSignIn(t *testing.T) {
	e := start(t, sim.Options{Variants: []sim.Variant{sim.VariantSignedOut}})
	e.open(e.s.AppURL())
	var page struct {
		Path         string
		QR, Sidebar  int
		ButtonText   string
		AccountsHost string
	}
	e.eval(`return {Path: location.pathname, QR: document.querySelectorAll('mw-qr-code').length,
	  Sidebar: document.querySelectorAll('mws-conversations-list').length,
	  ButtonText: document.querySelector('#sim-signin').textContent}`, &page)
	if page.Path != "/web/authentication" || page.QR != 1 || page.Sidebar != 0 || page.ButtonText != "Sign in with Google" {
		t.Fatalf("signed-out page = %+v, want the pairing page at /web/authentication with a QR code and the sign-in button", page)
	}

	// A sign-in message from the wrong origin (the page itself) is ignored.
	var ok bool
	e.eval(`window.addEventListener('message', () => { window.__forgedSeen = true; });
	  window.postMessage({type: 'sim-signin', account: 'mallory'}, '*'); return true;`, &ok)
	e.wait(`window.__forgedSeen === true`)
	if st, _ := e.ctl.Status(); st.SignedIn {
		t.Fatal("a same-origin forged sign-in message signed the page in")
	}

	browser.Run(t, e.ctx, "click Sign in with Google", chromedp.Click(`#sim-signin`, chromedp.ByQuery))
	e.wait(`location.pathname === '/web/conversations' && document.body.getAttribute('data-sim-ready') === '1' && !!document.querySelector('mws-conversations-list a[data-e2e-conversation]')`)
	st, err := e.ctl.Status()
	if err != nil {
		t.Fatal(err)
	}
	if !st.SignedIn || st.SignInOrigin != e.s.AccountsURL() || strings.HasPrefix(e.s.AccountsURL(), e.s.URL()) {
		t.Errorf("status = %+v, want signed in by a message from the accounts origin %s (not %s)", st, e.s.AccountsURL(), e.s.URL())
	}
	// The popup closed itself: only the app's tab is left.
	testkit.WaitFor(t, waitTimeout, "the popup to close (1 page target left)", func() (bool, string) {
		infos, err := chromedp.Targets(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages := 0
		for _, in := range infos {
			if in.Type == "page" {
				pages++
			}
		}
		return pages == 1, fmt.Sprintf("%d page targets", pages)
	})
}

// knownSelectors are every selector Clanker and its peers rely on; the unrecognised variant has none.
const knownSelectors = `mw-main-nav, mws-conversations-list, mws-conversation-list-item, [data-e2e-conversation],
 [data-e2e-conversation-name], mws-conversation-snippet, [data-e2e-conversation-container], [data-e2e-header-title],
 mws-messages-list, [data-e2e-message-wrapper], [data-e2e-message-wrapper-core], [data-e2e-message-id],
 mws-text-message-part, mws-image-message-part, [data-e2e-message-input], [data-e2e-message-input-box],
 [data-e2e-send-text-button], mw-qr-code`

func TestUnrecognisedVariantShowsContentWithNoKnownSelectors(t *testing.T) {
	e := start(t, sim.Options{})
	fam := e.conv(sim.DemoFamily)
	e.openConv(fam.ID)
	if err := e.ctl.SetVariant(sim.VariantUnrecognised); err != nil {
		t.Fatal(err)
	}
	e.wait(`document.querySelectorAll('.u-msg').length > 0`)
	var got struct {
		Known int
		Text  string
	}
	e.eval(`return {Known: document.querySelectorAll(`+"`"+knownSelectors+"`"+`).length, Text: document.body.innerText}`, &got)
	if got.Known != 0 {
		t.Errorf("unrecognised page has %d elements matching known selectors, want 0", got.Known)
	}
	if !strings.Contains(got.Text, "Are you coming for dinner Sunday?") {
		t.Errorf("unrecognised page text lacks the conversation's messages:\n%s", got.Text)
	}
	// Switching back restores the normal page in place.
	if err := e.ctl.SetVariant(); err != nil {
		t.Fatal(err)
	}
	e.wait(fmt.Sprintf(`document.body.getAttribute('data-sim-shown') === %q && document.querySelectorAll('[data-e2e-message-wrapper-core]').length > 0`, fam.ID))
}

func TestSlowVariantKeepsTheConversationEmptyForThreeSeconds(t *testing.T) {
	e := start(t, sim.Options{Variants: []sim.Variant{sim.VariantSlow}})
	fam := e.conv(sim.DemoFamily)
	// The page itself records what it showed and when (page time since navigation start),
	// so the checks hold however late this test gets to look on a loaded machine.
	browser.Run(t, e.ctx, "install the row watcher", chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(`new MutationObserver(() => {
		  if (window.__firstRowAt !== undefined) return;
		  const list = document.querySelector('[data-e2e-conversation-container] mws-messages-list');
		  if (!list) return;
		  if (!document.querySelector('[data-e2e-message-wrapper-core]')) { window.__emptyPane = true; return; }
		  window.__firstRowAt = performance.now();
		}).observe(document, {childList: true, subtree: true});`).Do(ctx)
		return err
	}))
	e.open(e.s.ConversationURL(fam.ID))
	e.wait(`window.__firstRowAt !== undefined`)
	var at struct {
		EmptyPane  bool
		FirstRowAt float64
	}
	e.eval(`return {EmptyPane: !!window.__emptyPane, FirstRowAt: window.__firstRowAt}`, &at)
	if !at.EmptyPane {
		t.Errorf("the conversation pane never showed an empty message list before its rows")
	}
	// The delay is a timer the page starts after navigation began, and timers never fire
	// early: the rows cannot appear sooner than 3 s into the page's life (50 ms allows for
	// timer clamping). Later is always fine.
	if at.FirstRowAt < 2950 {
		t.Errorf("rows appeared %.0f ms after navigation started, want no sooner than the 3 s slow delay", at.FirstRowAt)
	}
}

func TestResetReRendersTheOpenPageWithTheStartState(t *testing.T) {
	e := start(t, sim.Options{})
	fam := e.conv(sim.DemoFamily)
	e.openConv(fam.ID)
	m, err := e.ctl.Deliver(fam.ID, sim.Message{From: "Dad", Text: "temporary"})
	if err != nil {
		t.Fatal(err)
	}
	e.wait(fmt.Sprintf(`!!document.querySelector('[data-e2e-message-id="%s"]')`, m.ID))
	if err := e.ctl.Reset(); err != nil {
		t.Fatal(err)
	}
	e.wait(fmt.Sprintf(`document.body.getAttribute('data-sim-shown') === %q && !document.querySelector('[data-e2e-message-id="%s"]')`, fam.ID, m.ID))
}
