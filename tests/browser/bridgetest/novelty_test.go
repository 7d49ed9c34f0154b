package bridgetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	protocol "github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// These tests hold the bridge to issue 28: novelty is decided by message identity and time,
// never by element identity or insertion order alone, and only the pane and list a person
// sees count. Each shape the issue lists, and the class it stands for, has a test here, on
// the virtual-scrolling fixture (fixture_virtual_test.go) or the plain one.

// newIDs lists the ids of the message events after mark, in order.
func (h *host) newIDs(mark int) []string {
	var ids []string
	for _, m := range h.newMessages(mark) {
		ids = append(ids, m.ID)
	}
	return ids
}

// idSwaps lists the message_id events after mark as "old>new".
func (h *host) idSwaps(mark int) []string {
	var out []string
	for _, e := range h.since(mark) {
		if s, ok := e.Event.(protocol.MessageID); ok {
			out = append(out, s.OldID+">"+s.NewID)
		}
	}
	return out
}

// waitIDs waits until the page's open pane shows exactly the rows of want (vx.ids()).
func (h *host) waitIDs(want []string) {
	h.t.Helper()
	js := fmt.Sprintf(`vx.ids().join(',') === %q`, strings.Join(want, ","))
	testkit.WaitFor(h.t, minWait, "the pane to show "+strings.Join(want, ","), func() (bool, string) {
		var ok bool
		eval(h.t, h.ctx, js, &ok)
		return ok, ""
	})
}

func vids(conv string, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("%s-m%d", conv, i))
	}
	return out
}

// waitHistory waits until the history events after mark hold at least every id of want.
func (h *host) waitHistory(mark int, want []string) {
	h.t.Helper()
	testkit.WaitFor(h.t, minWait, "history rows "+strings.Join(want, ","), func() (bool, string) {
		got := h.historyIDs(mark)
		for _, id := range want {
			if !slices.Contains(got, id) {
				return false, "history so far: " + strings.Join(got, ",") + "; events: " + summary(h.since(mark))
			}
		}
		return true, ""
	})
}

func openVirtual(t *testing.T, query string) *host {
	t.Helper()
	h, _ := openFixture(t, "/web/conversations/V1?virt=1"+query, atDocumentStart)
	c := h.waitConversation(0, "V1")
	if len(c.Messages) != 20 || c.Messages[19].ID != "V1-m59" {
		t.Fatalf("V1 settled with %d messages (last %s), want the 20 at its live end", len(c.Messages), dump(c.Messages))
	}
	return h
}

// Rows a virtual list brings back when the view scrolls back are history, however it draws
// them: recycled elements moved and rewritten with older messages (some put in place still
// showing the message they showed before), elements rewritten in place, or rows made anew.
// Back at the live end nothing is new; a message that then arrives is new exactly once, and
// no real id is ever reported renamed to another.
func TestRowsAVirtualListBringsBackAreHistoryHoweverItRecyclesThem(t *testing.T) {
	for _, mode := range []string{"recycle", "recycle&stale=1", "index", "plain"} {
		t.Run(mode, func(t *testing.T) {
			h := openVirtual(t, "&mode="+mode)
			m := h.mark()
			eval(t, h.ctx, `vx.scrollBy(-30), 1`, nil)
			h.waitIDs(vids("V1", 10, 30))
			h.waitHistory(m, vids("V1", 10, 30))
			eval(t, h.ctx, `vx.scrollBy(-10), 1`, nil)
			h.waitIDs(vids("V1", 0, 20))
			h.waitHistory(m, vids("V1", 0, 10))
			eval(t, h.ctx, `vx.toEnd(), 1`, nil)
			h.waitIDs(vids("V1", 40, 60))
			var id string
			eval(t, h.ctx, `vx.deliver('fresh news')`, &id)
			got := h.waitNewID(m, id)
			if got.Text != "fresh news" {
				t.Errorf("the delivered message reported as %s", dump(got))
			}
			if news := h.newIDs(m); !slices.Equal(news, []string{id}) {
				t.Errorf("message events %v, want only %s: scrolled-back rows are history", news, id)
			}
			if swaps := h.idSwaps(m); len(swaps) != 0 {
				t.Errorf("message_id events %v: recycled rows are other messages, not renamed ones", swaps)
			}
			for _, hid := range h.historyIDs(m) {
				if !strings.HasPrefix(hid, "V1-m") {
					t.Errorf("history row %s is not one of V1's older messages", hid)
				}
			}
		})
	}
}

