package simtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/tests/browser"
)

func TestSidebarHasOneLinkPerConversationWithNameSnippetAndFlags(t *testing.T) {
	e := start(t, sim.Options{})
	e.open(e.s.AppURL())
	want, err := e.ctl.Conversations()
	if err != nil {
		t.Fatal(err)
	}
	type item struct {
		Href, Name, Snippet, Pinned, Muted, Unread, Selected string
	}
	var got []item
	e.eval(`return [...document.querySelectorAll('mws-conversations-list mws-conversation-list-item a[data-e2e-conversation]')].map(a => ({
	  Href: a.getAttribute('href'), Name: a.querySelector('[data-e2e-conversation-name]').textContent.trim(),
	  Snippet: a.querySelector('mws-conversation-snippet span').textContent,
	  Pinned: a.getAttribute('data-e2e-is-pinned'), Muted: a.getAttribute('data-e2e-is-muted'),
	  Unread: a.getAttribute('data-e2e-is-unread'), Selected: a.getAttribute('aria-selected')}));`, &got)
	if len(got) != len(want) {
		t.Fatalf("sidebar has %d items, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		exp := item{"/web/conversations/" + w.ID, w.Name, w.Snippet, fmt.Sprint(w.Pinned), fmt.Sprint(w.Muted), fmt.Sprint(w.Unread), "false"}
		if g != exp {
			t.Errorf("sidebar item %d = %+v, want %+v", i, g, exp)
		}
	}
	var landing struct{ Container, Cores int }
	e.eval(`return {Container: document.querySelectorAll('[data-e2e-conversation-container]').length,
	  Cores: document.querySelectorAll('[data-e2e-message-wrapper-core]').length}`, &landing)
	if landing.Container != 0 || landing.Cores != 0 {
		t.Errorf("landing page has %d containers and %d cores, want none (nothing selected)", landing.Container, landing.Cores)
	}
}

func TestConversationRowsCarryTheStoredLabelsPartsAndBlobImages(t *testing.T) {
	e := start(t, sim.Options{})
	fam := e.conv(sim.DemoFamily)
	e.openConv(fam.ID)
	// Wait for every image to decode, so the screenshot and the size checks see them.
	e.wait(`[...document.querySelectorAll('mws-image-message-part img')].every(i => i.complete && i.naturalWidth > 0)`)

	var header []string
	e.eval(`return [...document.querySelectorAll('[data-e2e-header-title] h2')].map(h => h.textContent.trim())`, &header)
	if strings.Join(header, "|") != "Dad|Mom" {
		t.Errorf("header h2s = %q, want [Dad Mom]", header)
	}
	stored, err := e.ctl.Messages(fam.ID)
	if err != nil {
		t.Fatal(err)
	}
	rows := e.rows()
	if len(rows) != len(stored) {
		t.Fatalf("DOM has %d rows, want %d", len(rows), len(stored))
	}
	for i, m := range stored {
		r := rows[i]
		if r.ID != m.ID || r.TextLabel != m.TextLabel() || r.ImageLabel != m.ImageLabel() || r.Tombstone != m.Tombstone {
			t.Errorf("row %d = %+v, want id %s, text label %q, image label %q, tombstone %v",
				i, r, m.ID, m.TextLabel(), m.ImageLabel(), m.Tombstone)
		}
		if m.Image != "" && !strings.HasPrefix(r.ImgSrc, "blob:"+e.s.URL()+"/") {
			t.Errorf("row %d image src = %q, want a blob: URL of the app origin", i, r.ImgSrc)
		}
		if m.Attachment != "" && r.Parts != 0 {
			t.Errorf("row %d (%s attachment) has %d parts, want none", i, m.Attachment, r.Parts)
		}
		if m.ReplyTo != "" && !r.QuoteFirst {
			t.Errorf("row %d (reply) does not put the embedded parent's text part first", i)
		}
	}
	// The browser honours the photo's EXIF orientation 6: the 4032x3024 JPEG shows as portrait.
	var photo struct{ W, H int }
	e.eval(`const i = document.querySelector('mws-image-message-part img'); return {W: i.naturalWidth, H: i.naturalHeight}`, &photo)
	if photo.W != sim.PhotoHeight || photo.H != sim.PhotoWidth {
		t.Errorf("photo natural size = %dx%d, want %dx%d (rotated by EXIF)", photo.W, photo.H, sim.PhotoHeight, sim.PhotoWidth)
	}
	var scrolled bool
	e.eval(`document.querySelector('mws-image-message-part').scrollIntoView({block: 'start'}); return true;`, &scrolled)
	if p := browser.SaveScreenshot(t, e.ctx, "simulator-conversation"); p == "" {
		t.Error("no screenshot written")
	}
}

func TestLabelEdgeCasesAndAutomatedSendersRender(t *testing.T) {
	e := start(t, sim.Options{})
	jane := e.conv(sim.DemoJane)
	e.openConv(jane.ID)
	var labels []string
	e.eval(`return [...document.querySelectorAll('mws-text-message-part')].map(p => p.getAttribute('aria-label'))`, &labels)
	all := strings.Join(labels, "\n--\n")
	for _, want := range []string{
		"Jane Doe said: Shopping list:\n- tortillas\n- limes\n- cilantro. Received on",
		"Jane Doe said: The receipt says. Received on Tuesday, weird. Received on February 3, 2026",
		"Jane Doe said: See you at 7.. Received on",
		"You said: [clanker] Sure, tacos sound great.. Sent on February 3, 2026 at 7:50 PM. Read. Jane Doe reacted with laugh.",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no label containing %q among:\n%s", want, all)
		}
	}
	code := e.conv(sim.DemoShortCode)
	e.openConv(code.ID)
	var names struct{ Header, Sender string }
	e.eval(`return {Header: document.querySelector('[data-e2e-header-title] h2').textContent,
	  Sender: document.querySelector('mws-text-message-part').getAttribute('aria-label').split(' said: ')[0]}`, &names)
	if names.Header != "72975" || names.Sender != "72975" {
		t.Errorf("automated conversation header/sender = %+v, want 72975 for both", names)
	}
	phone := e.conv(sim.DemoPhone)
	e.openConv(phone.ID)
	e.eval(`return [...document.querySelectorAll('mws-text-message-part')].map(p => p.getAttribute('aria-label'))`, &labels)
	pm, _ := e.ctl.Messages(phone.ID)
	if !strings.HasPrefix(labels[0], "(555) 555-7334 said: ") || labels[1] != pm[1].TextLabel() ||
		!strings.HasSuffix(labels[1], "Received at "+pm[1].Time.Format("3:04 PM")+".") {
		t.Errorf("phone conversation labels = %q, want a formatted-number sender and a time-only label", labels)
	}
}

