package bridgetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	protocol "github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/tests/browser"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// shadowPart finds an element of Clanker's UI by its data-part attribute. The shadow root
// is closed, so page scripts cannot do this; the test uses CDP's piercing DOM view, as
// DevTools does. It returns the node and its text, or nil.
func shadowPart(t *testing.T, ctx context.Context, part string) (*cdp.Node, string) {
	t.Helper()
	found, err := browser.FindPart(ctx, part)
	if err != nil {
		t.Fatal(err)
	}
	if found == nil {
		return nil, ""
	}
	var text strings.Builder
	var collect func(n *cdp.Node)
	collect = func(n *cdp.Node) {
		if n.NodeType == cdp.NodeTypeText {
			text.WriteString(n.NodeValue)
		}
		for _, c := range n.Children {
			collect(c)
		}
	}
	collect(found)
	return found, text.String()
}

// clickPart clicks the centre of a UI part with a trusted mouse click.
func clickPart(t *testing.T, ctx context.Context, part string) {
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
	q := box.Content
	x, y := (q[0]+q[2]+q[4]+q[6])/4, (q[1]+q[3]+q[5]+q[7])/4
	browser.Run(t, ctx, "click "+part, chromedp.MouseClickXY(x, y))
}

// partStyle returns the computed values of CSS properties of a UI part, joined by spaces.
// The node is resolved through CDP, which reaches into the closed shadow root.
func partStyle(t *testing.T, ctx context.Context, part string, props ...string) string {
	t.Helper()
	n, _ := shadowPart(t, ctx, part)
	if n == nil {
		t.Fatalf("UI part %q not found", part)
	}
	var out string
	browser.Run(t, ctx, "computed style of "+part, chromedp.ActionFunc(func(ctx context.Context) error {
		obj, err := dom.ResolveNode().WithBackendNodeID(n.BackendNodeID).Do(ctx)
		if err != nil {
			return err
		}
		arg, err := json.Marshal(props)
		if err != nil {
			return err
		}
		res, exc, err := runtime.CallFunctionOn(`function(props){const cs=getComputedStyle(this); return props.map(p=>cs.getPropertyValue(p)).join(' ')}`).
			WithObjectID(obj.ObjectID).WithArguments([]*runtime.CallArgument{{Value: arg}}).WithReturnByValue(true).Do(ctx)
		if err != nil {
			return err
		}
		if exc != nil {
			return fmt.Errorf("computed style: %s", exc.Text)
		}
		return json.Unmarshal(res.Value, &out)
	}))
	return out
}

