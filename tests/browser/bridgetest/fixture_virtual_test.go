package bridgetest

// virtualHTML is a second fixture page, written for issue 28: a conversation pane whose
// message list scrolls virtually, the way Angular CDK's virtual scroll and similar lists
// do. The list (a scroller of fixed height) holds a spacer as tall as every message of the
// conversation and a content box, moved down by a transform, that draws only a range of
// rows. How rows are drawn when the range moves depends on ?mode=:
//
//	recycle  a view cache of 20: rows leaving the range go to the cache and their elements
//	         are reused for rows entering it (moved and rewritten); with &stale=1 a reused
//	         element is put in place still showing its old message and rewritten a moment
//	         later
//	index    elements keyed by their place in the range: a moved range rewrites every
//	         element in place (its id, label and text)
//	plain    rows leaving are removed, rows entering made anew
//
// window.vx lets a test open a conversation at its live end or at an older message (as a
// search hit opens it, with a "Jump to newest message" button while the view is away from
// the live end), scroll the range, deliver messages (drawn only when the view is at the live
// end), draw the list or the pane again (the old pane lingering hidden or visible), switch
// with old panes lingering, and draw search results with the conversation list's row markup
// over the real list. Names may carry bidi isolates, direction marks and no-break spaces
// (&bidi=1), as a page drawing right-to-left names does; with &late=1 every row drawn gets
// its label a moment later.
const virtualHTML = `<!doctype html><html><head><title>Messages</title><style>
 body { margin: 0; font: 14px sans-serif; }
 .side { position: fixed; left: 0; top: 0; width: 300px; bottom: 0; overflow: auto; }
 .host { position: fixed; left: 300px; right: 0; top: 0; bottom: 0; }
 mws-messages-list { display: block; position: relative; height: 600px; overflow-y: auto; }
 .spacer { width: 1px; }
 .content { position: absolute; left: 0; right: 0; top: 0; }
 mws-message-wrapper { display: block; height: 56px; box-sizing: border-box; overflow: hidden; }
</style></head><body>
<div class="side"><mws-conversations-list id="real"><nav></nav></mws-conversations-list></div>
<div class="host"></div>
<script>
(function(){
  var q = new URLSearchParams(location.search);
  var mode = q.get('mode') || 'recycle', stale = q.get('stale') === '1', bidi = q.get('bidi') === '1', late = q.get('late') === '1';
  var ROW = 56, RANGE = 20, CACHE = 20;
  var MONTHS = ['January','February','March','April','May','June','July','August','September','October','November','December'];
  var base = new Date(2026, 1, 3, 9, 0).getTime();
  function stamp(t) {
    var d = new Date(t), h = d.getHours(), m = d.getMinutes();
    return MONTHS[d.getMonth()] + ' ' + d.getDate() + ', ' + d.getFullYear() + ' at ' + ((h % 12) || 12) + ':' + (m < 10 ? '0' : '') + m + ' ' + (h < 12 ? 'AM' : 'PM');
  }
  // A name as the page draws it: with &bidi=1, isolated and marked.
  function drawn(n) { return bidi ? '\u2068' + n.replace(/ /g, '\u00a0') + '\u2069\u200e' : n; }
  var convs = {
    V1: { people: ['Zoë 👩🏽‍💻'], msgs: [] },
    V2: { people: ['نور الهدى', 'Dr. Alice Chen'], msgs: [] },
    V3: { people: ['Leo ❤️'], msgs: [] }
  };
  Object.keys(convs).forEach(function (id, k) {
    var c = convs[id];
    for (var i = 0; i < 60; i++) c.msgs.push({ id: id + '-m' + i, from: c.people[i % c.people.length], text: id + ' message ' + i, t: base + (k * 1000 + i) * 60000 });
  });
  var cur = null, first = 0, end = 0, pane = null, list = null, content = null, cache = [], els = [];
  function label(m) { return drawn(m.from) + ' said: ' + m.text + '. Received on ' + stamp(m.t) + '.'; }
  function fill(el, m) {
    var core = el.firstChild, part = core.firstChild;
    core.setAttribute('data-e2e-message-id', m.id);
    part.textContent = m.text;
    // &late=1: every drawn row gets its label 300 ms after it is drawn, as the real page
    // fills labels asynchronously (also when it draws a known row again).
    if (late) {
      part.removeAttribute('aria-label');
      setTimeout(function () { if (core.getAttribute('data-e2e-message-id') === m.id) part.setAttribute('aria-label', label(m)); }, 300);
    } else part.setAttribute('aria-label', label(m));
  }
  function makeEl(m) {
    var w = document.createElement('mws-message-wrapper'); w.setAttribute('data-e2e-message-wrapper', '');
    var core = document.createElement('div'); core.setAttribute('data-e2e-message-wrapper-core', ''); core.setAttribute('data-e2e-message-outgoing', 'false');
    var part = document.createElement('mws-text-message-part'); part.setAttribute('data-e2e-text-message-content', '');
    core.appendChild(part); w.appendChild(core); fill(w, m);
    return w;
  }
  function atEnd() { return end >= convs[cur].msgs.length; }
  function markers() {
    var c = convs[cur];
    list.querySelector('.spacer').style.height = (c.msgs.length * ROW) + 'px';
    content.style.transform = 'translateY(' + (first * ROW) + 'px)';
    var jump = pane.querySelector('.jump');
    if (!atEnd() && !jump) {
      jump = document.createElement('button'); jump.className = 'jump'; jump.setAttribute('aria-label', 'Jump to newest message'); jump.textContent = 'v';
      jump.onclick = function () { vx.scrollTo(c.msgs.length - RANGE); };
      pane.appendChild(jump);
    } else if (atEnd() && jump) jump.remove();
  }
  // setRange draws rows [f, e) of the open conversation, as the mode says.
  function setRange(f, e) {
    var c = convs[cur];
    f = Math.max(0, f); e = Math.min(c.msgs.length, e);
    if (mode === 'index') {
      while (els.length > e - f) els.pop().remove();
      for (var k = 0; k < e - f; k++) {
        if (!els[k]) { els[k] = makeEl(c.msgs[f + k]); content.appendChild(els[k]); } else fill(els[k], c.msgs[f + k]);
      }
    } else {
      var keep = {};
      for (var i = f; i < e; i++) keep[c.msgs[i].id] = true;
      var have = {};
      Array.prototype.slice.call(content.children).forEach(function (el) {
        var id = el.firstChild.getAttribute('data-e2e-message-id');
        if (keep[id]) { have[id] = el; return; }
        el.remove();
        if (mode === 'recycle' && cache.length < CACHE) cache.push(el);
      });
      var later = [];
      for (var j = f; j < e; j++) {
        var m = c.msgs[j], el = have[m.id];
        if (!el) {
          el = mode === 'recycle' && cache.length ? cache.pop() : null;
          if (el && stale) later.push([el, m]); else if (el) fill(el, m); else el = makeEl(m);
        }
        // Document order is message order; rows that stay are not moved.
        var at = content.children[j - f];
        if (at !== el) content.insertBefore(el, at || null);
      }
      if (later.length) setTimeout(function () { later.forEach(function (p) { fill(p[0], p[1]); }); }, 30);
    }
    first = f; end = e;
    markers();
    list.scrollTop = first * ROW + (atEnd() ? 10000 : 0);
  }
  function makePane(id) {
    var p = document.createElement('div'); p.setAttribute('data-e2e-conversation-container', '');
    var h = document.createElement('div'); h.setAttribute('data-e2e-header-title', '');
    convs[id].people.forEach(function (n) { var e = document.createElement('h2'); e.textContent = drawn(n); h.appendChild(e); });
    var l = document.createElement('mws-messages-list');
    var sp = document.createElement('div'); sp.className = 'spacer';
    var ct = document.createElement('div'); ct.className = 'content';
    l.appendChild(sp); l.appendChild(ct);
    var box = document.createElement('div'); box.setAttribute('data-e2e-message-input', '');
    var ta = document.createElement('textarea'); ta.setAttribute('data-e2e-message-input-box', ''); box.appendChild(ta);
    p.appendChild(h); p.appendChild(l); p.appendChild(box);
    return p;
  }
  // show draws conversation id's pane, ending its range at end (the live end by default);
  // linger keeps the old pane for that many ms, hidden unless visible is set.
  function show(id, at, linger, visible) {
    var old = pane;
    cur = id; cache = []; els = [];
    pane = makePane(id); list = pane.querySelector('mws-messages-list'); content = pane.querySelector('.content');
    var host = document.querySelector('.host');
    if (old && linger) {
      if (!visible) { old.setAttribute('aria-hidden', 'true'); old.style.display = 'none'; }
      host.insertBefore(pane, host.firstChild);
      setTimeout(function () { old.remove(); }, linger);
    } else { if (old) old.remove(); host.appendChild(pane); }
    var n = convs[id].msgs.length, e = at === undefined ? n : at;
    setRange(e - RANGE, e);
  }
  function sidebar() {
    var nav = document.querySelector('#real nav');
    nav.innerHTML = '';
    Object.keys(convs).forEach(function (id) {
      var c = convs[id], last = c.msgs[c.msgs.length - 1];
      var it = document.createElement('mws-conversation-list-item');
      it.innerHTML = '<a data-e2e-conversation data-e2e-is-unread="false" href="/web/conversations/' + id + location.search + '"><span data-e2e-conversation-name></span><mws-conversation-snippet><span></span></mws-conversation-snippet></a>';
      it.querySelector('[data-e2e-conversation-name]').textContent = c.people.map(drawn).join(', ');
      it.querySelector('mws-conversation-snippet span').textContent = last.text;
      nav.appendChild(it);
    });
  }
  function go(id, at, linger, visible) {
    history.pushState({}, '', '/web/conversations/' + id + location.search);
    show(id, at, linger, visible);
  }
  document.addEventListener('click', function (ev) {
    var a = ev.target.closest && ev.target.closest('a[data-e2e-conversation]');
    if (!a) return;
    ev.preventDefault();
    go(a.getAttribute('href').split('?')[0].split('/').pop(), undefined, window.vxLinger || 0, false);
  });
  window.vx = {
    convs: convs,
    range: function () { return [first, end]; },
    ids: function () { return Array.prototype.map.call(pane.querySelectorAll('[data-e2e-message-id]'), function (c) { return c.getAttribute('data-e2e-message-id'); }); },
    open: function (id, at) { go(id, at); },
    scrollTo: function (f) { setRange(f, f + RANGE); },
    scrollBy: function (n) { setRange(first + n, first + n + RANGE); },
    toEnd: function () { var n = convs[cur].msgs.length; setRange(n - RANGE, n); },
    // deliver adds a message to the open conversation, drawn only at the live end.
    deliver: function (text, from) {
      var c = convs[cur], live = atEnd(), last = c.msgs[c.msgs.length - 1];
      var m = { id: cur + '-new' + c.msgs.length, from: from || c.people[0], text: text, t: last.t + 60000 };
      c.msgs.push(m);
      if (live) setRange(end + 1 - RANGE, end + 1); else markers();
      sidebar();
      return m.id;
    },
    react: function (id) {
      var core = pane.querySelector('[data-e2e-message-id="' + id + '"]'), part = core.firstChild;
      part.setAttribute('aria-label', part.getAttribute('aria-label') + ' ' + drawn('Dr. Alice Chen') + ' and ' + drawn('نور الهدى') + ' reacted with love.');
    },
    // rerenderList draws the list again in one go, with extra older rows on top.
    rerenderList: function (extra) {
      var f = first - extra, e = end;
      var l = list; list = l.cloneNode(false); content = document.createElement('div'); content.className = 'content';
      var sp = document.createElement('div'); sp.className = 'spacer'; list.appendChild(sp); list.appendChild(content);
      cache = []; els = [];
      l.replaceWith(list);
      setRange(f, e);
    },
    // rerenderPane draws the pane again; the old one lingers ms (hidden unless visible).
    rerenderPane: function (ms, visible) { var f = first, e = end; show(cur, e, ms, visible); setRange(f, e); },
    switchTo: function (id, ms, visible) { go(id, undefined, ms, visible); },
    // search draws results with the conversation list's row markup over the real list,
    // which it hides; a conversation not in the list (archived) is among them. plain leaves
    // out the class that says they are search results.
    search: function (plain) {
      var real = document.querySelector('#real');
      real.setAttribute('aria-hidden', 'true'); real.style.display = 'none';
      var r = document.createElement('mws-conversations-list'); r.className = plain ? 'results' : 'search-results';
      r.innerHTML = '<nav><mws-conversation-list-item><a data-e2e-conversation data-e2e-is-unread="true" href="/web/conversations/ARCH"><span data-e2e-conversation-name>Old Friend</span><mws-conversation-snippet><span>the hit: message 3</span></mws-conversation-snippet></a></mws-conversation-list-item>' +
        '<mws-conversation-list-item><a data-e2e-conversation data-e2e-is-unread="true" href="/web/conversations/V2"><span data-e2e-conversation-name>x</span><mws-conversation-snippet><span>V2 message 3</span></mws-conversation-snippet></a></mws-conversation-list-item></nav>';
      document.querySelector('.side').insertBefore(r, real);
    },
    closeSearch: function () {
      var r = document.querySelector('.search-results, .results'); if (r) r.remove();
      var real = document.querySelector('#real');
      real.removeAttribute('aria-hidden'); real.style.display = '';
    },
    // deliverElsewhere is a message in another conversation: only its sidebar row changes.
    deliverElsewhere: function (id, text) {
      var c = convs[id], last = c.msgs[c.msgs.length - 1];
      c.msgs.push({ id: id + '-new' + c.msgs.length, from: c.people[0], text: text, t: last.t + 60000 });
      sidebar();
      var a = document.querySelector('#real a[href^="/web/conversations/' + id + '"]');
      if (a) a.setAttribute('data-e2e-is-unread', 'true');
    }
  };
  sidebar();
  var m = location.pathname.match(/conversations\/([^/?#]+)/);
  var at = q.get('at');
  if (m && convs[m[1]]) show(m[1], at ? +at : undefined);
})();
</script></body></html>`