// A message that arrives while the view is scrolled away is not drawn; when the view comes
// back to the live end it is new (it arrived during the visit), however the list draws the
// way back.
func TestAMessageThatArrivedWhileScrolledAwayIsNewWhenTheViewReturns(t *testing.T) {
	for _, mode := range []string{"recycle", "index", "plain"} {
		t.Run(mode, func(t *testing.T) {
			h := openVirtual(t, "&mode="+mode)
			m := h.mark()
			eval(t, h.ctx, `vx.scrollBy(-30), 1`, nil)
			h.waitIDs(vids("V1", 10, 30))
			var id string
			eval(t, h.ctx, `vx.deliver('while you read')`, &id)
			eval(t, h.ctx, `vx.toEnd(), 1`, nil)
			h.waitNewID(m, id)
			if news := h.newIDs(m); !slices.Equal(news, []string{id}) {
				t.Errorf("message events %v, want only %s", news, id)
			}
		})
	}
}

// A conversation opened at an older message (as a search hit opens it) yields only history
// while the view moves down towards the live end, 10 rows and then 25 at a time, and for a
// message that arrived meanwhile; at the live end the next message is new.
func TestAViewOpenedAtAnOlderMessageYieldsOnlyHistoryUntilTheLiveEnd(t *testing.T) {
	for _, mode := range []string{"recycle", "index", "plain"} {
		t.Run(mode, func(t *testing.T) {
			h, _ := openFixture(t, "/web/conversations/V1?virt=1&at=20&mode="+mode, atDocumentStart)
			c := h.waitConversation(0, "V1")
			if len(c.Messages) != 20 || c.Messages[19].ID != "V1-m19" {
				t.Fatalf("V1 opened at an older message settled with %s", dump(c.Messages))
			}
			m := h.mark()
			eval(t, h.ctx, `vx.scrollTo(10), 1`, nil)
			h.waitIDs(vids("V1", 10, 30))
			eval(t, h.ctx, `vx.scrollTo(35), 1`, nil)
			h.waitIDs(vids("V1", 35, 55))
			var away string
			eval(t, h.ctx, `vx.deliver('arrived while the view was away')`, &away)
			eval(t, h.ctx, `vx.toEnd(), 1`, nil)
			h.waitHistory(m, append(append(vids("V1", 20, 30), vids("V1", 35, 60)...), away))
			var live string
			eval(t, h.ctx, `vx.deliver('now at the live end')`, &live)
			h.waitNewID(m, live)
			if news := h.newIDs(m); !slices.Equal(news, []string{live}) {
				t.Errorf("message events %v, want only %s: rows below an older message are history until the live end", news, live)
			}
		})
	}
}

// The list drawn again in one go with ten older rows on top: the ten are history and
// nothing is new; the next message is.
func TestAListDrawnAgainWithOlderRowsOnTopYieldsHistory(t *testing.T) {
	for _, mode := range []string{"recycle", "plain"} {
		t.Run(mode, func(t *testing.T) {
			h := openVirtual(t, "&mode="+mode)
			m := h.mark()
			eval(t, h.ctx, `vx.rerenderList(10), 1`, nil)
			h.waitIDs(vids("V1", 30, 60))
			h.waitHistory(m, vids("V1", 30, 40))
			var id string
			eval(t, h.ctx, `vx.deliver('after the redraw')`, &id)
			h.waitNewID(m, id)
			if news := h.newIDs(m); !slices.Equal(news, []string{id}) {
				t.Errorf("message events %v, want only %s", news, id)
			}
		})
	}
}

// The pane drawn again while the old one lingers (hidden, or still shown for a moment):
// only the new pane counts. Scrolling back right after yields history, a reaction on the
// new pane's row is an update, and the next message is new once.
func TestAPaneDrawnAgainWhileTheOldOneLingersIsTheOneThatCounts(t *testing.T) {
	for _, c := range []struct {
		name    string
		visible bool
	}{{"old pane hidden", false}, {"old pane still shown", true}} {
		t.Run(c.name, func(t *testing.T) {
			h := openVirtual(t, "&mode=recycle")
			m := h.mark()
			eval(t, h.ctx, fmt.Sprintf(`vx.rerenderPane(1500, %v), vx.scrollBy(-10), 1`, c.visible), nil)
			h.waitHistory(m, vids("V1", 30, 40))
			eval(t, h.ctx, `vx.react('V1-m35'), 1`, nil)
			up := h.waitUpdate(m, "V1-m35", "the reaction", func(msg protocol.Message) bool { return len(msg.Reactions) == 1 })
			if strings.Join(up.Reactions[0].By, "|") != "Dr. Alice Chen|نور الهدى" {
				t.Errorf("reactors %q", up.Reactions[0].By)
			}
			eval(t, h.ctx, `vx.toEnd(), 1`, nil)
			var id string
			eval(t, h.ctx, `vx.deliver('after the pane came back')`, &id)
			h.waitNewID(m, id)
			if news := h.newIDs(m); !slices.Equal(news, []string{id}) {
				t.Errorf("message events %v, want only %s", news, id)
			}
		})
	}
}