func TestLiveRowGetsItsAriaLabelAfterInsertionAndTheSidebarUpdates(t *testing.T) {
	e := start(t, sim.Options{})
	fam := e.conv(sim.DemoFamily)
	jane := e.conv(sim.DemoJane)
	e.openConv(fam.ID)
	var ok bool
	e.eval(`window.__lab = {};
	new MutationObserver(recs => { for (const r of recs) for (const n of r.addedNodes) {
	  if (n.nodeType !== 1 || !n.matches('mws-message-wrapper')) continue;
	  const p = n.querySelector('mws-text-message-part'); const t0 = performance.now();
	  window.__lab.atInsert = p.getAttribute('aria-label');
	  new MutationObserver((_, mo) => { if (p.getAttribute('aria-label')) { window.__lab.after = performance.now() - t0; mo.disconnect(); } })
	    .observe(p, {attributes: true});
	}}).observe(document.querySelector('mws-messages-list'), {childList: true});
	return true;`, &ok)

	m, err := e.ctl.Deliver(fam.ID, sim.Message{From: "Mom", Text: "Dinner is at 6, clank"})
	if err != nil {
		t.Fatal(err)
	}
	e.wait(`window.__lab.after !== undefined`)
	var lab struct {
		AtInsert *string `json:"atInsert"`
		After    float64 `json:"after"`
	}
	e.eval(`return window.__lab`, &lab)
	if lab.AtInsert != nil {
		t.Errorf("label at insertion = %q, want none yet", *lab.AtInsert)
	}
	// Order, not milliseconds: the row arrives unlabelled and its label is filled by a later
	// change (the observer's clock starts when it sees the row, possibly late on a loaded
	// machine, so the measured gap says nothing about the seeded delay). The delay itself is
	// the seeded 100-300 ms.
	if lab.After <= 0 {
		t.Errorf("label filled %.1f ms after the row was seen, want strictly after", lab.After)
	}
	if m.LabelDelayMS < 100 || m.LabelDelayMS > 300 {
		t.Errorf("seeded label delay %d ms, want 100-300", m.LabelDelayMS)
	}
	rows := e.rows()
	if last := rows[len(rows)-1]; last.ID != m.ID || last.TextLabel != m.TextLabel() {
		t.Errorf("last row = %+v, want %s with label %q", last, m.ID, m.TextLabel())
	}
	e.wait(fmt.Sprintf(`document.querySelector('a[href$="%s"] mws-conversation-snippet span').textContent === 'Mom: Dinner is at 6, clank'`, fam.ID))

	// A delivery to a background conversation changes its snippet, marks it unread and moves it up.
	if _, err := e.ctl.Deliver(jane.ID, sim.Message{From: sim.DemoJane, Text: "still on for tacos?"}); err != nil {
		t.Fatal(err)
	}
	e.wait(fmt.Sprintf(`(() => { const a = document.querySelector('a[href$="%s"]');
	  return a.getAttribute('data-e2e-is-unread') === 'true' && a.querySelector('mws-conversation-snippet span').textContent === 'still on for tacos?'; })()`, jane.ID))
	var order []string
	e.eval(`return [...document.querySelectorAll('a[data-e2e-conversation] [data-e2e-conversation-name]')].map(s => s.textContent)`, &order)
	if len(order) < 2 || order[0] != sim.DemoBookClub || order[1] != sim.DemoJane {
		t.Errorf("sidebar order = %q, want the pinned %q then %q", order, sim.DemoBookClub, sim.DemoJane)
	}
	var title string
	e.eval(`return document.title`, &title)
	if !strings.HasPrefix(title, "(") {
		t.Errorf("title = %q, want an unread count prefix", title)
	}
}