func TestInjectedUILivesInAClosedShadowRootThePageCannotRestyle(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	// The page tries to hide and restyle everything, including Clanker's host element.
	eval(t, h.ctx, `(function(){var s=document.createElement('style'); s.textContent='clanker-ui{display:none!important;opacity:0!important;position:static!important} *{color:red!important} div{display:none!important}'; document.head.appendChild(s); return 1})()`, nil)
	h.mustOK(protocol.ShowBanner{Text: "Clanker is not configured: open Settings", Level: "warning"})
	h.mustOK(protocol.ShowToast{Text: "Reply sent", Level: "success"})
	h.mustOK(protocol.SetStatus{ConversationID: "CONV_A", Mode: "available"})

	var hostInfo struct {
		Exists     bool   `json:"exists"`
		OpenShadow bool   `json:"openShadow"`
		Display    string `json:"display"`
		Opacity    string `json:"opacity"`
		Cores      int    `json:"cores"`
	}
	eval(t, h.ctx, `(function(){var h=document.querySelector('clanker-ui'); var cs=h&&getComputedStyle(h);
		return {exists: !!h, openShadow: !!(h&&h.shadowRoot), display: cs&&cs.display, opacity: cs&&cs.opacity,
			cores: document.querySelectorAll('[data-e2e-message-wrapper-core]').length};})()`, &hostInfo)
	if !hostInfo.Exists || hostInfo.OpenShadow {
		t.Fatalf("UI host exists=%v, shadowRoot visible to the page=%v; want a host with a closed shadow root", hostInfo.Exists, hostInfo.OpenShadow)
	}
	if hostInfo.Display != "block" || hostInfo.Opacity != "1" {
		t.Errorf("page CSS changed the UI host: display %q opacity %q, want block and 1", hostInfo.Display, hostInfo.Opacity)
	}
	if hostInfo.Cores != 2 {
		t.Errorf("document has %d message cores with the UI shown, want the 2 rows only", hostInfo.Cores)
	}
	if _, text := shadowPart(t, h.ctx, "banner-text"); text != "Clanker is not configured: open Settings" {
		t.Errorf("banner text %q", text)
	}
	if _, text := shadowPart(t, h.ctx, "pill"); text != "Clanker: Available" {
		t.Errorf("status pill text %q, want %q", text, "Clanker: Available")
	}
	if n, _ := shadowPart(t, h.ctx, "toast"); n == nil {
		t.Error("toast not shown")
	}
	// The stylesheet (inject/src/ui.css, bundled as text) styles the parts inside the shadow
	// root, and the page's `* {color: red !important}` does not reach them.
	if got, want := partStyle(t, h.ctx, "pill", "position", "background-color", "color"), "fixed rgb(26, 115, 232) rgb(255, 255, 255)"; got != want {
		t.Errorf("status pill computed style %q, want %q (position, background, colour from ui.css)", got, want)
	}
	if got, want := partStyle(t, h.ctx, "banner", "position", "background-color"), "fixed rgb(255, 244, 229)"; got != want {
		t.Errorf("banner computed style %q, want %q (a warning banner as ui.css draws it)", got, want)
	}
	browser.SaveScreenshot(t, h.ctx, "bridge-ui")

	// Status pill -> mode menu -> choice goes to Go as an event; nothing else happens.
	m := h.mark()
	clickPart(t, h.ctx, "pill")
	clickPart(t, h.ctx, "menu-active")
	mm := h.waitFor(m, "mode_menu", 5*time.Second, func(e protocol.Event) bool { _, ok := e.(protocol.ModeMenu); return ok }).(protocol.ModeMenu)
	if mm.Choice != "active" || mm.ConversationID != "CONV_A" {
		t.Errorf("mode menu event %+v, want active for CONV_A", mm)
	}
	if n, _ := shadowPart(t, h.ctx, "menu"); n != nil {
		t.Error("the menu stayed open after a choice")
	}
	if _, text := shadowPart(t, h.ctx, "pill"); text != "Clanker: Available" {
		t.Errorf("the pill changed to %q by itself; only Go may change the mode", text)
	}

	// Waiting for the user's draft: the pill says so beside the mode, and stops when Go does;
	// a locked pill never says it.
	h.mustOK(protocol.SetStatus{ConversationID: "CONV_A", Mode: "available", Waiting: true})
	if _, text := shadowPart(t, h.ctx, "pill"); text != "Clanker: Available \u00b7 waiting for your draft" {
		t.Errorf("waiting pill text %q, want the mode and the wait", text)
	}
	h.mustOK(protocol.SetStatus{ConversationID: "CONV_A", Mode: "deactivated", Locked: "Automated conversation: Clanker stays out", Waiting: true})
	if _, text := shadowPart(t, h.ctx, "pill"); text != "Clanker: Deactivated" {
		t.Errorf("locked pill text %q, want the mode alone", text)
	}
	h.mustOK(protocol.SetStatus{ConversationID: "CONV_A", Mode: "available"})
	if _, text := shadowPart(t, h.ctx, "pill"); text != "Clanker: Available" {
		t.Errorf("pill text %q after the wait ended, want %q", text, "Clanker: Available")
	}

	// The banner's dismiss button removes it and tells Go.
	m = h.mark()
	clickPart(t, h.ctx, "banner-dismiss")
	h.waitFor(m, "banner_dismissed", 5*time.Second, func(e protocol.Event) bool { _, ok := e.(protocol.BannerDismissed); return ok })
	if n, _ := shadowPart(t, h.ctx, "banner"); n != nil {
		t.Error("banner still shown after dismiss")
	}

	// Overlay on and off.
	h.mustOK(protocol.ShowOverlay{Text: "Checking Dad, Mom…"})
	if _, text := shadowPart(t, h.ctx, "overlay-text"); text != "Checking Dad, Mom…" {
		t.Errorf("overlay text %q", text)
	}
	h.mustOK(protocol.HideOverlay{})
	if n, _ := shadowPart(t, h.ctx, "overlay"); n != nil {
		t.Error("overlay still shown after hide_overlay")
	}

	// The toast removes itself (after 5 s); the bound only has to be generous.
	testkit.WaitFor(t, minWait, "the toast to remove itself (after 5 s)", func() (bool, string) {
		n, _ := shadowPart(t, h.ctx, "toast")
		return n == nil, "the toast is still shown"
	})
	h.mustOK(protocol.HideStatus{})
	if n, _ := shadowPart(t, h.ctx, "pill"); n != nil {
		t.Error("pill still shown after hide_status")
	}
}