// Two switches 150 ms apart while the old panes linger hidden: each conversation is reported
// with its own rows and its own header only.
func TestQuickSwitchesWithLingeringPanesReportEachConversationAlone(t *testing.T) {
	h := openVirtual(t, "&mode=recycle")
	m := h.mark()
	eval(t, h.ctx, `vx.switchTo('V2', 3000), setTimeout(function(){ vx.switchTo('V3', 3000); }, 150), 1`, nil)
	c := h.waitConversation(m, "V3")
	if strings.Join(c.HeaderNames, "|") != "Leo ❤️" || strings.Join(c.Participants, "|") != "Leo ❤️" {
		t.Errorf("V3 reported with header %q and participants %q, want only Leo ❤️", c.HeaderNames, c.Participants)
	}
	eval(t, h.ctx, `vx.deliver('hello V3')`, nil)
	h.waitFor(m, "a new message in V3", minWait, func(e protocol.Event) bool { n, ok := e.(protocol.NewMessage); return ok && n.ConversationID == "V3" })
	for _, e := range h.since(m) {
		var conv string
		var msgs []protocol.Message
		switch ev := e.Event.(type) {
		case protocol.Conversation:
			conv, msgs = ev.ConversationID, ev.Messages
			if conv == "V2" && strings.Join(ev.HeaderNames, "|") != "نور الهدى|Dr. Alice Chen" {
				t.Errorf("V2 reported with header %q", ev.HeaderNames)
			}
		case protocol.History:
			conv, msgs = ev.ConversationID, ev.Messages
		case protocol.NewMessage:
			conv, msgs = ev.ConversationID, []protocol.Message{ev.Message}
		}
		for _, msg := range msgs {
			if !strings.HasPrefix(msg.ID, conv+"-") {
				t.Errorf("a %s event for %s carried %s, a row of another conversation", e.Type, conv, msg.ID)
			}
		}
	}
}

// A switch away from a conversation that never settled keeps the rows of the one before it
// as "not this one's": those rows, still on screen, are never taken for the third
// conversation's.
func TestASwitchFromAnUnsettledConversationStillKnowsTheRowsBeforeIt(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	// CONV_A's rows stay until 800 ms after each click; CONV_S is clicked 100 ms after CONV_B.
	eval(t, h.ctx, `(function(){ fx.open('CONV_B', 800, true); setTimeout(function(){ fx.open('CONV_S', 800, true); }, 100); return 1; })()`, nil)
	c := h.waitConversation(m, "CONV_S")
	if len(c.Messages) != 1 || c.Messages[0].ID != "s1" {
		t.Errorf("CONV_S settled with %s, want only its own row s1", dump(c.Messages))
	}
}

// Search results drawn with the conversation list's row markup, over the real list (hidden
// meanwhile): nothing in them is reported as the sidebar (no conversation the list never
// drew, no search hit as a snippet, no first-time writer), whether or not their markup says
// they are search results, and what changes in the real list under them is still reported.
func TestSearchResultsWithTheListsMarkupAreNotTheSidebar(t *testing.T) {
	for _, c := range []struct{ name, plain string }{{"marked as search results", "false"}, {"unmarked", "true"}} {
		t.Run(c.name, func(t *testing.T) {
			h := openVirtual(t, "")
			h.waitFor(0, "the first sidebar", minWait, func(e protocol.Event) bool { s, ok := e.(protocol.Sidebar); return ok && s.Full })
			m := h.mark()
			eval(t, h.ctx, `vx.search(`+c.plain+`), setTimeout(function(){ vx.deliverElsewhere('V2', 'while searching'); }, 300), 1`, nil)
			h.waitFor(m, "V2's new snippet", minWait, func(e protocol.Event) bool {
				s, ok := e.(protocol.Sidebar)
				if !ok {
					return false
				}
				for _, it := range s.Items {
					if it.ID == "V2" && it.Snippet == "while searching" {
						return true
					}
				}
				return false
			})
			// Three times the sidebar's debounce with the results shown: a bridge that read
			// them as the list would have reported them by now.
			time.Sleep(1500 * time.Millisecond)
			eval(t, h.ctx, `vx.closeSearch(), vx.deliverElsewhere('V3', 'after the search'), 1`, nil)
			h.waitFor(m, "V3's new snippet", minWait, func(e protocol.Event) bool {
				s, ok := e.(protocol.Sidebar)
				return ok && len(s.Items) > 0 && slices.ContainsFunc(s.Items, func(it protocol.SidebarItem) bool { return it.ID == "V3" && it.Snippet == "after the search" })
			})
			for _, e := range h.since(m) {
				s, ok := e.Event.(protocol.Sidebar)
				if !ok {
					continue
				}
				if len(s.Removed) > 0 {
					t.Errorf("sidebar event removed %v: the list was only hidden", s.Removed)
				}
				for _, it := range s.Items {
					if it.ID == "ARCH" || strings.HasPrefix(it.Snippet, "the hit") || it.Snippet == "V2 message 3" || it.AboveKnown || it.Name == "x" {
						t.Errorf("sidebar event carried %+v from the search results", it)
					}
				}
			}
		})
	}
}

