package bridgetest

import (
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	protocol "github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/tests/browser"
)

// On a slow machine the app may appear later than the unrecognised threshold. The bridge
// then says "unrecognised", but keeps checking: once the app is drawn it reports the real
// state, and the conversation settles with its rows as the baseline (nothing reported as
// new). The simulator holds the app back until the test has seen "unrecognised", so the
// order is certain however loaded the machine is.
func TestSimAppLaterThanTheThresholdIsRecognisedOnceItAppears(t *testing.T) {
	e := startSim(t, sim.Options{})
	bob := e.conv(sim.DemoBob)

	for _, c := range []struct {
		name, url, state string
	}{
		{"conversation", e.s.ConversationURL(bob.ID), "conversation"},
		{"landing page", e.s.AppURL(), "no_conversation"},
	} {
		if err := e.ctl.HoldPages(); err != nil {
			t.Fatal(err)
		}
		m := e.mark()
		e.open(c.url)
		e.waitState(m, "loading", 10*time.Second)
		e.mustOK(protocol.Configure{UnrecognisedGraceMs: 1000})
		e.waitState(m, "unrecognised", 10*time.Second)
		if err := e.ctl.ReleasePages(); err != nil {
			t.Fatal(err)
		}
		e.waitState(m, c.state, 10*time.Second)
		if c.state != "conversation" {
			continue
		}
		got := e.waitConversation(m, bob.ID)
		if len(got.Messages) != 3 {
			t.Errorf("%s: reported with %d messages after the app appeared, want its 3 rows", c.name, len(got.Messages))
		}
		if n := e.count(m, "message"); n != 0 {
			t.Errorf("%s: the rows drawn after the recovery produced %d new-message events, want 0 (baseline)", c.name, n)
		}
	}
}

// The timer re-check: a page that becomes recognisable through a change the observer does
// not watch (here an attribute outside its filter, so no mutation is reported) is still
// recognised, because an unrecognised page is re-checked on a backing-off timer too.
func TestUnrecognisedPageIsRecheckedWithoutAnyMutation(t *testing.T) {
	h, _ := openFixture(t, "/web/other", atDocumentStart)
	h.waitState(0, "loading", 10*time.Second)
	h.mustOK(protocol.Configure{UnrecognisedGraceMs: 600})
	h.waitState(0, "unrecognised", 10*time.Second)
	m := h.mark()
	// The compose box attribute is one of the thread signals; setting it on an element
	// already in the page makes the page a (no-conversation) Messages page.
	eval(t, h.ctx, `document.querySelector('div.app').setAttribute('data-e2e-message-input-box', ''), 1`, nil)
	h.waitState(m, "no_conversation", 10*time.Second)
}

// A conversation page whose pane comes long after its sidebar (past the bridge's wait for
// an empty conversation) is not settled empty while the pane is missing: the rows it shows
// when it appears are the baseline, never new messages.
func TestConversationIsNotSettledBeforeItsPaneAppears(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A?pane=late", atDocumentStart)
	h.waitState(0, "loading", 10*time.Second)
	// Wait, on the page's own clock, until the 10 s empty-conversation wait has passed
	// since the bridge started (it starts at document start, before this page's script).
	browser.WaitJS(t, h.ctx, `performance.now() > 11000`, minWait)
	if n := h.count(0, "conversation"); n != 0 {
		t.Fatalf("the conversation was reported %d times before its pane appeared", n)
	}
	eval(t, h.ctx, `fx.showPane(), 1`, nil)
	c := h.waitConversation(0, "CONV_A")
	if len(c.Messages) != 2 {
		t.Errorf("conversation settled with %s, want its 2 rows", dump(c.Messages))
	}
	if n := h.count(0, "message"); n != 0 {
		t.Errorf("the rows of the late pane produced %d new-message events, want 0", n)
	}
	h.waitState(0, "conversation", 10*time.Second)
}