// While Clanker visits another conversation the overlay only dims the page: the sidebar and
// the compose box still get real clicks and keys, and its Cancel button ends the visit. A key
// in the compose box or Cancel is reported to Go as overlay_cancel, and the overlay goes; a
// key comes with the conversation whose box took it, also after the user clicked another
// conversation while the overlay showed.
func TestOverlayLeavesTheSidebarComposeAndCancelUsable(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	cancelledIn := func(m int, reason, conv string) {
		t.Helper()
		h.waitFor(m, "overlay_cancel "+reason+" in "+conv, 5*time.Second, func(e protocol.Event) bool {
			c, ok := e.(protocol.OverlayCancel)
			return ok && c.Reason == reason && c.ConversationID == conv
		})
		if n, _ := shadowPart(t, h.ctx, "overlay"); n != nil {
			t.Fatalf("overlay still shown after %s", reason)
		}
	}
	cancelled := func(m int, reason string) {
		t.Helper()
		cancelledIn(m, reason, map[string]string{"key": "CONV_A"}[reason])
	}

	h.mustOK(protocol.ShowOverlay{Text: "Clanker is processing an inactive conversation"})
	// Hit testing at the sidebar link and the compose box finds the page's elements, not the overlay.
	var hits []string
	eval(t, h.ctx, `(function(){
		return ['a[data-e2e-conversation]', '[data-e2e-message-input-box]'].map(function(q){
			var r = document.querySelector(q).getBoundingClientRect();
			var e = document.elementFromPoint(r.left + r.width/2, r.top + r.height/2);
			return e ? e.tagName.toLowerCase() : 'none';
		});
	})()`, &hits)
	if len(hits) != 2 || hits[0] == "clanker-ui" || hits[1] == "clanker-ui" || hits[0] == "none" {
		t.Fatalf("with the overlay shown, the points of the sidebar link and the compose box hit %v; want the page's elements", hits)
	}
	m := h.mark()
	clickPart(t, h.ctx, "overlay-cancel")
	cancelled(m, "cancel")

	h.mustOK(protocol.ShowOverlay{Text: "Clanker is processing an inactive conversation"})
	m = h.mark()
	eval(t, h.ctx, `document.querySelector('[data-e2e-message-input-box]').focus(), 1`, nil)
	browser.Run(t, h.ctx, "user types", chromedp.KeyEvent("x"))
	cancelled(m, "key")

	h.mustOK(protocol.ShowOverlay{Text: "Clanker is processing an inactive conversation"})
	m = h.mark()
	var at []float64
	eval(t, h.ctx, `(function(){var r=document.querySelector('a[data-e2e-conversation][href$="CONV_B"]').getBoundingClientRect(); return [r.left + r.width/2, r.top + r.height/2];})()`, &at)
	browser.Run(t, h.ctx, "click the sidebar", chromedp.MouseClickXY(at[0], at[1]))
	h.waitFor(m, "the page to open CONV_B", 10*time.Second, func(e protocol.Event) bool {
		s, ok := e.(protocol.PageState)
		return ok && s.ConversationID == "CONV_B"
	})
	// The overlay is still up (Go takes it down once it hears of the switch) and the user
	// types in CONV_B's box: the key is reported as CONV_B's, not the visited conversation's.
	m = h.mark()
	eval(t, h.ctx, `document.querySelector('[data-e2e-message-input-box]').focus(), 1`, nil)
	browser.Run(t, h.ctx, "user types in CONV_B", chromedp.KeyEvent("y"))
	cancelledIn(m, "key", "CONV_B")
}