// Names reach Go as a person reads them, wherever they are read: bidi isolates and
// direction marks taken out, no-break spaces made plain, emoji sequences (a zero-width
// joiner, a variation selector) kept.
func TestNamesAreReadAsAPersonReadsThem(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/V2?virt=1&bidi=1", atDocumentStart)
	c := h.waitConversation(0, "V2")
	want := []string{"نور الهدى", "Dr. Alice Chen"}
	if !slices.Equal(c.HeaderNames, want) || !slices.Equal(c.Participants, want) {
		t.Errorf("header %q participants %q, want %q", c.HeaderNames, c.Participants, want)
	}
	for _, msg := range c.Messages {
		if !slices.Contains(want, msg.Sender) {
			t.Errorf("message %s from %q (%+q)", msg.ID, msg.Sender, msg.Sender)
		}
	}
	m := h.mark()
	eval(t, h.ctx, `vx.react('V2-m50'), 1`, nil)
	up := h.waitUpdate(m, "V2-m50", "the reaction", func(msg protocol.Message) bool { return len(msg.Reactions) == 1 })
	if !slices.Equal(up.Reactions[0].By, []string{"Dr. Alice Chen", "نور الهدى"}) {
		t.Errorf("reactors %+q", up.Reactions[0].By)
	}
	sb := h.waitFor(0, "the sidebar", minWait, func(e protocol.Event) bool { s, ok := e.(protocol.Sidebar); return ok && s.Full }).(protocol.Sidebar)
	names := map[string]string{}
	for _, it := range sb.Items {
		names[it.ID] = it.Name
	}
	for id, n := range map[string]string{"V1": "Zoë 👩🏽‍💻", "V2": "نور الهدى, Dr. Alice Chen", "V3": "Leo ❤️"} {
		if names[id] != n {
			t.Errorf("sidebar name of %s = %+q, want %+q", id, names[id], n)
		}
	}
}

// An element whose id changes is one message leaving and another arriving: only a pending
// tmp_ id that becomes an id never seen, on a row that still says the same, is an id change.
// A tmp_ row recycled into an older message, and a real id rewritten to another, are not.
func TestAnIDChangeIsAnIDChangeOnlyWhenItReallyIsOne(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	rewrite := func(oldID, newID, text string) {
		eval(t, h.ctx, fmt.Sprintf(`(function(){ var c = document.querySelector('[data-e2e-message-id=%q]'), p = c.querySelector('mws-text-message-part');
			p.setAttribute('aria-label', fx.L('Jane Doe', %q)); p.textContent = %q; c.setAttribute('data-e2e-message-id', %q); return 1; })()`, oldID, text, text, newID), nil)
	}
	eval(t, h.ctx, `fx.append({id:'tmp_7', label: fx.L('You','on my way','Sent'), text:'on my way', out:true}), 1`, nil)
	h.waitNewID(m, "tmp_7")
	rewrite("tmp_7", "older-1", "an older message")
	rewrite("a2", "older-2", "another older one")
	eval(t, h.ctx, `fx.append({id:'tmp_8', label: fx.L('You','see you','Sent'), text:'see you', out:true}), 1`, nil)
	h.waitNewID(m, "tmp_8")
	eval(t, h.ctx, `fx.setId('tmp_8', 'uuid-8'), 1`, nil)
	h.waitFor(m, "tmp_8 renamed", minWait, func(e protocol.Event) bool { s, ok := e.(protocol.MessageID); return ok && s.OldID == "tmp_8" })
	if swaps := h.idSwaps(m); !slices.Equal(swaps, []string{"tmp_8>uuid-8"}) {
		t.Errorf("message_id events %v, want only tmp_8>uuid-8", swaps)
	}
	if news := h.newIDs(m); !slices.Equal(news, []string{"tmp_7", "tmp_8"}) {
		t.Errorf("message events %v, want tmp_7 and tmp_8: rows rewritten with other messages are not new", news)
	}
	h.waitHistory(m, []string{"older-1", "older-2"})
}

