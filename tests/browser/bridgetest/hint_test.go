package bridgetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/chromedp"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	protocol "github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/tests/browser"
)

// box is an element's border box in CSS pixels of the viewport.
type box struct{ Left, Top, Right, Bottom float64 }

func (b box) String() string {
	return fmt.Sprintf("[%.0f,%.0f-%.0f,%.0f]", b.Left, b.Top, b.Right, b.Bottom)
}

func (b box) overlaps(o box) bool {
	return b.Left < o.Right && o.Left < b.Right && b.Top < o.Bottom && o.Top < b.Bottom
}

// partBox is the border box of a part of Clanker's UI (through CDP: the root is closed).
func partBox(t *testing.T, ctx context.Context, part string) box {
	t.Helper()
	n, _ := shadowPart(t, ctx, part)
	if n == nil {
		t.Fatalf("UI part %q not found", part)
	}
	var bm *dom.BoxModel
	browser.Run(t, ctx, "box of "+part, chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		bm, err = dom.GetBoxModel().WithBackendNodeID(n.BackendNodeID).Do(ctx)
		return err
	}))
	q := bm.Border
	return box{Left: q[0], Top: q[1], Right: q[4], Bottom: q[5]}
}

// pageBox is the bounding box of the page's element matching selector.
func pageBox(t *testing.T, ctx context.Context, selector string) box {
	t.Helper()
	var b box
	eval(t, ctx, `(function(){var r=document.querySelector(`+fmt.Sprintf("%q", selector)+`).getBoundingClientRect();
		return {Left:r.left,Top:r.top,Right:r.right,Bottom:r.bottom}})()`, &b)
	return b
}

// The one-time hint is a bubble just above the status pill, pointing at it, clear of the
// conversation's name and the compose box. It steps aside while the pill's menu is open,
// its "Got it" tells Go (which decides it is done), and hide_hint removes it.
func TestHintPointsAtThePillAndCoversNeitherTheNameNorTheComposeBox(t *testing.T) {
	e := startSim(t, sim.Options{Seed: 7})
	c := e.openConv(sim.DemoBob)
	text := "Clanker stays out of this conversation until you switch it on here."
	e.mustOK(protocol.SetStatus{ConversationID: c.ConversationID, Mode: "deactivated"})
	e.mustOK(protocol.ShowHint{Text: text})

	if _, got := shadowPart(t, e.ctx, "hint-text"); got != text {
		t.Fatalf("hint text %q, want %q", got, text)
	}
	hint, pill := partBox(t, e.ctx, "hint"), partBox(t, e.ctx, "pill")
	title, compose := pageBox(t, e.ctx, "[data-e2e-header-title]"), pageBox(t, e.ctx, "[data-e2e-message-input]")
	// Above the pill, close to it, and over it horizontally: the arrow at its bottom
	// left points down at the pill.
	if hint.Bottom > pill.Top || pill.Top-hint.Bottom > 20 || hint.Left > pill.Left+20 || hint.Right < pill.Right {
		t.Errorf("hint %v does not sit just above the pill %v", hint, pill)
	}
	if hint.overlaps(title) || hint.overlaps(compose) {
		t.Errorf("hint %v covers the conversation's name %v or the compose box %v", hint, title, compose)
	}
	if hint.Bottom-hint.Top < 40 || hint.Right-hint.Left < 150 {
		t.Errorf("hint %v is too small to read", hint)
	}
	// The arrow: the pixel just under the bubble, above the pill's middle, has the
	// bubble's colour; the pixel beside it, further right, is the page.
	x := int(pill.Left + 30)
	if r, g, b := screenshotRGB(t, e.ctx, x, int(hint.Bottom)+2); r != 0x45 || g != 0x27 || b != 0xa0 {
		t.Errorf("pixel under the bubble at x=%d is rgb(%d,%d,%d); want the arrow's colour", x, r, g, b)
	}
	browser.SaveScreenshot(t, e.ctx, "bridge-hint")

	// The menu opens where the hint is: the hint waits behind it, then comes back.
	clickPart(t, e.ctx, "pill")
	if got := partStyle(t, e.ctx, "hint", "display"); got != "none" {
		t.Errorf("hint display %q while the pill's menu is open, want none", got)
	}
	clickPart(t, e.ctx, "pill")
	if n, _ := shadowPart(t, e.ctx, "menu"); n != nil {
		t.Fatal("the pill's menu did not close on a second click")
	}
	if got := partStyle(t, e.ctx, "hint", "display"); got == "none" {
		t.Error("hint still hidden after the menu closed")
	}

	// A new pill (Go redraws it as the mode changes) keeps the hint.
	e.mustOK(protocol.SetStatus{ConversationID: c.ConversationID, Mode: "available"})
	if n, _ := shadowPart(t, e.ctx, "hint"); n == nil {
		t.Fatal("set_status removed the hint")
	}

	m := e.mark()
	clickPart(t, e.ctx, "hint-dismiss")
	e.waitFor(m, "hint_dismissed", 5*time.Second, func(ev protocol.Event) bool { _, ok := ev.(protocol.HintDismissed); return ok })
	if n, _ := shadowPart(t, e.ctx, "hint"); n != nil {
		t.Error("hint still shown after Got it")
	}
	if e.count(m, "mode_menu") != 0 {
		t.Error("dismissing the hint reported a mode choice")
	}

	// hide_hint and hide_status each remove it.
	e.mustOK(protocol.ShowHint{Text: text})
	e.mustOK(protocol.HideHint{})
	if n, _ := shadowPart(t, e.ctx, "hint"); n != nil {
		t.Error("hint still shown after hide_hint")
	}
	e.mustOK(protocol.ShowHint{Text: text})
	e.mustOK(protocol.HideStatus{})
	if n, _ := shadowPart(t, e.ctx, "hint"); n != nil {
		t.Error("hint still shown after hide_status: it would point at nothing")
	}
}
