package bridgetest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The fixture is a small static page shaped like the Google Messages web app: sidebar, header,
// message list and compose box, with an SPA that swaps the pane on sidebar clicks. Its
// window.fx helpers let a test add, prepend, relabel and re-id rows exactly as the real
// page does, independently of the simulator.
const fixtureHTML = `<!doctype html><html><head><title>Messages</title></head><body>
<a data-e2e-start-button href="/web/conversations/new">Start chat</a>
<mws-conversations-list><nav>
 <mws-conversation-list-item><a class="list-item" href="/web/conversations/CONV_A" data-e2e-conversation data-e2e-is-pinned="true" data-e2e-is-muted="false" data-e2e-is-unread="false" aria-selected="false">
  <h2 class="name"><span data-e2e-conversation-name>Jane Doe</span></h2>
  <div data-e2e-conversation-snippet><mws-conversation-snippet><span>You: [clanker] Sure</span></mws-conversation-snippet></div></a></mws-conversation-list-item>
 <mws-conversation-list-item><a class="list-item" href="/web/conversations/CONV_B" data-e2e-conversation data-e2e-is-pinned="false" data-e2e-is-muted="true" data-e2e-is-unread="true" aria-selected="false">
  <h2 class="name"><span data-e2e-conversation-name>Dad, Mom</span></h2>
  <div data-e2e-conversation-snippet><mws-conversation-snippet><span>Mom: dinner?</span></mws-conversation-snippet></div></a></mws-conversation-list-item>
 <mws-conversation-list-item><a class="list-item" href="/web/conversations/CONV_S" data-e2e-conversation data-e2e-is-pinned="false" data-e2e-is-muted="false" data-e2e-is-unread="false" aria-selected="false">
  <h2 class="name"><span data-e2e-conversation-name>72975</span></h2>
  <div data-e2e-conversation-snippet><mws-conversation-snippet><span>Your code is 1234</span></mws-conversation-snippet></div></a></mws-conversation-list-item>
</nav></mws-conversations-list>
<div data-e2e-conversation-container>
 <div data-e2e-header-title></div>
 <mws-messages-list></mws-messages-list>
 <div data-e2e-message-input>%s<button data-e2e-send-text-button aria-label="Send SMS">SMS</button></div>
</div>
<script>
(function(){
  var L = function(s, t, d){ return s + ' said: ' + t + '. ' + (d||'Received') + ' on February 3, 2026 at 6:41 PM.'; };
  var data = {
    CONV_A: { header: ['Jane Doe'], rows: [
      {id:'a1', label: L('Jane Doe','Anyone up for tacos?'), text:'Anyone up for tacos?'},
      {id:'a2', label: L('You','[clanker] Sure, tacos sound great','Sent') + ' Read. Jane Doe reacted with laugh.', text:'[clanker] Sure, tacos sound great', out:true}
    ]},
    CONV_B: { header: ['Dad','Mom'], rows: [
      {id:'b1', label: L('Mom','dinner?'), text:'dinner?'},
      {id:'b2', label: L('Dad','I agree.'), text:'I agree.'}
    ]},
    CONV_S: { header: ['72975'], rows: [ {id:'s1', label: L('72975','Your code is 1234'), text:'Your code is 1234'} ]}
  };
  // ?rows=N adds a conversation BENCH with N rows (benchmarks).
  var nRows = +new URLSearchParams(location.search).get('rows');
  // &long=N makes every row's text N characters long (size caps).
  var long = +new URLSearchParams(location.search).get('long');
  var body = function(i){ return long ? ('row ' + i + ' ' + 'x'.repeat(long)).slice(0, long) : 'row ' + i; };
  if (nRows) data.BENCH = { header: ['Bench'], rows: Array.from({length: nRows}, function(_, i){ return {id: 'r' + i, label: L('Jane Doe', body(i)), text: body(i)}; }) };
  var list = function(){ return document.querySelector('mws-messages-list'); };
  // &nest=0|1|2|mixed puts the rows 0, 1 or 2 elements deeper than the message list
  // (mws-bottom-anchored, then day groups), or at a different depth per row.
  var nest = new URLSearchParams(location.search).get('nest') || '0';
  var seq = 0;
  function anchored(){
    var a = list().querySelector('mws-bottom-anchored');
    if (!a) { a = document.createElement('mws-bottom-anchored'); list().appendChild(a); }
    return a;
  }
  function day(top){
    var a = anchored();
    var groups = a.querySelectorAll(':scope > div.day');
    if (top || !groups.length) { var g = document.createElement('div'); g.className = 'day'; a.insertBefore(g, top ? a.firstElementChild : null); return g; }
    return groups[groups.length - 1];
  }
  // holder is where rows are appended; top says rows go above all others (scroll-back).
  function holder(top){
    if (nest === '1' || nest === 'mixed') return anchored();
    if (nest === '2') return day(top);
    return list();
  }
  // shape wraps a row in 0-2 extra elements when nest=mixed (varying per row).
  function shape(w){
    if (nest !== 'mixed') return w;
    var depth = (seq++) %% 3;
    for (var i = 0; i < depth; i++) { var d = document.createElement(i ? 'section' : 'div'); d.className = 'x' + i; d.appendChild(w); w = d; }
    return w;
  }
  function lateSet(el, name, value, ms){ setTimeout(function(){ el.setAttribute(name, value); }, ms); }
  function make(r){
    var w = document.createElement('mws-message-wrapper');
    w.setAttribute('data-e2e-message-wrapper','');
    // coreIsWrapper: the wrapper element carries the core attributes itself.
    var c = r.coreIsWrapper ? w : document.createElement('div');
    // Attribute order varies: the id first on some rows.
    if (r.idFirst) c.setAttribute('data-e2e-message-id', r.id);
    c.setAttribute('data-e2e-message-wrapper-core','');
    if (!r.idFirst) c.setAttribute('data-e2e-message-id', r.id);
    if (r.out !== undefined) c.setAttribute('data-e2e-message-outgoing', String(!!r.out));
    if (r.tombstone) c.setAttribute('data-e2e-message-tombstone','');
    if (r.shownName) { var sn = document.createElement('div'); sn.className = 'sender-name'; sn.textContent = r.shownName; w.appendChild(sn); }
    if (r.quote) {
      var q = document.createElement('div'); q.className = 'embed-msg-part-container';
      var qp = document.createElement('mws-text-message-part');
      qp.setAttribute('aria-label', r.quote.label); qp.textContent = r.quote.text;
      q.appendChild(qp); c.appendChild(q);
    }
    if (r.image) {
      var ip = document.createElement('mws-image-message-part');
      if (!r.lateLabel) ip.setAttribute('aria-label', r.image.label);
      var holderDiv = document.createElement('div'); holderDiv.setAttribute('data-e2e-message-image','');
      ip.appendChild(holderDiv); c.appendChild(ip);
      var addImg = function(){
        var img = document.createElement('img'); img.alt = r.image.alt || '';
        if (r.image.lateSrc) lateSet(img, 'src', r.image.src, r.image.lateSrc); else img.src = r.image.src;
        holderDiv.appendChild(img);
      };
      // lateImg: the <img> element itself arrives after the row.
      if (r.image.lateImg) setTimeout(addImg, r.image.lateImg); else addImg();
    }
    if (r.label !== undefined) {
      var tp = document.createElement('mws-text-message-part');
      tp.setAttribute('data-e2e-text-message-content','');
      if (!r.lateLabel) tp.setAttribute('aria-label', r.label);
      tp.textContent = r.text || '';
      c.appendChild(tp);
    }
    if (r.attachment) {
      // A video or file row: no text or image part. Its label (if any) sits on the
      // attachment part, on the core, or nowhere.
      var ap = document.createElement('mws-' + (r.attachment.kind || 'file') + '-message-part');
      var btn = document.createElement('button'); btn.setAttribute('aria-label', 'Download'); ap.appendChild(btn);
      c.appendChild(ap);
      var on = r.attachment.on === 'core' ? c : ap;
      if (r.attachment.label) { if (r.lateLabel) lateSet(on, 'aria-label', r.attachment.label, r.lateLabel); else on.setAttribute('aria-label', r.attachment.label); }
    }
    if (c !== w) w.appendChild(c);
    if (r.lateLabel && !r.attachment) setTimeout(function(){
      var p = c.querySelector('mws-text-message-part:not(.embed-msg-part-container *)') || c.querySelector('mws-image-message-part');
      p.setAttribute('aria-label', r.label !== undefined ? r.label : r.image.label);
    }, r.lateLabel);
    return shape(w);
  }
  function render(id){
    var d = data[id]; if (!d) return;
    var h = document.querySelector('[data-e2e-header-title]');
    h.innerHTML = ''; d.header.forEach(function(n){ var e = document.createElement('h2'); e.textContent = n; h.appendChild(e); });
    d.rows.forEach(function(r){ holder(false).appendChild(make(r)); });
  }
  function open(id, delay, keepOld){
    history.pushState({}, '', '/web/conversations/' + id + location.search);
    document.querySelectorAll('a[data-e2e-conversation]').forEach(function(a){ a.setAttribute('aria-selected', String(a.getAttribute('href').endsWith('/' + id))); });
    if (!keepOld) list().innerHTML = '';
    var go = function(){ list().innerHTML = ''; render(id); };
    if (delay) setTimeout(go, delay); else go();
  }
  document.addEventListener('click', function(ev){
    var a = ev.target.closest && ev.target.closest('a[data-e2e-conversation]');
    if (!a) return;
    ev.preventDefault();
    open(a.getAttribute('href').split('/').pop(), window.fxDelay || 0, window.fxKeepOld);
  });
  window.addEventListener('popstate', function(){ var id = location.pathname.split('/').pop(); list().innerHTML=''; render(id); });
  var rowOf = function(o){ var c = document.querySelector('[data-e2e-message-id="'+o+'"]'); return c.closest('mws-message-wrapper'); };
  window.fx = {
    L: L, make: make, open: open, data: data,
    append: function(r){ holder(false).appendChild(make(r)); },
    // prepend puts rows above every other row (scroll-back); with nest=2 they come in a
    // new day group of their own, so they are not siblings of any known row.
    prepend: function(rs){ var h = holder(true); var first = h.firstElementChild; rs.forEach(function(r){ h.insertBefore(make(r), first); }); },
    // before inserts a row right above the row with id o (its wrapper, at any depth).
    before: function(o, r){ var w = rowOf(o); var t = w; while (t.parentElement && t.parentElement.matches('div.x0, section.x1')) t = t.parentElement; t.parentElement.insertBefore(make(r), t); },
    setId: function(o, n){ document.querySelector('[data-e2e-message-id="'+o+'"]').setAttribute('data-e2e-message-id', n); },
    replace: function(o, r){ rowOf(o).replaceWith(make(r)); },
    removeFirst: function(){ var w = list().querySelector('mws-message-wrapper'); w.remove(); }
  };
  var first = location.pathname.match(/conversations\/([^/?#]+)/);
  if (first) render(first[1]);
  // &pane=late takes the conversation pane (with its rows) out of the page until
  // fx.showPane(): a page whose sidebar is drawn long before the conversation.
  if (new URLSearchParams(location.search).get('pane') === 'late') {
    var pane = document.querySelector('[data-e2e-conversation-container]');
    var after = pane.nextSibling;
    pane.remove();
    window.fx.showPane = function(){ document.body.insertBefore(pane, after); };
  }
})();
</script></body></html>`

