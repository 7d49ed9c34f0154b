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
  function make(r){
    var w = document.createElement('mws-message-wrapper');
    w.setAttribute('data-e2e-message-wrapper','');
    var c = document.createElement('div');
    c.setAttribute('data-e2e-message-wrapper-core','');
    c.setAttribute('data-e2e-message-id', r.id);
    if (r.out !== undefined) c.setAttribute('data-e2e-message-outgoing', String(!!r.out));
    if (r.tombstone) c.setAttribute('data-e2e-message-tombstone','');
    if (r.quote) {
      var q = document.createElement('div'); q.className = 'embed-msg-part-container';
      var qp = document.createElement('mws-text-message-part');
      qp.setAttribute('aria-label', r.quote.label); qp.textContent = r.quote.text;
      q.appendChild(qp); c.appendChild(q);
    }
    if (r.image) {
      var ip = document.createElement('mws-image-message-part');
      if (!r.lateLabel) ip.setAttribute('aria-label', r.image.label);
      var img = document.createElement('img'); img.src = r.image.src; img.alt = r.image.alt || '';
      ip.appendChild(img); c.appendChild(ip);
    }
    if (r.label !== undefined) {
      var tp = document.createElement('mws-text-message-part');
      tp.setAttribute('data-e2e-text-message-content','');
      if (!r.lateLabel) tp.setAttribute('aria-label', r.label);
      tp.textContent = r.text || '';
      c.appendChild(tp);
    }
    w.appendChild(c);
    if (r.lateLabel) setTimeout(function(){
      var p = c.querySelector('mws-text-message-part:not(.embed-msg-part-container *)') || c.querySelector('mws-image-message-part');
      p.setAttribute('aria-label', r.label !== undefined ? r.label : r.image.label);
    }, r.lateLabel);
    return w;
  }
  function render(id){
    var d = data[id]; if (!d) return;
    var h = document.querySelector('[data-e2e-header-title]');
    h.innerHTML = ''; d.header.forEach(function(n){ var e = document.createElement('h2'); e.textContent = n; h.appendChild(e); });
    d.rows.forEach(function(r){ list().appendChild(make(r)); });
  }
  function open(id, delay, keepOld){
    history.pushState({}, '', '/web/conversations/' + id);
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
  window.fx = {
    L: L, make: make, open: open, data: data,
    append: function(r){ list().appendChild(make(r)); },
    prepend: function(rs){ var first = list().firstElementChild; rs.forEach(function(r){ list().insertBefore(make(r), first); }); },
    setId: function(o, n){ document.querySelector('[data-e2e-message-id="'+o+'"]').setAttribute('data-e2e-message-id', n); },
    replace: function(o, r){ var c = document.querySelector('[data-e2e-message-id="'+o+'"]'); c.closest('mws-message-wrapper').replaceWith(make(r)); },
    removeFirst: function(){ list().firstElementChild.remove(); }
  };
  var first = location.pathname.match(/conversations\/([^/?#]+)/);
  if (first) render(first[1]);
})();
</script></body></html>`

const textareaBox = `<textarea data-e2e-message-input-box aria-label="Text message"></textarea>`
const editableBox = `<div contenteditable="true" data-e2e-message-input-box aria-label="Text message"></div>`

// startFixture serves the fixture at /web/conversations[/ID] (add ?ce=1 for a
// contenteditable compose box), a signed-out pairing page at /web/authentication and a
// page with none of the known structure at /web/other.
func startFixture(t testing.TB) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch {
		case strings.HasPrefix(r.URL.Path, "/web/conversations"):
			box := textareaBox
			if r.URL.Query().Get("ce") == "1" {
				box = editableBox
			}
			fmt.Fprintf(w, fixtureHTML, box)
		case r.URL.Path == "/web/authentication":
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
