package simtest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/tests/browser"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// The page behaviours (issue 28): each subtest proves, in the DOM, one shape the simulator
// claims to produce and the ground truth it keeps. One browser serves them all.

// paneJS finds the open conversation's pane: the first one not hidden.
const paneJS = `const pane = [...document.querySelectorAll('[data-e2e-conversation-container]')].find(p => p.getAttribute('aria-hidden') !== 'true');`

// idsJS lists the message ids of the open pane's rows in document order.
const idsJS = paneJS + `return pane ? [...pane.querySelectorAll('[data-e2e-message-wrapper-core][data-e2e-message-id]')].map(c => c.getAttribute('data-e2e-message-id')) : [];`

// tagJS remembers every row element now in the page and the id it shows.
const tagJS = `window.__els = new Set(document.querySelectorAll('mws-message-wrapper'));
for (const w of window.__els) w.__first = w.getAttribute('msg-id'); return true;`

// watchJS records, for every row element inserted from now on, the id it carried when it was
// inserted, and counts the wrappers and cores inserted.
const watchJS = `window.__inserted = []; window.__noID = 0;
new MutationObserver(rs => { for (const r of rs) for (const n of r.addedNodes) {
  if (n.nodeType !== 1) continue;
  for (const w of (n.matches('mws-message-wrapper') ? [n] : n.querySelectorAll('mws-message-wrapper'))) {
    window.__inserted.push({el: w, id: w.getAttribute('msg-id')});
    const c = w.querySelector('[data-e2e-message-wrapper-core]');
    if (c && !c.hasAttribute('data-e2e-message-id')) window.__noID++;
  }
}}).observe(document, {childList: true, subtree: true}); return true;`

