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
)

// depthsJS lists, per row in DOM order, its id and how many elements sit between its
// mws-message-wrapper and the message list.
const depthsJS = `return [...document.querySelectorAll('mws-messages-list mws-message-wrapper')].map(w => {
  let d = 0; for (let p = w.parentElement; p && p.tagName !== 'MWS-MESSAGES-LIST'; p = p.parentElement) d++;
  return {id: w.querySelector('[data-e2e-message-wrapper-core]').getAttribute('data-e2e-message-id'), depth: d,
    group: w.closest('div.msg-group') ? [...w.closest('mws-bottom-anchored').children].indexOf(w.closest('div.msg-group')) : -1};
});`

type rowDepth struct {
	ID    string `json:"id"`
	Depth int    `json:"depth"`
	Group int    `json:"group"`
}

// The nest variants put the rows 1, 2 or (per row) 0-2 elements below the message list,
// while windowing, scroll-back and new rows keep the stored order.
func TestNestVariantsPutRowsDeeperAndKeepTheirOrder(t *testing.T) {
	for _, v := range []sim.Variant{sim.VariantNest1, sim.VariantNest2, sim.VariantNestMixed} {
		t.Run(string(v), func(t *testing.T) {
			e := start(t, sim.Options{Variants: []sim.Variant{v}})
			book := e.conv(sim.DemoBookClub)
			e.openConv(book.ID)
			stored, _ := e.ctl.Messages(book.ID)
			shape := map[string]int{}
			for _, m := range stored {
				shape[m.ID] = m.Shape.Depth
			}
			check := func(when string, rows []rowDepth, want []sim.Message) {
				t.Helper()
				if len(rows) != len(want) {
					t.Fatalf("%s: %d rows, want %d", when, len(rows), len(want))
				}
				seen := map[int]bool{}
				for i, r := range rows {
					if r.ID != want[i].ID {
						t.Fatalf("%s: row %d is %s, want %s (stored order)", when, i, r.ID, want[i].ID)
					}
					wantDepth := map[sim.Variant]int{sim.VariantNest1: 1, sim.VariantNest2: 2, sim.VariantNestMixed: shape[r.ID]}[v]
					if r.Depth != wantDepth {
						t.Errorf("%s: row %s sits %d elements deep, want %d", when, r.ID, r.Depth, wantDepth)
					}
					seen[r.Depth] = true
				}
				if v == sim.VariantNestMixed && len(seen) != 3 {
					t.Errorf("%s: depths used %v, want 0, 1 and 2", when, seen)
				}
			}
			var rows []rowDepth
			e.eval(depthsJS, &rows)
			check("opened", rows, stored[len(stored)-35:])

			if err := e.ctl.LoadOlder(5); err != nil {
				t.Fatal(err)
			}
			e.wait(`document.querySelectorAll('mws-messages-list mws-message-wrapper').length === 40`)
			e.eval(depthsJS, &rows)
			check("after scroll-back", rows, stored[len(stored)-40:])
			if v == sim.VariantNest2 && (rows[0].Group != 0 || rows[5].Group != 1) {
				t.Errorf("scroll-back rows in group %d, the first old row in group %d; want a new group 0 above", rows[0].Group, rows[5].Group)
			}

			n, err := e.ctl.Deliver(book.ID, sim.Message{From: "Ana", Text: "a new one"})
			if err != nil {
				t.Fatal(err)
			}
			e.wait(fmt.Sprintf(`document.querySelectorAll('mws-messages-list mws-message-wrapper').length === 35 && !!document.querySelector('[data-e2e-message-id="%s"]')`, n.ID))
			stored, _ = e.ctl.Messages(book.ID)
			for _, m := range stored {
				shape[m.ID] = m.Shape.Depth
			}
			e.eval(depthsJS, &rows)
			check("after a new row trimmed the window", rows, stored[len(stored)-35:])
		})
	}
}

