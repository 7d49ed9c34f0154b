package bridgetest

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"testing"

	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/chromedp"

	protocol "github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/tests/browser"
)

// partBottom is the bottom edge of a UI part in CSS pixels.
func partBottom(t *testing.T, ctx context.Context, part string) float64 {
	t.Helper()
	n, _ := shadowPart(t, ctx, part)
	if n == nil {
		t.Fatalf("UI part %q not found", part)
	}
	var box *dom.BoxModel
	browser.Run(t, ctx, "box of "+part, chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		box, err = dom.GetBoxModel().WithBackendNodeID(n.BackendNodeID).Do(ctx)
		return err
	}))
	return box.Border[5]
}

func screenshotRGB(t *testing.T, ctx context.Context, x, y int) (r, g, b uint8) {
	t.Helper()
	var shot []byte
	browser.Run(t, ctx, "screenshot", chromedp.CaptureScreenshot(&shot))
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	if !image.Pt(x, y).In(img.Bounds()) {
		t.Fatalf("pixel %d,%d outside the screenshot %v", x, y, img.Bounds())
	}
	r16, g16, b16, _ := img.At(x, y).RGBA()
	return uint8(r16 >> 8), uint8(g16 >> 8), uint8(b16 >> 8)
}

// A banner is a strip that pushes the page down: a page whose conversation header sits
// fixed at the top (as Messages for web's does) shows that header whole under the banner,
// in the screenshot as in the layout, and gets its place back when the banner goes.
func TestBannerIsAStripThatPushesThePageDown(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	// The app bar of a full-window web app: fixed at the top, solid green here so the
	// screenshot shows where it is.
	eval(t, h.ctx, `(function(){var s=document.createElement('style'); s.textContent=
		'html,body{height:100%;margin:0} [data-e2e-header-title]{position:fixed;top:0;left:0;right:0;height:48px;background:rgb(0,200,0)}';
		document.head.appendChild(s); return 1})()`, nil)
	var before float64
	eval(t, h.ctx, `document.querySelector('[data-e2e-header-title]').getBoundingClientRect().top`, &before)
	if before != 0 {
		t.Fatalf("the fixture's header starts at %v, want 0", before)
	}

	h.mustOK(protocol.ShowBanner{Text: "DEMO: a simulated Messages page and a fake model. Nothing here reaches anyone.", Level: "warning"})
	bottom := partBottom(t, h.ctx, "banner")
	var top float64
	eval(t, h.ctx, `document.querySelector('[data-e2e-header-title]').getBoundingClientRect().top`, &top)
	// getBoundingClientRect is relative to the viewport, whatever contains the header.
	if top+1 < bottom {
		t.Fatalf("the header starts at %.0f px, under the banner that ends at %.0f px; want it pushed below", top, bottom)
	}
	if r, g, b := screenshotRGB(t, h.ctx, 200, int(bottom)+10); r != 0 || g != 200 || b != 0 {
		t.Errorf("screenshot just under the banner (y=%d) is rgb(%d,%d,%d); want the header's green", int(bottom)+10, r, g, b)
	}
	if r, g, b := screenshotRGB(t, h.ctx, 200, 3); r != 0xff || g != 0xf4 || b != 0xe5 {
		t.Errorf("screenshot at the top is rgb(%d,%d,%d); want the warning banner's colour", r, g, b)
	}
	browser.SaveScreenshot(t, h.ctx, "banner-strip")

	h.mustOK(protocol.HideBanner{})
	eval(t, h.ctx, `document.querySelector('[data-e2e-header-title]').getBoundingClientRect().top`, &top)
	var style string
	eval(t, h.ctx, `document.body.getAttribute('style') || ''`, &style)
	if top != 0 || style != "" {
		t.Fatalf("after the banner went: header at %.0f px, body style %q; want the page as it was", top, style)
	}
	if r, g, b := screenshotRGB(t, h.ctx, 200, 3); r != 0 || g != 200 || b != 0 {
		t.Errorf("screenshot at the top after the banner went is rgb(%d,%d,%d); want the header's green", r, g, b)
	}
}