// A locked status (here an automated conversation) shows the modes greyed out in the pill's
// menu with the reason below them. A click on a greyed-out mode closes the menu and chooses
// nothing (it used to leave the menu open, the click swallowed); Settings... still works.
func TestLockedPillMenuShowsTheModesDisabledWithTheReason(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	reason := "Automated conversation: Clanker stays out"
	h.mustOK(protocol.SetStatus{ConversationID: "CONV_A", Mode: "deactivated", Locked: reason})
	clickPart(t, h.ctx, "pill")
	if _, text := shadowPart(t, h.ctx, "menu-reason"); text != reason {
		t.Fatalf("menu reason %q, want %q", text, reason)
	}
	if st := partStyle(t, h.ctx, "menu-available", "cursor"); st != "default" {
		t.Errorf("a greyed-out mode's cursor is %q, want default", st)
	}
	m := h.mark()
	clickPart(t, h.ctx, "menu-available")
	testkit.WaitFor(t, 5*time.Second, "the menu to close after a click on a greyed-out mode", func() (bool, string) {
		n, _ := shadowPart(t, h.ctx, "menu")
		return n == nil, "the menu is still open"
	})
	clickPart(t, h.ctx, "pill")
	clickPart(t, h.ctx, "menu-settings")
	got := h.waitFor(m, "mode_menu", 5*time.Second, func(e protocol.Event) bool { _, ok := e.(protocol.ModeMenu); return ok }).(protocol.ModeMenu)
	if got.Choice != "settings" {
		t.Fatalf("first menu event after clicking the greyed-out Available, then Settings...: %+v; want settings only", got)
	}
	clickPart(t, h.ctx, "pill")
	browser.SaveScreenshot(t, h.ctx, "bridge-pill-locked")
	browser.Run(t, h.ctx, "Escape", chromedp.KeyEvent(kb.Escape))
	testkit.WaitFor(t, 5*time.Second, "Escape to close the menu", func() (bool, string) {
		n, _ := shadowPart(t, h.ctx, "menu")
		return n == nil, "the menu is still open"
	})

	// Unlocked again, the same item reports its choice.
	h.mustOK(protocol.SetStatus{ConversationID: "CONV_A", Mode: "deactivated"})
	clickPart(t, h.ctx, "pill")
	if n, _ := shadowPart(t, h.ctx, "menu-reason"); n != nil {
		t.Error("the reason is still shown in an unlocked conversation")
	}
	m = h.mark()
	clickPart(t, h.ctx, "menu-available")
	got = h.waitFor(m, "mode_menu", 5*time.Second, func(e protocol.Event) bool { _, ok := e.(protocol.ModeMenu); return ok }).(protocol.ModeMenu)
	if got.Choice != "available" {
		t.Fatalf("unlocked menu choice %+v, want available", got)
	}
}

// The pill's menu closes on a press anywhere outside Clanker's UI, as a menu does, and the
// page still gets that press.
func TestPillMenuClosesOnAPressOutsideIt(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	h.mustOK(protocol.SetStatus{ConversationID: "CONV_A", Mode: "available"})
	eval(t, h.ctx, `(function(){ window.__pressed = 0; document.addEventListener('pointerdown', function(){ window.__pressed++; }); return 1; })()`, nil)
	clickPart(t, h.ctx, "pill")
	if n, _ := shadowPart(t, h.ctx, "menu"); n == nil {
		t.Fatal("the pill did not open its menu")
	}
	m := h.mark()
	browser.Run(t, h.ctx, "press in the conversation", chromedp.MouseClickXY(600, 300))
	testkit.WaitFor(t, 5*time.Second, "a press outside to close the menu", func() (bool, string) {
		n, _ := shadowPart(t, h.ctx, "menu")
		return n == nil, "the menu is still open"
	})
	var pressed int
	eval(t, h.ctx, `window.__pressed`, &pressed)
	if pressed == 0 {
		t.Error("the page did not get the press that closed the menu")
	}
	if n := h.count(m, "mode_menu"); n != 0 {
		t.Errorf("closing the menu by a press outside sent %d mode_menu events, want 0", n)
	}
}