func TestWindowKeeps35RowsAndLoadOlderInsertsAtTheTop(t *testing.T) {
	e := start(t, sim.Options{})
	book := e.conv(sim.DemoBookClub)
	e.openConv(book.ID)
	stored, _ := e.ctl.Messages(book.ID)
	rows := e.rows()
	if len(rows) != 35 || rows[0].ID != stored[len(stored)-35].ID {
		t.Fatalf("opened with %d rows starting %s, want the last 35 starting %s", len(rows), rows[0].ID, stored[len(stored)-35].ID)
	}
	var n1, n2 sim.Message
	var err error
	if n1, err = e.ctl.Deliver(book.ID, sim.Message{From: "Ana", Text: "new one"}); err != nil {
		t.Fatal(err)
	}
	if n2, err = e.ctl.Deliver(book.ID, sim.Message{From: "Tom", Text: "new two"}); err != nil {
		t.Fatal(err)
	}
	e.wait(fmt.Sprintf(`!!document.querySelector('[data-e2e-message-id="%s"]')`, n2.ID))
	rows = e.rows()
	if len(rows) != 35 || rows[0].ID != stored[len(stored)-33].ID || rows[33].ID != n1.ID || rows[34].ID != n2.ID {
		t.Errorf("after 2 arrivals: %d rows, first %s, last two %s %s; want 35, first %s, last %s %s",
			len(rows), rows[0].ID, rows[33].ID, rows[34].ID, stored[len(stored)-33].ID, n1.ID, n2.ID)
	}
	oldFirst := rows[0].ID

	if err := e.ctl.LoadOlder(5); err != nil {
		t.Fatal(err)
	}
	e.wait(`document.querySelectorAll('mws-messages-list [data-e2e-message-wrapper-core]').length === 40`)
	rows = e.rows()
	for i := 0; i < 5; i++ {
		if want := stored[len(stored)-38+i].ID; rows[i].ID != want {
			t.Errorf("scroll-back row %d = %s, want %s", i, rows[i].ID, want)
		}
	}
	if rows[5].ID != oldFirst {
		t.Errorf("row after the inserted ones = %s, want the previous first %s", rows[5].ID, oldFirst)
	}
	// Inserted rows get their labels asynchronously too.
	e.wait(`[...document.querySelectorAll('mws-messages-list mws-text-message-part')].slice(0, 5).every(p => p.getAttribute('aria-label'))`)
	rows = e.rows()
	if !strings.Contains(rows[0].TextLabel, "Book club message 23") {
		t.Errorf("first row label = %q, want message 23", rows[0].TextLabel)
	}
	// The next arrival trims the window back to 35.
	if _, err := e.ctl.Deliver(book.ID, sim.Message{From: "Priya", Text: "new three"}); err != nil {
		t.Fatal(err)
	}
	e.wait(`document.querySelectorAll('mws-messages-list [data-e2e-message-wrapper-core]').length === 35`)
}