// A row whose label says it is older than the newest message known is history, wherever
// the page puts it; one from the same minute is new.
func TestARowLabelledOlderThanTheNewestMessageIsHistory(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	eval(t, h.ctx, `fx.append({id:'jan', label: 'Jane Doe said: from January. Received on January 5, 2026 at 1:00 PM.', text:'from January'}),
		fx.append({id:'same', label: fx.L('Jane Doe','same minute'), text:'same minute'}), 1`, nil)
	h.waitNewID(m, "same")
	h.waitHistory(m, []string{"jan"})
	if news := h.newIDs(m); !slices.Equal(news, []string{"same"}) {
		t.Errorf("message events %v, want only same", news)
	}
}

// Hidden panes, search results and dialogs drawn with the rows' markup are never read: not
// at settle, not when rows are added to them.
func TestHiddenPanesSearchResultsAndDialogsAreNeverTheConversation(t *testing.T) {
	h, url := openFixture(t, "/web/conversations/CONV_B", noBridge)
	_ = url
	eval(t, h.ctx, `(function(){
		var hidden = document.createElement('div'); hidden.setAttribute('data-e2e-conversation-container',''); hidden.setAttribute('aria-hidden','true'); hidden.style.display = 'none';
		hidden.innerHTML = '<div data-e2e-header-title><h2>Stranger</h2></div><mws-messages-list></mws-messages-list>';
		document.body.appendChild(hidden);
		hidden.querySelector('mws-messages-list').appendChild(fx.make({id:'ghost1', label: fx.L('Stranger','from a hidden pane'), text:'from a hidden pane'}));
		var res = document.createElement('mws-search-results');
		res.appendChild(fx.make({id:'hit1', label: fx.L('Mom','a search hit'), text:'a search hit'}));
		document.querySelector('[data-e2e-conversation-container]').appendChild(res);
		var dlg = document.createElement('div'); dlg.setAttribute('role','dialog');
		dlg.appendChild(fx.make({id:'dlg1', label: fx.L('Dad','message details'), text:'message details'}));
		document.body.appendChild(dlg);
		return 1; })()`, nil)
	h.inject()
	c := h.waitConversation(0, "CONV_B")
	var ids []string
	for _, msg := range c.Messages {
		ids = append(ids, msg.ID)
	}
	if !slices.Equal(ids, []string{"b1", "b2"}) || !slices.Equal(c.HeaderNames, []string{"Dad", "Mom"}) {
		t.Errorf("CONV_B settled with rows %v and header %q, want b1,b2 and Dad,Mom", ids, c.HeaderNames)
	}
	m := h.mark()
	eval(t, h.ctx, `(function(){
		document.querySelector('[aria-hidden] mws-messages-list').appendChild(fx.make({id:'ghost2', label: fx.L('Stranger','more'), text:'more'}));
		document.querySelector('mws-search-results').appendChild(fx.make({id:'hit2', label: fx.L('Mom','another hit'), text:'another hit'}));
		document.querySelector('[role=dialog]').appendChild(fx.make({id:'dlg2', label: fx.L('Dad','more details'), text:'more details'}));
		fx.append({id:'b3', label: fx.L('Mom','a real one'), text:'a real one'}); return 1; })()`, nil)
	h.waitNewID(m, "b3")
	for _, e := range h.since(m) {
		for _, id := range []string{"ghost", "hit", "dlg"} {
			if strings.Contains(string(e.Data), `"`+id) {
				t.Errorf("a %s event carried a row of a hidden pane, search results or a dialog: %.200s", e.Type, e.Data)
			}
		}
	}
}

// A pane the page rewrites for the next conversation before the address changes (its
// header first, then its rows): the rows are not the open conversation's, and the next
// conversation settles with them once the address says so.
func TestAPaneRewrittenForTheNextConversationBeforeTheAddressChanges(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	eval(t, h.ctx, `(function(){
		var h = document.querySelector('[data-e2e-header-title]'); h.innerHTML = '<h2>Dad</h2><h2>Mom</h2>';
		setTimeout(function(){
			var l = document.querySelector('mws-messages-list'); l.innerHTML = '';
			fx.data.CONV_B.rows.forEach(function(r){ l.appendChild(fx.make(r)); });
			setTimeout(function(){ history.pushState({}, '', '/web/conversations/CONV_B'); document.body.setAttribute('data-x', '1'); }, 150);
		}, 100);
		return 1; })()`, nil)
	c := h.waitConversation(m, "CONV_B")
	if len(c.Messages) != 2 || c.Messages[0].ID != "b1" {
		t.Errorf("CONV_B settled with %s", dump(c.Messages))
	}
	for _, e := range h.since(m) {
		switch ev := e.Event.(type) {
		case protocol.History:
			if ev.ConversationID == "CONV_A" {
				t.Errorf("CONV_B's rows were reported as CONV_A's history: %s", dump(ev.Messages))
			}
		case protocol.NewMessage:
			t.Errorf("a message event during the switch: %s in %s", ev.Message.ID, ev.ConversationID)
		}
	}
}