func ids(ms []sim.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func (e *env) behave(b sim.Behaviour) {
	e.t.Helper()
	if err := e.ctl.Behave(b); err != nil {
		e.t.Fatal(err)
	}
}

// waitIDs waits until the open pane shows exactly want, in order.
func (e *env) waitIDs(what string, want []string) {
	e.t.Helper()
	var got []string
	ok, _ := testkit.Poll(waitTimeout, func() (bool, string) {
		e.eval(idsJS, &got)
		return slices.Equal(got, want), ""
	})
	if !ok {
		e.t.Fatalf("%s: the pane shows %d rows %v..., want %d rows %v...", what, len(got), head(got), len(want), head(want))
	}
}

func head(s []string) []string { return s[:min(3, len(s))] }

func (e *env) stored(conv string) []sim.Message {
	e.t.Helper()
	ms, err := e.ctl.Messages(conv)
	if err != nil {
		e.t.Fatal(err)
	}
	return ms
}

// truthHas waits for a truth record that satisfies match.
func (e *env) truthHas(what string, match func(sim.TruthRecord) bool) sim.TruthRecord {
	e.t.Helper()
	var found sim.TruthRecord
	ok, _ := testkit.Poll(waitTimeout, func() (bool, string) {
		recs, err := e.ctl.Truth()
		if err != nil {
			return false, err.Error()
		}
		for _, r := range recs {
			if match(r) {
				found = r
				return true, ""
			}
		}
		return false, ""
	})
	if !ok {
		e.t.Fatalf("no truth record: %s", what)
	}
	return found
}

func TestPageBehavioursOnTheSimulator(t *testing.T) {
	b := browser.New(t)
	run := func(name string, f func(t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f(t)
		})
	}

	// Issue 28: scrolling back 30 rows with a view cache of 20 reuses 20 elements for other
	// messages (some inserted still showing their old one), the newest rows leave, and a new
	// message is not drawn until the view jumps back to the live end.
	run("recycle scroll-back reuses elements and leaves the live end", func(t *testing.T) {
		e := startIn(t, b, sim.Options{Variants: []sim.Variant{sim.VariantRecycle}, Truth: true})
		book := e.conv(sim.DemoBookClub)
		e.openConv(book.ID)
		stored := e.stored(book.ID)
		e.eval(tagJS, new(bool))
		e.eval(watchJS, new(bool))
		e.behave(sim.Behaviour{Kind: sim.BehaveScrollBack, N: 30, Seed: 7})
		e.waitIDs("after scrolling back 30", ids(stored[0:35]))
		var res struct {
			Reused, Fresh, Stale int
			Jump, Spacer         bool
		}
		e.eval(paneJS+`const ws = [...pane.querySelectorAll('mws-message-wrapper')];
		  return {Reused: ws.filter(w => window.__els.has(w) && w.__first !== w.getAttribute('msg-id')).length,
		    Fresh: ws.filter(w => !window.__els.has(w)).length,
		    Stale: window.__inserted.filter(i => i.el.isConnected && i.id !== i.el.getAttribute('msg-id')).length,
		    Jump: !!pane.querySelector('.jump-to-bottom'), Spacer: !!pane.querySelector('.sim-spacer')};`, &res)
		if res.Reused != 20 || res.Fresh != 5 {
			t.Errorf("%d elements reused for another message and %d new, want 20 (the cache) and 5", res.Reused, res.Fresh)
		}
		if res.Stale == 0 {
			t.Errorf("no reused element was inserted still showing its old message")
		}
		if !res.Jump || !res.Spacer {
			t.Errorf("away from the live end: jump button %v, spacer %v; want both", res.Jump, res.Spacer)
		}
		n, err := e.ctl.Deliver(book.ID, sim.Message{From: "Ana", Text: "while scrolled back"})
		if err != nil {
			t.Fatal(err)
		}
		if a := e.truthHas("arrival of the new message", func(r sim.TruthRecord) bool { return r.Kind == sim.TruthArrive && r.ID == n.ID }); a.Shown {
			t.Errorf("a message arriving while the view was away from the live end is recorded as drawn there")
		}
		e.waitIDs("still scrolled back", ids(stored[0:35]))
		e.behave(sim.Behaviour{Kind: sim.BehaveJumpLive, Seed: 3})
		stored = e.stored(book.ID)
		e.waitIDs("after the jump to the newest message", ids(stored[len(stored)-35:]))
		e.truthHas("the view back at its live end", func(r sim.TruthRecord) bool { return r.Kind == sim.TruthLive && r.T > 0 && r.N > 2 })
	})

	// Issue 28: with every element reused by position, scrolling back is only id and content
	// changes of the same elements: no element is added.
	run("recycle and index-keyed scroll-back rewrites every element in place", func(t *testing.T) {
		e := startIn(t, b, sim.Options{Variants: []sim.Variant{sim.VariantRecycle, sim.VariantIndexKeyed}})
		book := e.conv(sim.DemoBookClub)
		e.openConv(book.ID)
		stored := e.stored(book.ID)
		e.eval(tagJS, new(bool))
		e.eval(watchJS, new(bool))
		e.behave(sim.Behaviour{Kind: sim.BehaveScrollBack, N: 10})
		e.waitIDs("after scrolling back 10", ids(stored[15:50]))
		var res struct{ Same, Changed, Added int }
		e.eval(paneJS+`const ws = [...pane.querySelectorAll('mws-message-wrapper')];
		  return {Same: ws.filter(w => window.__els.has(w)).length, Changed: ws.filter(w => w.__first !== w.getAttribute('msg-id')).length,
		    Added: window.__inserted.length};`, &res)
		if res.Same != 35 || res.Changed != 35 || res.Added != 0 {
			t.Errorf("%d of 35 elements kept, %d showing another message, %d inserted; want 35, 35, 0", res.Same, res.Changed, res.Added)
		}
	})

	// Issue 28: the message list drawn again with 10 more older rows on top: every row on a
	// new element. Keyed by index instead, the old elements are rewritten and the 10 newest
	// (already shown) rows come on new elements at the bottom.
	run("rerender-list draws the list again with older rows on top", func(t *testing.T) {
		for _, keyed := range []bool{false, true} {
			var vs []sim.Variant
			if keyed {
				vs = []sim.Variant{sim.VariantIndexKeyed}
			}
			e := startIn(t, b, sim.Options{Variants: vs})
			book := e.conv(sim.DemoBookClub)
			e.openConv(book.ID)
			stored := e.stored(book.ID)
			e.eval(tagJS, new(bool))
			e.behave(sim.Behaviour{Kind: sim.BehaveRerenderList, N: 10})
			e.waitIDs(fmt.Sprintf("rerender (index-keyed %v)", keyed), ids(stored[15:60]))
			var res struct {
				Old       int
				BottomNew []string
			}
			e.eval(paneJS+`const ws = [...pane.querySelectorAll('mws-message-wrapper')];
			  return {Old: ws.filter(w => window.__els.has(w)).length,
			    BottomNew: ws.filter(w => !window.__els.has(w)).map(w => w.getAttribute('msg-id'))};`, &res)
			if !keyed && res.Old != 0 {
				t.Errorf("%d old elements still in the re-rendered list, want none", res.Old)
			}
			if keyed && (res.Old != 35 || !slices.Equal(res.BottomNew, ids(stored[50:60]))) {
				t.Errorf("index-keyed: %d old elements kept, new ones carry %v; want 35 and the 10 newest rows", res.Old, head(res.BottomNew))
			}
		}
	})

	// Issue 28 and 33: the pane drawn again, the old one lingering hidden; quick switches
	// leave one hidden pane per conversation, the newest pane first.
	run("panes linger hidden after a re-render and quick switches", func(t *testing.T) {
		// Selected on the running page, as a full-app test selects it (issue 33).
		e := startIn(t, b, sim.Options{})
		jane, bob, fam := e.conv(sim.DemoJane), e.conv(sim.DemoBob), e.conv(sim.DemoFamily)
		e.openConv(jane.ID)
		for _, set := range []func() error{func() error { return e.ctl.SetLinger(8000) }, func() error { return e.ctl.SetVariant(sim.VariantLinger) }} {
			e.eval(`window.__pane = document.querySelector('[data-e2e-conversation-container]'); return true;`, new(bool))
			if err := set(); err != nil {
				t.Fatal(err)
			}
			// The page draws itself again: a new pane, with Jane's rows.
			e.wait(fmt.Sprintf(`(() => { const p = document.querySelector('[data-e2e-conversation-container]');
			  return !!p && p !== window.__pane && document.body.getAttribute('data-sim-shown') === %q; })()`, jane.ID))
		}
		want := ids(e.stored(jane.ID))
		e.behave(sim.Behaviour{Kind: sim.BehaveRerenderPane, MS: 8000})
		type paneInfo struct {
			Hidden, Display string
			IDs, Header     []string
		}
		const panesJS = `return [...document.querySelectorAll('[data-e2e-conversation-container]')].map(p => ({Hidden: p.getAttribute('aria-hidden') || '',
		  Display: p.style.display, Header: [...p.querySelectorAll('[data-e2e-header-title] h2')].map(h => h.textContent),
		  IDs: [...p.querySelectorAll('[data-e2e-message-id]')].map(c => c.getAttribute('data-e2e-message-id'))}));`
		var panes []paneInfo
		ok, _ := testkit.Poll(waitTimeout, func() (bool, string) { e.eval(panesJS, &panes); return len(panes) == 2, "" })
		if !ok || panes[0].Hidden != "" || panes[1].Hidden != "true" || panes[1].Display != "none" ||
			!slices.Equal(panes[0].IDs, want) || !slices.Equal(panes[1].IDs, want) {
			t.Fatalf("after the pane re-render: %+v; want the new pane first and visible, the old one hidden, both with Jane's rows", panes)
		}
		e.wait(`document.querySelectorAll('[data-e2e-conversation-container]').length === 1`)

		if err := e.ctl.ClickConversation(bob.ID); err != nil {
			t.Fatal(err)
		}
		// The second click comes as soon as Bob's pane is drawn (a fixed 150 ms was not enough
		// for the page to draw it on a loaded machine); both old panes still linger then.
		e.wait(fmt.Sprintf(`document.body.getAttribute('data-sim-shown') === %q`, bob.ID))
		if err := e.ctl.ClickConversation(fam.ID); err != nil {
			t.Fatal(err)
		}
		e.wait(fmt.Sprintf(`document.body.getAttribute('data-sim-shown') === %q`, fam.ID))
		e.eval(panesJS, &panes)
		if len(panes) != 3 || panes[0].Hidden != "" || panes[1].Hidden != "true" || panes[2].Hidden != "true" ||
			!slices.Equal(panes[1].IDs, ids(e.stored(bob.ID))) || !slices.Equal(panes[2].IDs, want) {
			t.Fatalf("after two quick switches: %+v; want the family's pane first, then Bob's and Jane's hidden", panes)
		}
		var box string
		e.eval(paneJS+`const b = document.querySelector('[data-e2e-message-input-box]'); return b && pane.contains(b) ? 'first' : 'other';`, &box)
		if box != "first" {
			t.Errorf("the first compose box in the document is in a hidden pane")
		}
		e.wait("(() => {" + paneJS + `return [...pane.querySelectorAll('[data-e2e-header-title] h2')].map(h => h.textContent).join('|') === 'Dad|Mom'; })()`)
		e.wait(`document.querySelectorAll('[data-e2e-conversation-container]').length === 1`)
	})

	// Issue 28: a conversation opened at an older message (a search hit): the newest rows are
	// not drawn, a new message is not drawn; scrolling down loads the newer (old) rows at the
	// bottom until the live end.
	run("open-at an older message, then scroll down to the live end", func(t *testing.T) {
		e := startIn(t, b, sim.Options{Truth: true})
		book := e.conv(sim.DemoBookClub)
		e.open(e.s.AppURL())
		e.behave(sim.Behaviour{Kind: sim.BehaveOpenAt, Conversation: book.ID, N: 25})
		stored := e.stored(book.ID)
		e.waitIDs("opened 25 rows above the live end", ids(stored[0:35]))
		var res struct {
			Jump, Bottom bool
		}
		e.eval(paneJS+`const l = pane.querySelector('mws-messages-list');
		  return {Jump: !!pane.querySelector('.jump-to-bottom'), Bottom: l.scrollHeight - l.scrollTop - l.clientHeight < 2};`, &res)
		if !res.Jump || res.Bottom {
			t.Errorf("opened at a hit: jump button %v, scrolled to the bottom %v; want the button and not the bottom", res.Jump, res.Bottom)
		}
		e.truthHas("the visit opened at a hit", func(r sim.TruthRecord) bool {
			return r.Kind == sim.TruthOpen && r.Conv == book.ID && r.At == "hit"
		})
		n, err := e.ctl.Deliver(book.ID, sim.Message{From: "Tom", Text: "arrives while reading old ones"})
		if err != nil {
			t.Fatal(err)
		}
		if a := e.truthHas("the arrival", func(r sim.TruthRecord) bool { return r.Kind == sim.TruthArrive && r.ID == n.ID }); a.Shown {
			t.Errorf("a message arriving at a view away from the live end is recorded as drawn there")
		}
		e.behave(sim.Behaviour{Kind: sim.BehaveScrollDown, N: 10})
		e.waitIDs("scrolled down 10 (the window trimmed at the top)", ids(stored[10:45]))
		e.behave(sim.Behaviour{Kind: sim.BehaveScrollDown, N: 30})
		stored = e.stored(book.ID)
		e.waitIDs("scrolled down to the live end", ids(stored[len(stored)-35:]))
		e.wait(`!document.querySelector('.jump-to-bottom') && !document.querySelector('.sim-spacer')`)
		e.truthHas("the live end reached", func(r sim.TruthRecord) bool { return r.Kind == sim.TruthLive && r.Conv == book.ID })
	})

	// Issue 28: search results drawn with the sidebar's row markup (an archived conversation
	// too) while the conversation list is hidden; a message elsewhere changes only the real
	// list; closing the search shows the list again.
	run("search results use the sidebar's markup and hide the list", func(t *testing.T) {
		e := startIn(t, b, sim.Options{Truth: true})
		arch, err := e.ctl.CreateConversation(sim.NewConversation{Participants: []string{"Old Friend"}, Archived: true})
		if err != nil {
			t.Fatal(err)
		}
		bob := e.conv(sim.DemoBob)
		for _, d := range []struct{ conv, from, text string }{{arch.ID, "Old Friend", "picnic in June?"}, {bob.ID, sim.DemoBob, "picnic plans?"}} {
			if _, err := e.ctl.Deliver(d.conv, sim.Message{From: d.from, Text: d.text}); err != nil {
				t.Fatal(err)
			}
		}
		e.open(e.s.AppURL())
		var sidebarIDs []string
		e.eval(`return [...document.querySelectorAll('a[data-e2e-conversation]')].map(a => a.getAttribute('href').split('/').pop())`, &sidebarIDs)
		if slices.Contains(sidebarIDs, arch.ID) {
			t.Fatalf("the archived conversation is in the sidebar")
		}
		e.behave(sim.Behaviour{Kind: sim.BehaveSearch, Query: "picnic", Seed: 5})
		e.wait(`!!document.querySelector('.search-results a[data-e2e-conversation]')`)
		var res struct {
			Hits       []string
			ListHidden bool
		}
		const searchJS = `const real = document.querySelector('mws-conversations-list:not(.search-results)');
		  return {Hits: [...document.querySelectorAll('.search-results a[data-e2e-conversation]')].map(a => a.getAttribute('href').split('/').pop() + ':' + a.querySelector('mws-conversation-snippet span').textContent),
		    ListHidden: real.style.display === 'none' && real.getAttribute('aria-hidden') === 'true'};`
		e.eval(searchJS, &res)
		slices.Sort(res.Hits)
		wantHits := []string{arch.ID + ":picnic in June?", bob.ID + ":picnic plans?"}
		slices.Sort(wantHits)
		if !slices.Equal(res.Hits, wantHits) || !res.ListHidden {
			t.Errorf("search results %q (list hidden %v), want %q with the list hidden", res.Hits, res.ListHidden, wantHits)
		}
		jane := e.conv(sim.DemoJane)
		if _, err := e.ctl.Deliver(jane.ID, sim.Message{From: sim.DemoJane, Text: "meanwhile, elsewhere"}); err != nil {
			t.Fatal(err)
		}
		e.wait(fmt.Sprintf(`document.querySelector('mws-conversations-list:not(.search-results) a[href$="%s"] mws-conversation-snippet span').textContent === 'meanwhile, elsewhere'`, jane.ID))
		e.truthHas("the real list's new snippet", func(r sim.TruthRecord) bool {
			return r.Kind == sim.TruthSnippet && r.Conv == jane.ID && r.Snippet == "meanwhile, elsewhere"
		})
		e.eval(searchJS, &res)
		if len(res.Hits) != 2 {
			t.Errorf("the message elsewhere changed the search results: %q", res.Hits)
		}
		e.behave(sim.Behaviour{Kind: sim.BehaveSearch})
		e.wait(`!document.querySelector('.search-results') && getComputedStyle(document.querySelector('mws-conversations-list')).display !== 'none'`)
	})

	// Issue 28: names drawn with bidi isolates, direction marks and no-break spaces, read
	// plain by PlainName.
	run("bidi-names decorates every drawn name", func(t *testing.T) {
		e := startIn(t, b, sim.Options{Variants: []sim.Variant{sim.VariantBidiNames}})
		fam := e.conv(sim.DemoFamily)
		e.openConv(fam.ID)
		var drawn struct{ Labels, Header, Sidebar, Senders []string }
		e.eval(`return {Labels: [...document.querySelectorAll('mws-messages-list mws-text-message-part[aria-label]')].map(p => p.getAttribute('aria-label').split(' said: ')[0]),
		  Header: [...document.querySelectorAll('[data-e2e-header-title] h2')].map(h => h.textContent),
		  Sidebar: [...document.querySelectorAll('[data-e2e-conversation-name]')].map(n => n.textContent),
		  Senders: [...document.querySelectorAll('mws-messages-list .sender')].map(n => n.textContent)};`, &drawn)
		people := map[string]bool{"Dad": true, "Mom": true, "You": true}
		names := map[string]bool{}
		for _, c := range e.mustConversations() {
			names[c.Name] = true
		}
		decorated := 0
		for place, list := range map[string][]string{"label": drawn.Labels, "header": drawn.Header, "sidebar": drawn.Sidebar, "sender": drawn.Senders} {
			if len(list) == 0 {
				t.Errorf("no %s names drawn", place)
			}
			for _, n := range list {
				plain := sim.PlainName(n)
				if n != plain {
					decorated++
				}
				if place == "sidebar" && !names[plain] || place != "sidebar" && !people[plain] {
					t.Errorf("%s name %q reads %q, which is no one here", place, n, plain)
				}
			}
		}
		if decorated < 4 {
			t.Errorf("only %d drawn names carry bidi marks or no-break spaces", decorated)
		}
	})

	// Rows that are not messages: date separators, a typing indicator, and placeholder rows
	// whose core gets its id only when filled in.
	run("noise draws separators, typing and placeholders", func(t *testing.T) {
		e := startIn(t, b, sim.Options{Variants: []sim.Variant{sim.VariantNoise}})
		book := e.conv(sim.DemoBookClub)
		e.openConv(book.ID)
		var res struct{ Separators, CoresInSeparators int }
		e.eval(paneJS+`const ss = [...pane.querySelectorAll('mws-tombstone-message-wrapper')];
		  return {Separators: ss.length, CoresInSeparators: ss.filter(s => s.querySelector('[data-e2e-message-wrapper-core]')).length};`, &res)
		if res.Separators == 0 || res.CoresInSeparators != 0 {
			t.Errorf("%d separators (%d with a message core); want some, none with a core", res.Separators, res.CoresInSeparators)
		}
		e.behave(sim.Behaviour{Kind: sim.BehaveTyping, MS: 3000})
		e.wait(`!!document.querySelector('.sim-typing')`)
		n, err := e.ctl.Deliver(book.ID, sim.Message{From: "Priya", Text: "typed it"})
		if err != nil {
			t.Fatal(err)
		}
		e.wait(fmt.Sprintf(`(() => { const c = document.querySelector('[data-e2e-message-id="%s"]'); const t = document.querySelector('.sim-typing');
		  return !!c && !!t && !!(c.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING) && !t.querySelector('[data-e2e-message-wrapper-core]'); })()`, n.ID))
		e.wait(`!document.querySelector('.sim-typing')`)
		e.eval(watchJS, new(bool))
		e.behave(sim.Behaviour{Kind: sim.BehaveScrollBack, N: 5, Seed: 2})
		stored := e.stored(book.ID)
		e.waitIDs("after placeholders were filled in", ids(stored[len(stored)-40:]))
		var noID int
		e.eval(`return window.__noID`, &noID)
		if noID != 5 {
			t.Errorf("%d rows were inserted with a core without message id, want the 5 placeholders", noID)
		}
	})

	// The list taken out and put back, and one row moved in place: the same elements.
	run("reinsert and move-row keep the elements", func(t *testing.T) {
		e := startIn(t, b, sim.Options{})
		jane := e.conv(sim.DemoJane)
		e.openConv(jane.ID)
		e.eval(`window.__list = document.querySelector('mws-messages-list'); window.__gone = false;
		  new MutationObserver(() => { if (!window.__list.isConnected) window.__gone = true; }).observe(document.body, {childList: true, subtree: true}); return true;`, new(bool))
		e.eval(tagJS, new(bool))
		e.behave(sim.Behaviour{Kind: sim.BehaveReinsert, MS: 300})
		e.wait(`window.__gone && window.__list.isConnected && document.querySelector('mws-messages-list') === window.__list`)
		e.eval(watchJS, new(bool))
		e.behave(sim.Behaviour{Kind: sim.BehaveMoveRow, N: 1})
		e.wait(`window.__inserted.length === 1`)
		var same bool
		e.eval(`return window.__els.has(window.__inserted[0].el)`, &same)
		if !same {
			t.Errorf("the moved row is a new element")
		}
		e.waitIDs("after the move", ids(e.stored(jane.ID)))
	})

	// A router that reuses the pane: switching rewrites the old conversation's elements.
	run("reuse-pane rewrites the old conversation's elements", func(t *testing.T) {
		e := startIn(t, b, sim.Options{Variants: []sim.Variant{sim.VariantReusePane}})
		jane, fam := e.conv(sim.DemoJane), e.conv(sim.DemoFamily)
		e.openConv(jane.ID)
		e.eval(`window.__h2 = document.querySelector('[data-e2e-header-title] h2'); window.__list = document.querySelector('mws-messages-list');`+tagJS, new(bool))
		if err := e.ctl.ClickConversation(fam.ID); err != nil {
			t.Fatal(err)
		}
		e.waitIDs("the family's rows", ids(e.stored(fam.ID)))
		e.wait(fmt.Sprintf(`location.pathname.endsWith(%q)`, fam.ID))
		var res struct {
			SameList, SameH2 bool
			Rewritten        int
		}
		e.eval(`return {SameList: document.querySelector('mws-messages-list') === window.__list,
		  SameH2: document.querySelector('[data-e2e-header-title] h2') === window.__h2,
		  Rewritten: [...document.querySelectorAll('mws-message-wrapper')].filter(w => window.__els.has(w) && w.__first !== w.getAttribute('msg-id')).length};`, &res)
		if !res.SameList || !res.SameH2 || res.Rewritten == 0 {
			t.Errorf("reused pane: same list %v, same header element %v, %d of Jane's elements now show the family's rows", res.SameList, res.SameH2, res.Rewritten)
		}
	})

	// Labels that come late and change: time-only first, the full label later.
	run("labels-change gives a live row a time-only label first", func(t *testing.T) {
		e := startIn(t, b, sim.Options{Variants: []sim.Variant{sim.VariantLabelsChange}})
		jane := e.conv(sim.DemoJane)
		e.openConv(jane.ID)
		e.eval(`window.__labels = [];
		  new MutationObserver(rs => rs.forEach(r => { if (r.attributeName === 'aria-label') window.__labels.push(r.target.getAttribute('aria-label')); }))
		    .observe(document.querySelector('mws-messages-list'), {attributes: true, subtree: true}); return true;`, new(bool))
		n, err := e.ctl.Deliver(jane.ID, sim.Message{From: sim.DemoJane, Text: "two labels"})
		if err != nil {
			t.Fatal(err)
		}
		e.wait(fmt.Sprintf(`window.__labels.includes(%q)`, n.TextLabel()))
		var labels []string
		e.eval(`return window.__labels`, &labels)
		if len(labels) != 2 || labels[0] != "Received at "+n.Time.Format("3:04 PM")+"." {
			t.Errorf("labels in order %q; want a time-only one, then the full one", labels)
		}
	})

	// Issue 27: the box emptied after a send, and a draft restored on return, by script
	// with no event; the default page fires input after its clear.
	run("clear-silently empties the box without an input event", func(t *testing.T) {
		for _, silent := range []bool{false, true} {
			var vs []sim.Variant
			if silent {
				vs = []sim.Variant{sim.VariantClearSilently}
			}
			e := startIn(t, b, sim.Options{Variants: vs})
			jane := e.conv(sim.DemoJane)
			e.openConv(jane.ID)
			browser.Run(t, e.ctx, "type", chromedp.SendKeys(boxSel, "see you soon", chromedp.ByQuery))
			e.eval(`window.__inputs = 0; document.addEventListener('input', () => window.__inputs++, true); return true;`, new(bool))
			browser.Run(t, e.ctx, "Enter", chromedp.KeyEvent(kb.Enter))
			waitFor(t, "the send", func() bool { return len(e.sent()) == 1 })
			e.wait(`document.querySelector('[data-e2e-message-input-box]').value === ''`)
			var inputs int
			e.eval(`return window.__inputs`, &inputs)
			if want := map[bool]int{false: 1, true: 0}[silent]; inputs != want {
				t.Errorf("clear-silently %v: %d input events after the send, want %d", silent, inputs, want)
			}
		}
	})

	run("restore-draft puts the draft back without events", func(t *testing.T) {
		e := startIn(t, b, sim.Options{Variants: []sim.Variant{sim.VariantRestoreDraft}, Truth: true})
		jane, bob := e.conv(sim.DemoJane), e.conv(sim.DemoBob)
		e.openConv(jane.ID)
		browser.Run(t, e.ctx, "type a draft", chromedp.SendKeys(boxSel, "half a thought", chromedp.ByQuery))
		if err := e.ctl.ClickConversation(bob.ID); err != nil {
			t.Fatal(err)
		}
		e.wait(fmt.Sprintf(`document.body.getAttribute('data-sim-shown') === %q && document.querySelector('[data-e2e-message-input-box]').value === ''`, bob.ID))
		e.eval(`window.__events = 0; for (const t of ['input', 'change', 'keyup', 'beforeinput']) document.addEventListener(t, () => window.__events++, true); return true;`, new(bool))
		if err := e.ctl.ClickConversation(jane.ID); err != nil {
			t.Fatal(err)
		}
		e.wait(fmt.Sprintf(`document.body.getAttribute('data-sim-shown') === %q`, jane.ID))
		e.wait(`document.querySelector('[data-e2e-message-input-box]').value !== ''`)
		// On the page's clock: the draft comes back after the rows, as a stored draft does.
		restored := e.truthHas("the draft restored", func(r sim.TruthRecord) bool { return r.Detail == "restore-draft" && r.Conv == jane.ID })
		recs, err := e.ctl.Truth()
		if err != nil {
			t.Fatal(err)
		}
		var live sim.TruthRecord
		for _, r := range recs {
			if r.Kind == sim.TruthLive && r.Conv == jane.ID && r.T < restored.T {
				live = r // the last time Jane's rows were drawn before the draft came back
			}
		}
		if live.T == 0 || restored.T-live.T < 300 {
			t.Errorf("the draft came back %.0f ms after the rows; want 300 ms or more", restored.T-live.T)
		}
		var res struct {
			Value  string
			Events int
		}
		e.eval(`return {Value: document.querySelector('[data-e2e-message-input-box]').value, Events: window.__events}`, &res)
		if res.Value != "half a thought" || res.Events != 0 {
			t.Errorf("back in Jane's conversation the box holds %q after %d events; want the draft, restored with no event", res.Value, res.Events)
		}
	})
}

func (e *env) mustConversations() []sim.Conversation {
	e.t.Helper()
	cs, err := e.ctl.Conversations()
	if err != nil {
		e.t.Fatal(err)
	}
	return cs
}