func TestPendingIDsSwapInPlaceOrByReplacingTheNode(t *testing.T) {
	e := start(t, sim.Options{ConfirmAfter: -1})
	fam := e.conv(sim.DemoFamily)
	e.openConv(fam.ID)
	var ok bool
	e.eval(`window.__added = 0; new MutationObserver(rs => rs.forEach(r => window.__added += r.addedNodes.length))
	  .observe(document.querySelector('mws-messages-list'), {childList: true}); return true;`, &ok)

	for i, mode := range []sim.SwapMode{sim.SwapInPlace, sim.SwapReplace} {
		text := fmt.Sprintf("swap %s", mode)
		e.eval(fmt.Sprintf(`const b = document.querySelector('%s'); b.focus(); return true;`, boxSel), &ok)
		typeAndEnter(t, e, text)
		waitFor(t, "send of "+text, func() bool { return len(e.sent()) == i+1 })
		tmp := e.sent()[i].MessageID
		e.wait(fmt.Sprintf(`!!document.querySelector('[data-e2e-message-id="%s"]')`, tmp))
		e.eval(fmt.Sprintf(`window.__node = document.querySelector('[data-e2e-message-id="%s"]').closest('mws-message-wrapper'); window.__added = 0; return true;`, tmp), &ok)
		st, _ := e.ctl.Status()
		if len(st.Pending) != 1 || st.Pending[0] != tmp {
			t.Fatalf("pending = %v, want [%s]", st.Pending, tmp)
		}
		swaps, err := e.ctl.SwapPendingIDs(mode)
		if err != nil {
			t.Fatal(err)
		}
		if len(swaps) != 1 || swaps[0].From != tmp || !uuidID.MatchString(swaps[0].To) {
			t.Fatalf("swaps = %+v, want one from %s to a UUID", swaps, tmp)
		}
		e.wait(fmt.Sprintf(`!!document.querySelector('[data-e2e-message-id="%s"] mws-text-message-part[aria-label]')`, swaps[0].To))
		var res struct {
			Same, OldConnected bool
			Added              int
			Label              string
		}
		e.eval(fmt.Sprintf(`const w = document.querySelector('[data-e2e-message-id="%s"]').closest('mws-message-wrapper');
		  return {Same: w === window.__node, OldConnected: window.__node.isConnected, Added: window.__added,
		    Label: w.querySelector('mws-text-message-part').getAttribute('aria-label')};`, swaps[0].To), &res)
		switch mode {
		case sim.SwapInPlace:
			if !res.Same || res.Added != 0 {
				t.Errorf("in-place swap: same node %v, added nodes %d; want the same node and no childList change", res.Same, res.Added)
			}
		case sim.SwapReplace:
			if res.Same || res.OldConnected || res.Added != 1 {
				t.Errorf("replace swap: same node %v, old still connected %v, added %d; want a new node replacing the old", res.Same, res.OldConnected, res.Added)
			}
		}
		if !strings.HasPrefix(res.Label, "You said: "+text+". Sent on ") {
			t.Errorf("%s swap: label = %q, want the sent text", mode, res.Label)
		}
	}
}

// typeAndEnter types text into the compose box and presses Enter, all as trusted CDP input.
func typeAndEnter(t *testing.T, e *env, text string) {
	t.Helper()
	browser.Run(t, e.ctx, "type and Enter", sendKeys(text)...)
}

func TestUserDraftFillsTheComposeBox(t *testing.T) {
	e := start(t, sim.Options{Variants: []sim.Variant{sim.VariantMirror}})
	fam := e.conv(sim.DemoFamily)
	e.openConv(fam.ID)
	if err := e.ctl.UserTypesDraft("I'm typing this myself"); err != nil {
		t.Fatal(err)
	}
	e.wait(`document.querySelector('[data-e2e-message-input-box]').value === "I'm typing this myself"`)
	var st struct {
		Focused bool
		Mirror  string
	}
	e.eval(`const b = document.querySelector('[data-e2e-message-input-box]');
	  return {Focused: document.activeElement === b, Mirror: document.querySelector('[data-e2e-message-input]').textContent}`, &st)
	if !st.Focused || !strings.HasPrefix(st.Mirror, "I'm typing this myself") {
		t.Errorf("after draft: focused %v, wrapper textContent %q; want focus and the draft mirrored", st.Focused, st.Mirror)
	}
	if s := e.sent(); len(s) != 0 {
		t.Errorf("a draft was sent: %+v", s)
	}
}

func TestReactionChangesTheRowLabelInPlace(t *testing.T) {
	e := start(t, sim.Options{})
	fam := e.conv(sim.DemoFamily)
	e.openConv(fam.ID)
	stored, _ := e.ctl.Messages(fam.ID)
	target := stored[0]
	var ok bool
	e.eval(fmt.Sprintf(`window.__node = document.querySelector('[data-e2e-message-id="%s"]'); return true;`, target.ID), &ok)
	before := len(e.rows())
	m, err := e.ctl.Deliver(fam.ID, sim.Message{Reaction: &sim.Reaction{Target: target.ID, From: "Dad", Kind: "like"}})
	if err != nil {
		t.Fatal(err)
	}
	e.wait(fmt.Sprintf(`(document.querySelector('[data-e2e-message-id="%s"] mws-text-message-part').getAttribute('aria-label') || '').endsWith('Dad reacted with like.')`, target.ID))
	var same bool
	e.eval(fmt.Sprintf(`return document.querySelector('[data-e2e-message-id="%s"]') === window.__node`, target.ID), &same)
	rows := e.rows()
	if !same || len(rows) != before || rows[0].TextLabel != m.TextLabel() {
		t.Errorf("after reaction: same node %v, %d rows (was %d), label %q; want the same node relabelled %q",
			same, len(rows), before, rows[0].TextLabel, m.TextLabel())
	}
}