// Names the page resolves late, twice while the conversation settles (a number, then one
// name, then the names): the header changing twice is how a pane rewritten for the next
// conversation looks too, so the bridge waits for the names to keep still, and then the
// conversation settles with the names it ended with and its rows, and a message after is
// new. The wait is a delay, never silence.
func TestAHeaderResolvedTwiceWhileSettlingStillSettles(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	eval(t, h.ctx, `(function(){
		fx.open('CONV_B');
		var names = function(html){ document.querySelector('[data-e2e-header-title]').innerHTML = html; };
		setTimeout(function(){ names('<h2>+1 555 0100</h2>'); }, 50);
		setTimeout(function(){ names('<h2>Dad</h2>'); }, 120);
		setTimeout(function(){ names('<h2>Dad</h2><h2>Mom</h2>'); }, 200);
		return 1; })()`, nil)
	c := h.waitConversation(m, "CONV_B")
	if !slices.Equal(c.HeaderNames, []string{"Dad", "Mom"}) || len(c.Messages) != 2 || c.Messages[0].ID != "b1" {
		t.Fatalf("CONV_B settled with header %q and %s, want Dad, Mom and b1, b2", c.HeaderNames, dump(c.Messages))
	}
	eval(t, h.ctx, `fx.append({id:'b3', label: fx.L('Mom','and now?'), text:'and now?'}), 1`, nil)
	h.waitNewID(m, "b3")
}

// A row a virtual list brings in above the live end, whose element it reuses for another
// message before the page labelled it, and which then comes again at the bottom (a reused
// element showing its old message for a moment): it was history when it came, so it is
// history when it comes back, never a new message, and a message after it is new (sweep seed
// 620131: the first message of a conversation reported new after a scroll-back and back down).
func TestARowThatLeftBeforeItsLabelKeepsItsClassWhenItComesBack(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	eval(t, h.ctx, `(function(){
		fx.prepend([{id:'old1', label: fx.L('Jane Doe','from before'), text:'from before', lateLabel: 60000}]);
		setTimeout(function(){ fx.setId('old1', 'old2'); }, 300);
		setTimeout(function(){ fx.append({id:'old1', label: fx.L('Jane Doe','from before'), text:'from before'}); }, 600);
		setTimeout(function(){ fx.append({id:'n1', label: fx.L('Jane Doe','just now'), text:'just now'}); }, 900);
		return 1; })()`, nil)
	h.waitNewID(m, "n1")
	if news := h.newIDs(m); !slices.Equal(news, []string{"n1"}) {
		t.Errorf("message events %v, want only n1: old1 came above the live end", news)
	}
}

// A virtual list that recycles a new row's element before the page labelled it, all in one
// task (the element leaves the live end, is rewritten to show an older message and goes in
// at the top, as a slow machine lets the page do between two observer callbacks): the older
// message is history. The new row's class belongs to the message it showed, not to the
// element, nor to whatever the element shows by the time the bridge looks.
func TestARecycledRowTakesNoClassFromTheMessageItShowedBefore(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	eval(t, h.ctx, `(function(){
		fx.append({id:'n1', label: fx.L('Jane Doe','just now'), text:'just now', lateLabel: 60000});
		setTimeout(function(){
			var core = document.querySelector('[data-e2e-message-id="n1"]');
			var w = core.closest('mws-message-wrapper');
			w.remove();
			core.setAttribute('data-e2e-message-id', 'old1');
			var part = core.querySelector('mws-text-message-part');
			part.textContent = 'from before';
			part.setAttribute('aria-label', fx.L('Jane Doe','from before'));
			var top = document.querySelector('mws-message-wrapper');
			top.parentElement.insertBefore(w, top);
		}, 400);
		setTimeout(function(){ fx.append({id:'n2', label: fx.L('Jane Doe','after that'), text:'after that'}); }, 900);
		return 1; })()`, nil)
	h.waitNewID(m, "n2")
	if news := h.newIDs(m); slices.Contains(news, "old1") {
		t.Errorf("message events %v: old1 came at the top of the list, in an element that showed a new row before", news)
	}
	testkit.WaitFor(t, minWait, "old1 as history", func() (bool, string) {
		for _, e := range h.since(m) {
			if hi, ok := e.Event.(protocol.History); ok && strings.Contains(dump(hi.Messages), "old1") {
				return true, ""
			}
		}
		return false, "no history event carries old1"
	})
}