const textareaBox = `<textarea data-e2e-message-input-box aria-label="Text message"></textarea>`
const editableBox = `<div contenteditable="true" data-e2e-message-input-box aria-label="Text message"></div>`

// drifted renames the page structure the way a redesign might: the conversation pane,
// message list, header and sidebar list and items get names the selector table does not
// know. Rows, their parts, the sidebar links and the compose box keep theirs.
var drifted = strings.NewReplacer(
	"mws-messages-list", "mws-thread-rows",
	"data-e2e-conversation-container", "data-e2e-thread-pane",
	"data-e2e-header-title", "data-e2e-thread-title",
	"mws-conversations-list", "mws-chat-list",
	"mws-conversation-list-item", "mws-chat-list-row",
)

// startFixture serves the fixture at /web/conversations[/ID] (add ?ce=1 for a
// contenteditable compose box, &nest=0|1|2|mixed for rows nested deeper, &drift=1 for a
// redesigned structure, &pane=late for a pane that appears only on fx.showPane(); ?virt=1
// serves the virtual-scrolling page of fixture_virtual_test.go instead), a
// signed-out pairing page at /web/authentication (and, without the telling path, at
// /web/pair) and a page with none of the known structure at /web/other.
func startFixture(t testing.TB) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch {
		case strings.HasPrefix(r.URL.Path, "/web/conversations") && r.URL.Query().Get("virt") == "1":
			fmt.Fprint(w, virtualHTML)
		case strings.HasPrefix(r.URL.Path, "/web/conversations"):
			box := textareaBox
			if r.URL.Query().Get("ce") == "1" {
				box = editableBox
			}
			page := fmt.Sprintf(fixtureHTML, box)
			if r.URL.Query().Get("drift") == "1" {
				page = drifted.Replace(page)
			}
			fmt.Fprint(w, page)
		case r.URL.Path == "/web/authentication" || r.URL.Path == "/web/pair":
			fmt.Fprint(w, `<!doctype html><title>Messages</title><body><mw-qr-code><img alt="QR code"></mw-qr-code><p>Scan this code with the Messages app on your phone</p></body>`)
		case r.URL.Path == "/web/other":
			fmt.Fprint(w, `<!doctype html><title>Something else</title><body><div class="app"><p>Welcome to a redesigned page</p></div></body>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}