// late-src inserts images without a src and sets the blob URL later; late-labels fills a
// live row's labels after a seeded 1-5 s. Both are checked by order (absent when the element
// appeared, present later), never by milliseconds.
func TestLateSrcAndLateLabelVariantsFillInAfterTheRow(t *testing.T) {
	e := start(t, sim.Options{Variants: []sim.Variant{sim.VariantLateSrc, sim.VariantLateLabels}})
	browser.Run(t, e.ctx, "install the image and label watcher", chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(`window.__imgs = []; window.__rows = {};
		new MutationObserver(rs => { for (const r of rs) for (const n of r.addedNodes) {
		  if (n.nodeType !== 1) continue;
		  for (const img of (n.matches('img') ? [n] : n.querySelectorAll('img'))) window.__imgs.push({img, srcAtInsert: img.getAttribute('src')});
		  for (const c of (n.matches('[data-e2e-message-wrapper-core]') ? [n] : n.querySelectorAll('[data-e2e-message-wrapper-core]'))) {
		    const p = c.querySelector('mws-text-message-part');
		    window.__rows[c.getAttribute('data-e2e-message-id')] = {part: p, labelAtInsert: p && p.getAttribute('aria-label')};
		  }
		}}).observe(document, {childList: true, subtree: true});`).Do(ctx)
		return err
	}))
	fam := e.conv(sim.DemoFamily)
	e.openConv(fam.ID)
	e.wait(`window.__imgs.length >= 2 && window.__imgs.every(i => (i.img.getAttribute('src') || '').startsWith('blob:'))`)
	var noSrc int
	e.eval(`return window.__imgs.filter(i => !i.srcAtInsert).length`, &noSrc)
	if noSrc < 2 {
		t.Errorf("%d images were inserted without a src, want every image (the photo rows)", noSrc)
	}

	m, err := e.ctl.Deliver(fam.ID, sim.Message{From: "Mom", Text: "labelled late"})
	if err != nil {
		t.Fatal(err)
	}
	if d := m.Shape.LateLabelMS; d < 1000 || d > 5000 {
		t.Errorf("seeded late label delay %d ms, want 1-5 s", d)
	}
	e.wait(fmt.Sprintf(`(() => { const r = window.__rows[%q]; return !!r && !!r.part.getAttribute('aria-label'); })()`, m.ID))
	var at struct{ LabelAtInsert *string }
	e.eval(fmt.Sprintf(`return {LabelAtInsert: window.__rows[%q].labelAtInsert}`, m.ID), &at)
	if at.LabelAtInsert != nil {
		t.Errorf("live row labelled at insertion (%q), want the label later", *at.LabelAtInsert)
	}
	if rows := e.rows(); rows[len(rows)-1].TextLabel != m.TextLabel() {
		t.Errorf("late label = %q, want %q", rows[len(rows)-1].TextLabel, m.TextLabel())
	}
}

// The content variants show the trivia group: names with periods and a comma, four
// reactors of one kind, and astral-plane text.
func TestContentVariantsShowTheTriviaGroup(t *testing.T) {
	e := start(t, sim.Options{Variants: sim.ContentVariants})
	tri := e.conv(sim.DemoTrivia)
	e.openConv(tri.ID)
	var labels []string
	e.eval(`return [...document.querySelectorAll('mws-text-message-part')].map(p => p.getAttribute('aria-label'))`, &labels)
	all := strings.Join(labels, "\n")
	for _, want := range []string{
		"Dr. Alice Chen, Smith, Jane, J. R. Okafor and You reacted with love.",
		"Smith, Jane said: " + sim.TriviaEmoji + ". Received on",
		"J. R. Okafor said: " + sim.TriviaScores + ". Received on",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("trivia page lacks a label containing %.100q", want)
		}
	}
	var header []string
	e.eval(`return [...document.querySelectorAll('[data-e2e-header-title] h2')].map(h => h.textContent)`, &header)
	if strings.Join(header, "|") != "Dr. Alice Chen|Smith, Jane|J. R. Okafor" {
		t.Errorf("header names %q", header)
	}
}