// A page that draws a conversation into the pane before its address (the address follows the
// rows), and moves on to a third the same way before the second settled, marking the third
// in the conversation list: the second is never reported with the third's header or rows,
// even when the list does not name the third as its header does and the header changed only
// once since the address did.
func TestAPaneMovedOnBeforeTheAddressIsNotTheConversationOnIt(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	eval(t, h.ctx, `(function(){
		var mark = function(id){ document.querySelectorAll('a[data-e2e-conversation]').forEach(function(a){ a.setAttribute('aria-selected', String(a.getAttribute('href').endsWith('/' + id))); }); };
		var draw = function(names, rows){
			document.querySelector('[data-e2e-header-title]').innerHTML = names.map(function(n){ return '<h2>' + n + '</h2>'; }).join('');
			var l = document.querySelector('mws-messages-list'); l.innerHTML = '';
			rows.forEach(function(r){ l.appendChild(fx.make(r)); });
		};
		mark('CONV_B'); draw(['Dad', 'Mom'], fx.data.CONV_B.rows);
		setTimeout(function(){ history.pushState({}, '', '/web/conversations/CONV_B'); }, 100);
		setTimeout(function(){
			mark('CONV_S');
			draw(['Bank alerts'], [{id:'z1', label: fx.L('Bank alerts','balance low'), text:'balance low'}, {id:'z2', label: fx.L('Bank alerts','card used'), text:'card used'}]);
		}, 400);
		setTimeout(function(){ history.pushState({}, '', '/web/conversations/CONV_S'); }, 3400);
		return 1; })()`, nil)
	h.waitConversation(m, "CONV_S")
	for _, e := range h.since(m) {
		if c, ok := e.Event.(protocol.Conversation); ok && c.ConversationID == "CONV_B" {
			if slices.Contains(c.HeaderNames, "Bank alerts") || strings.Contains(string(e.Data), `"z1"`) {
				t.Errorf("CONV_B was reported with the next conversation's header or rows: %q %s", c.HeaderNames, dump(c.Messages))
			}
		}
	}
}

// A known row drawn again without its label (the page fills labels a moment after drawing a
// row, also when it draws a pane again) says less, not something else: no message_update
// with the label missing, and none at all when the label that comes says what it said.
func TestARowDrawnAgainBeforeItsLabelIsNoUpdate(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/V1?virt=1&mode=plain&late=1", atDocumentStart)
	c := h.waitConversation(0, "V1")
	if len(c.Messages) != 20 || c.Messages[19].Sender == "" {
		t.Fatalf("V1 settled with %s", dump(c.Messages))
	}
	m := h.mark()
	eval(t, h.ctx, `vx.rerenderPane(0), 1`, nil)
	testkit.WaitFor(t, minWait, "the labels drawn again", func() (bool, string) {
		var n int
		eval(t, h.ctx, `document.querySelectorAll('mws-text-message-part[aria-label]').length`, &n)
		return n == 20, ""
	})
	var id string
	eval(t, h.ctx, `vx.deliver('after the redraw')`, &id)
	h.waitNewID(m, id)
	for _, e := range h.since(m) {
		if u, ok := e.Event.(protocol.MessageUpdate); ok && u.Message.ID != id {
			t.Errorf("message_update of %s (sender %q, labelKind %s) after the pane was drawn again with the same rows", u.Message.ID, u.Message.Sender, u.Message.LabelKind)
		}
	}
}

// The page opening the open conversation again (a history entry pushed for the same
// address, the list drawn anew, as a search hit in it opens it) is a new visit: it settles
// afresh, and a row that came just before it is part of that baseline, never new.
func TestTheConversationOpenedAgainSettlesAfresh(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	eval(t, h.ctx, `(function(){
		var r = {id:'p1', label: fx.L('Jane Doe','just before'), text:'just before'};
		fx.data.CONV_A.rows.push(r);
		fx.append({id:'p1', label: r.label, text: r.text, lateLabel: 5000});
		setTimeout(function(){ fx.open('CONV_A'); }, 100);
		return 1; })()`, nil)
	c := h.waitConversation(m, "CONV_A")
	var ids []string
	for _, msg := range c.Messages {
		ids = append(ids, msg.ID)
	}
	if !slices.Equal(ids, []string{"a1", "a2", "p1"}) {
		t.Errorf("CONV_A opened again settled with %v, want a1,a2,p1", ids)
	}
	eval(t, h.ctx, `fx.append({id:'p2', label: fx.L('Jane Doe','after'), text:'after'}), 1`, nil)
	h.waitNewID(m, "p2")
	if news := h.newIDs(m); !slices.Equal(news, []string{"p2"}) {
		t.Errorf("message events %v, want only p2", news)
	}
}

// A header that changes without a switch: the conversation renamed (the conversation list
// names it the new way too) takes the rows that come; a pane showing another conversation
// under the same address (the list still names this one the old way) never gives its rows
// to this conversation, however long it stays.
func TestAHeaderThatChangesWithoutASwitch(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	eval(t, h.ctx, `(function(){
		document.querySelector('[data-e2e-header-title]').innerHTML = '<h2>Dad</h2><h2>Mom</h2>';
		fx.append({id:'x1', label: fx.L('Mom','not this conversation'), text:'not this conversation'});
		return 1; })()`, nil)
	// More than the time a switch takes, and than a bridge that gave up waiting would wait.
	time.Sleep(3 * time.Second)
	eval(t, h.ctx, `(function(){
		document.querySelector('[data-e2e-header-title]').innerHTML = '<h2>Jane Q. Doe</h2>';
		document.querySelector('a[href$="/CONV_A"] [data-e2e-conversation-name]').textContent = 'Jane Q. Doe';
		fx.append({id:'x2', label: fx.L('Jane Q. Doe','renamed and writing'), text:'renamed and writing'});
		return 1; })()`, nil)
	h.waitNewID(m, "x2")
	for _, e := range h.since(m) {
		if strings.Contains(string(e.Data), `"x1"`) {
			t.Errorf("a %s event carried x1, a row drawn under another conversation's header", e.Type)
		}
	}
}

// The user opens another conversation and comes back before it settled (a click away and
// straight back, or Clanker's typing interrupted by a glance elsewhere): the conversation
// comes back with its own rows, at once, and a message that arrives in it is new. Its own
// rows are never "the previous conversation's" rows still on screen: that made the bridge
// wait its full bound for them to leave, settle without them, and take what arrived
// meanwhile as baseline, so Clanker never answered it (the full-app test's return to Bob).
func TestComingBackBeforeTheOtherConversationSettledIsNotDeaf(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	// CONV_B is drawn 50 ms after its click; CONV_A is clicked again 60 ms after CONV_B,
	// before CONV_B could settle.
	eval(t, h.ctx, `(function(){ fx.open('CONV_B', 50); setTimeout(function(){ fx.open('CONV_A'); }, 60); return 1; })()`, nil)
	c := h.waitConversation(m, "CONV_A")
	var ids []string
	for _, msg := range c.Messages {
		ids = append(ids, msg.ID)
	}
	if !slices.Equal(ids, []string{"a1", "a2"}) {
		t.Errorf("CONV_A, come back to, settled with %v, want its own rows a1,a2", ids)
	}
	eval(t, h.ctx, `fx.append({id:'a3', label: fx.L('Jane Doe','back again'), text:'back again'}), 1`, nil)
	h.waitNewID(m, "a3")
	for _, e := range h.since(m) {
		if cv, ok := e.Event.(protocol.Conversation); ok && cv.ConversationID == "CONV_B" {
			t.Errorf("CONV_B, left before it settled, was reported: %s", dump(cv.Messages))
		}
	}
}

// A row drawn at the live end whose label has not come when the user switches away is
// still that conversation's new message: it is reported with what can be read, before the
// switch, not dropped with the conversation.
func TestARowWaitingForItsLabelIsReportedWhenTheUserSwitchesAway(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	eval(t, h.ctx, `fx.append({id:'late1', label: fx.L('Jane Doe','just in time'), text:'just in time', lateLabel: 60000}),
		setTimeout(function(){ fx.open('CONV_B'); }, 100), 1`, nil)
	h.waitConversation(m, "CONV_B")
	got := -1
	for i, e := range h.since(m) {
		switch ev := e.Event.(type) {
		case protocol.NewMessage:
			if ev.Message.ID == "late1" {
				got = i
				if ev.ConversationID != "CONV_A" || ev.Message.Text != "just in time" {
					t.Errorf("late1 reported as %s in %s", dump(ev.Message), ev.ConversationID)
				}
			}
		case protocol.PageState:
			if ev.ConversationID == "CONV_B" && got < 0 {
				t.Errorf("the switch to CONV_B was announced before late1 was reported: %s", summary(h.since(m)))
			}
		}
	}
	if got < 0 {
		t.Errorf("late1, drawn at the live end, was never reported: %s", summary(h.since(m)))
	}
}
