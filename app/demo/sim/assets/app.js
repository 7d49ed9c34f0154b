// The Google Messages simulator page.
//
// The Go server owns the data (conversations, messages, labels, ids, logs). This script renders it
// with the DOM shape of messages.google.com/web (what inject/src/selectors.js expects), applies the
// server's events (new rows, id swaps, reactions, typing, clicks, scroll-back), and reports sends.
// A send counts only when it comes from trusted input (event.isTrusted): that is the property of the
// real page that forces Clanker to deliver its final Enter as native input.
//
// The behaviour variants and Behave commands make it act as a virtual-scrolling page may (row
// elements reused for other messages, panes drawn again or left behind hidden, views away from
// the live end, rows that are not messages, names with bidi marks); with the truth option it
// reports what really happened (truth()), so tests can check what the bridge made of it.
(function () {
  'use strict';

  var st = null; // state from /__sim/page/state
  var variants = {}; // active variants: server's plus ?variant=a,b
  var urlVariants = {};
  var blobs = {}; // media name -> blob: URL
  var loaded = false;
  var loading = false;
  var queue = []; // events that arrived before the state was loaded
  var sidebar = []; // conversations in sidebar order
  var current = null; // open conversation id, null on the landing page
  var rows = []; // every row of the open conversation, oldest first
  var rowsReady = false; // rows holds the server's list for current
  var convQueue = []; // events for current that arrived while its rows were being fetched
  var first = 0; // index in rows of the first row in the DOM
  var last = 0; // index in rows after the last row in the DOM (rows.length at the live end)
  var shown = false; // rows are in the DOM
  var openToken = 0;
  var stickBottom = true;

  (new URLSearchParams(location.search).get('variant') || '').split(',').forEach(function (v) {
    if (v) urlVariants[v] = true;
  });

  function h(tag, attrs, text) {
    var el = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) { el.setAttribute(k, attrs[k]); });
    }
    if (text != null) el.textContent = text;
    return el;
  }

  function getJSON(url) {
    return fetch(url, { cache: 'no-store' }).then(function (r) {
      if (!r.ok) return r.text().then(function (t) { throw new Error(url + ': ' + r.status + ' ' + t); });
      return r.json();
    });
  }

  function post(url, body) {
    return fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body)
    }).then(function (r) {
      if (!r.ok) r.text().then(function (t) { console.warn('sim: ' + url + ': ' + r.status + ' ' + t); });
      return r;
    }, function (e) { console.warn('sim: ' + url + ': ' + e); });
  }

  function sleep(ms) { return new Promise(function (res) { setTimeout(res, ms); }); }

  // prng is a small seeded generator (xorshift32) for the page's own choices, so a seed gives
  // the same page decisions; timing still varies.
  function prng(seed) {
    var x = (seed >>> 0) || 0x9e3779b9;
    return function () {
      x ^= x << 13; x >>>= 0;
      x ^= x >>> 17;
      x ^= x << 5; x >>>= 0;
      return x / 4294967296;
    };
  }
  var rng = prng(1);

  // ---- ground truth (Options.Truth) ------------------------------------------------------------

  // truth records what the page really did, stamped with the page's clock, and posts it to the
  // server in order; body[data-sim-truth] counts the records so a reader knows when it has all.
  var truthN = 0;
  var truthQueue = [];
  var truthChain = Promise.resolve();
  function truth(rec) {
    if (!st || !st.truth) return;
    rec.t = performance.timeOrigin + performance.now();
    rec.n = ++truthN;
    truthQueue.push(rec);
    document.body.setAttribute('data-sim-truth', String(truthN));
    truthChain = truthChain.then(function () {
      var batch = truthQueue;
      truthQueue = [];
      return batch.length ? post('/__sim/page/truth', { records: batch }) : null;
    });
  }

  function convById(id) {
    for (var i = 0; i < sidebar.length; i++) if (sidebar[i].id === id) return sidebar[i];
    return null;
  }

  function idFromPath() {
    var m = location.pathname.match(/\/conversations\/([^/?#]+)/);
    return m ? decodeURIComponent(m[1]) : null;
  }

  function indexOfRow(id) {
    for (var i = 0; i < rows.length; i++) if (rows[i].id === id) return i;
    return -1;
  }

  // ---- boot -------------------------------------------------------------------------------

  function boot() {
    var es = new EventSource('/__sim/page/events');
    es.onopen = function () { if (!loading) load(); };
    es.onmessage = function (e) {
      var ev;
      try { ev = JSON.parse(e.data); } catch (x) { return; }
      if (!loaded) queue.push(ev); else apply(ev);
    };
    window.addEventListener('popstate', function () {
      if (loaded && !pairingShown()) route();
    });
    window.addEventListener('message', onSignInMessage);
    // Like Messages for web, ask to show web notifications, and show one for each
    // incoming message once allowed (Clanker refuses: it notifies natively itself).
    // Engines that want a user gesture for the request get it at the first click.
    askNotifications();
    document.addEventListener('pointerdown', askNotifications, { once: true, capture: true });
  }

  // The page reports what it got and tried (/__sim/page/notifications), so tests can see
  // that the app refuses the permission and that nothing the page shows gets through.
  var notificationsTried = 0;
  function reportNotifications(permission) {
    post('/__sim/page/notifications', { permission: String(permission || ''), tried: notificationsTried });
  }

  function askNotifications() {
    if (!window.Notification) { reportNotifications('unsupported'); return; }
    if (Notification.permission !== 'default') { reportNotifications(Notification.permission); return; }
    try {
      var p = Notification.requestPermission();
      if (p && p.then) p.then(reportNotifications, function () { reportNotifications('error'); });
    } catch (x) { /* older engines: callback form only */ }
  }

  // A notification for each incoming message. Like a page that does not trust the
  // permission it was told, it tries even when refused; a refused one goes nowhere.
  function pageNotification(ev) {
    if (ev.type !== 'message' || !ev.row || ev.row.outgoing) return;
    if (!window.Notification) return;
    notificationsTried++;
    try { new Notification('Messages', { body: 'New message' }); } catch (x) { /* not allowed here */ }
    reportNotifications(Notification.permission);
  }

  // load fetches the state after the event stream is open, so no event can fall between them.
  function load() {
    loading = true;
    loaded = false;
    return getJSON('/__sim/page/state').then(function (s) {
      st = s;
      variants = {};
      st.variants.forEach(function (v) { variants[v] = true; });
      Object.keys(urlVariants).forEach(function (v) { variants[v] = true; });
      sidebar = st.sidebar;
      rng = prng(st.seed);
      return preloadMedia(st.media);
    }).then(function () {
      render();
      loaded = true;
      loading = false;
      var q = queue;
      queue = [];
      q.forEach(apply);
      document.body.setAttribute('data-sim-ready', '1');
    }).catch(function (e) {
      loading = false;
      console.error('sim: load failed', e);
      document.body.textContent = 'Simulator failed to load: ' + e.message;
    });
  }

  // preloadMedia turns the server's image bytes into blob: URLs once, as the real page does.
  function preloadMedia(names) {
    return Promise.all(names.map(function (n) {
      if (blobs[n]) return null;
      return fetch('/__sim/media/' + n).then(function (r) { return r.blob(); }).then(function (b) {
        blobs[n] = URL.createObjectURL(b);
      });
    }));
  }

  function pairingShown() { return !!document.querySelector('mw-qr-code'); }

  function render() {
    document.body.removeAttribute('data-sim-ready');
    if (!st.signedIn || urlVariants['signed-out']) {
      renderPairing();
      return;
    }
    if (variants.unrecognised) {
      renderUnrecognised();
      return;
    }
    var app = h('mw-app');
    var container = h('mw-main-container');
    var nav = h('mw-main-nav');
    var navHeader = h('div', { 'class': 'nav-header' });
    navHeader.appendChild(h('span', { 'class': 'brand' }, 'Messages'));
    nav.appendChild(navHeader);
    nav.appendChild(h('button', { 'class': 'start-chat', type: 'button', 'data-e2e-start-button': '' }, 'Start chat'));
    var list = h('mws-conversations-list');
    list.appendChild(h('nav', { 'class': 'conversation-list', role: 'listbox' }));
    nav.appendChild(list);
    container.appendChild(nav);
    container.appendChild(h('mw-conversation-container'));
    app.appendChild(container);
    document.body.replaceChildren(app);
    renderSidebar();
    route();
  }

  // ---- pairing page and sign-in popup -----------------------------------------------------------

  function renderPairing() {
    if (location.pathname !== '/web/authentication') {
      history.replaceState(null, '', '/web/authentication' + location.search);
    }
    var app = h('mw-app');
    var box = h('div', { 'class': 'pairing' });
    box.appendChild(h('h1', null, 'Use Google Messages for web'));
    var qr = h('mw-qr-code', { 'data-e2e-qr-code': '' });
    qr.appendChild(h('div', { 'class': 'qr' }));
    box.appendChild(qr);
    box.appendChild(h('p', null, 'Scan the QR code with your phone, or sign in with the Google Account your phone uses.'));
    var btn = h('button', { id: 'sim-signin', 'class': 'signin-google', type: 'button' }, 'Sign in with Google');
    btn.addEventListener('click', function () {
      window.open(st.accountsOrigin + '/signin', 'sim-google-signin', 'popup,width=480,height=600');
    });
    box.appendChild(btn);
    app.appendChild(box);
    document.body.replaceChildren(app);
    document.title = 'Messages for web';
  }

  // onSignInMessage accepts the popup's report only from the accounts origin.
  function onSignInMessage(e) {
    if (!st || e.origin !== st.accountsOrigin) return;
    if (!e.data || e.data.type !== 'sim-signin') return;
    post('/__sim/page/signin', { origin: e.origin, account: String(e.data.account || '') }).then(function () {
      location.assign('/web/conversations');
    });
  }

  // ---- unrecognised variant: the same content with none of the known selectors ------------------

  function renderUnrecognised() {
    var app = h('div', { 'class': 'u-app' });
    var side = h('div', { 'class': 'u-side' });
    sidebar.forEach(function (c) {
      var row = h('div', { 'class': 'u-row' + (c.id === idFromPath() ? ' u-sel' : '') });
      row.appendChild(h('div', { 'class': 'u-name' }, c.name));
      row.appendChild(h('div', { 'class': 'u-snip' }, c.snippet));
      row.addEventListener('click', function () {
        history.pushState(null, '', '/web/conversations/' + c.id);
        renderUnrecognised();
      });
      side.appendChild(row);
    });
    var main = h('div', { 'class': 'u-main' });
    app.appendChild(side);
    app.appendChild(main);
    document.body.replaceChildren(app);
    var id = idFromPath();
    current = id;
    if (!id || !convById(id)) {
      main.appendChild(h('div', { 'class': 'u-empty' }, 'Pick a chat'));
      return;
    }
    main.appendChild(h('div', { 'class': 'u-title' }, convById(id).name));
    var list = h('div', { 'class': 'u-list' });
    main.appendChild(list);
    getJSON('/__sim/page/messages?conversation=' + encodeURIComponent(id)).then(function (d) {
      d.rows.forEach(function (r) {
        list.appendChild(h('div', { 'class': 'u-msg' + (r.outgoing ? ' u-out' : '') },
          (r.outgoing ? '' : r.from + ': ') + (r.text || (r.image ? '[photo]' : '[attachment]'))));
      });
    });
  }

  // ---- sidebar --------------------------------------------------------------------------------

  var itemById = {};

  function avatarColor(name) {
    var colors = ['#1a73e8', '#d93025', '#188038', '#e37400', '#9334e6', '#007b83', '#c5221f'];
    var n = 0;
    for (var i = 0; i < name.length; i++) n = (n * 31 + name.charCodeAt(i)) >>> 0;
    return colors[n % colors.length];
  }

  function makeItem(c) {
    var item = h('mws-conversation-list-item');
    var a = h('a', {
      'class': 'list-item', role: 'option', href: '/web/conversations/' + c.id,
      'data-e2e-conversation': ''
    });
    var av = h('div', { 'class': 'avatar-container' });
    var avEl = h('mws-conversation-avatar');
    var dot = h('div', { 'class': 'avatar' }, /^[\d(]/.test(c.name) ? '#' : c.name.charAt(0).toUpperCase());
    dot.style.background = avatarColor(c.name);
    avEl.appendChild(dot);
    av.appendChild(avEl);
    a.appendChild(av);
    var tc = h('div', { 'class': 'text-content' });
    var nameH = h('h2', { 'class': 'name' });
    nameH.appendChild(h('span', { 'data-e2e-conversation-name': '' }));
    tc.appendChild(nameH);
    var sn = h('div', { 'class': 'snippet-text', 'data-e2e-conversation-snippet': '' });
    var mcs = h('mws-conversation-snippet');
    mcs.appendChild(h('span'));
    sn.appendChild(mcs);
    tc.appendChild(sn);
    a.appendChild(tc);
    var info = h('div', { 'class': 'list-item-info' });
    info.appendChild(h('mws-relative-timestamp', { 'class': 'snippet-timestamp', 'data-e2e-conversation-timestamp': '' }));
    var menu = h('button', { type: 'button', 'data-e2e-conversation-list-item-menu': '', 'aria-haspopup': 'menu' }, '\u22ee');
    menu.addEventListener('click', function (e) { e.preventDefault(); e.stopPropagation(); });
    info.appendChild(menu);
    a.appendChild(info);
    a.addEventListener('click', function (e) {
      if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      var id = a.getAttribute('href').split('/').pop();
      if (id !== current || !idFromPath()) navigate(id);
    });
    item.appendChild(a);
    return item;
  }

  function setAttr(el, k, v) { if (el.getAttribute(k) !== v) el.setAttribute(k, v); }
  function setText(el, v) { if (el.textContent !== v) el.textContent = v; }

  // renderSidebar updates items in place and moves only those whose position changed, so each
  // change is a small mutation, as on the real page.
  function renderSidebar() {
    var nav = document.querySelector('mws-conversations-list:not(.search-results) nav');
    if (!nav) return;
    var keep = {};
    var unread = 0;
    sidebar.forEach(function (c, i) {
      keep[c.id] = true;
      var item = itemById[c.id];
      if (!item || !nav.contains(item)) item = itemById[c.id] = makeItem(c);
      var a = item.querySelector('a');
      setAttr(a, 'data-e2e-is-pinned', String(c.pinned));
      setAttr(a, 'data-e2e-is-muted', String(c.muted));
      setAttr(a, 'data-e2e-is-unread', String(c.unread));
      setAttr(a, 'aria-selected', String(c.id === current));
      setText(item.querySelector('[data-e2e-conversation-name]'), c.name);
      var sn = item.querySelector('mws-conversation-snippet span');
      if (sn.textContent !== c.snippet) truth({ kind: 'snippet', conv: c.id, snippet: c.snippet });
      setText(sn, c.snippet);
      setText(item.querySelector('mws-relative-timestamp'), c.time);
      var tc = item.querySelector('.text-content');
      tc.classList.toggle('unread', c.unread);
      setAttr(item.querySelector('[data-e2e-conversation-list-item-menu]'), 'aria-label', 'Options for ' + c.name);
      if (c.unread) unread++;
      if (nav.children[i] !== item) nav.insertBefore(item, nav.children[i] || null);
    });
    Array.prototype.slice.call(nav.children).forEach(function (item) {
      var a = item.querySelector('a');
      var id = a && a.getAttribute('href').split('/').pop();
      if (!keep[id]) { item.remove(); delete itemById[id]; }
    });
    var title = 'Messages for web';
    document.title = unread ? '(' + unread + ') ' + title : title;
  }

  // ---- navigation -------------------------------------------------------------------------------

  function navigate(id) {
    if (variants['reuse-pane'] && paneEl && current && id && rng() < 0.5) {
      // A router that reuses the pane and updates the address only once the new rows are
      // drawn ('deferred'): for a moment the rows are the new conversation's and the address
      // still the old one.
      openConversation(id, { deferUrl: true });
      return;
    }
    history.pushState(null, '', '/web/conversations/' + id);
    openConversation(id);
  }

  function route() {
    var id = idFromPath();
    if (id && !convById(id)) id = null;
    openConversation(id);
  }

  // openConversation swaps the pane synchronously (old rows gone with the URL change), then renders
  // the new rows once fetched (after the slow variant's delay). how.back opens the view that many
  // rows above the live end (a search hit); how.deferUrl (reuse-pane) sets the address after the
  // rows are drawn.
  function openConversation(id, how) {
    how = how || {};
    if (current) {
      saveDraft();
      truth({ kind: 'leave', conv: current });
    }
    current = id;
    rows = [];
    rowsReady = false;
    convQueue = [];
    first = 0;
    last = 0;
    shown = false;
    stickBottom = true;
    cache = [];
    if (!variants['reuse-pane'] && !how.reuse) nodes = [];
    var token = ++openToken;
    document.body.removeAttribute('data-sim-shown');
    if (id) truth({ kind: 'open', conv: id, at: how.back ? 'hit' : 'live' });
    renderSidebar();
    renderPane(undefined, how.reuse);
    post('/__sim/page/open', { conversation: id || '' });
    if (!id) return;
    getJSON('/__sim/page/messages?conversation=' + encodeURIComponent(id)).then(function (d) {
      if (token !== openToken) return null;
      rows = d.rows;
      rowsReady = true;
      var q = convQueue;
      convQueue = [];
      q.forEach(function (ev) { applyRow(ev); });
      return variants.slow ? sleep(st.slowDelayMs) : null;
    }).then(function () {
      if (token !== openToken || !rowsReady) return;
      renderRows(how.back || 0);
      if (variants['restore-draft']) {
        setTimeout(function () { if (token === openToken) restoreDraft(id); }, 300 + Math.floor(rng() * 900));
      }
      if (how.deferUrl) {
        setTimeout(function () {
          if (token !== openToken) return;
          history.pushState(null, '', '/web/conversations/' + id);
        }, how.urlDelayMs !== undefined ? how.urlDelayMs : lateUrlMs(rng()));
      }
    }).catch(function (e) { console.error('sim: open conversation', e); });
  }

  // paneHost is where conversation panes go; paneEl is the open conversation's pane (the
  // landing pane on the landing page) and listEl its message list, kept as references so a
  // lingering hidden pane or a list taken out for a moment never stands in for them.
  var paneEl = null;
  var listEl = null;

  function paneHost() { return document.querySelector('mw-conversation-container'); }

  // renderPane draws the pane for current: in place of the old one, or (linger) before it,
  // the old one hidden and removed later, or (reuse-pane) the old one's elements rewritten.
  function renderPane(lingerMs, reuse) {
    var host = paneHost();
    if (!host) return;
    var c = current && convById(current);
    if (c && (variants['reuse-pane'] || reuse) && paneEl && paneEl.isConnected && listEl && lingerMs === undefined) {
      reusePane(c);
      return;
    }
    var old = paneEl && paneEl.isConnected ? paneEl : null;
    var oldDraft = old ? readDraft(old.querySelector('[data-e2e-message-input-box]')) : '';
    var box;
    if (!c) {
      box = h('div', { 'class': 'landing' });
      box.appendChild(h('div', { 'class': 'landing-art' }));
      box.appendChild(h('p', null, 'Select a conversation to start messaging'));
      listEl = null;
      document.body.removeAttribute('data-sim-conversation');
    } else {
      box = h('div', { 'class': 'conversation', 'data-e2e-conversation-container': '' });
      var header = h('div', { 'class': 'conv-header' });
      var title = h('div', { 'class': 'title', 'data-e2e-header-title': '' });
      var names = function () { c.participants.forEach(function (p) { title.appendChild(h('h2', null, p)); }); };
      // A lingering switch draws the header's names a moment after the pane.
      if (variants.linger && old && lingerMs === undefined) setTimeout(names, Math.floor(rng() * 300)); else names();
      header.appendChild(title);
      box.appendChild(header);
      listEl = makeList();
      box.appendChild(listEl);
      box.appendChild(makeCompose(c));
      document.body.setAttribute('data-sim-conversation', c.id);
    }
    paneEl = box;
    var linger = lingerMs !== undefined ? lingerMs : (variants.linger ? st.lingerMs : 0);
    if (old && linger > 0) {
      old.setAttribute('aria-hidden', 'true');
      old.style.display = 'none';
      host.insertBefore(box, host.firstChild);
      setTimeout(function () { old.remove(); }, linger);
    } else {
      if (old) old.remove();
      host.replaceChildren.apply(host, [box].concat(Array.prototype.slice.call(host.children).filter(function (el) {
        return el.getAttribute('aria-hidden') === 'true'; // other lingering panes stay their time
      })));
    }
    // A pane drawn again for the same conversation keeps what the box held (the framework's
    // model), without an event.
    if (c && lingerMs !== undefined && oldDraft) writeDraft(composeBox(), oldDraft);
  }

  function makeList() {
    var l = h('mws-messages-list', { role: 'list' });
    l.addEventListener('scroll', function () {
      stickBottom = l.scrollHeight - l.scrollTop - l.clientHeight < 80;
    });
    l.addEventListener('wheel', function (e) {
      if (e.deltaY < 0 && l.scrollTop === 0) scrollBack(10);
    });
    return l;
  }

  // reusePane rewrites the open pane for conversation c: the header's names in place, the
  // compose box emptied by script (or given c's saved draft); the rows are rewritten when they
  // come (renderRows).
  function reusePane(c) {
    var title = paneEl.querySelector('[data-e2e-header-title]');
    var hs = title.querySelectorAll('h2');
    c.participants.forEach(function (p, i) {
      if (hs[i]) setText(hs[i], p); else title.appendChild(h('h2', null, p));
    });
    for (var i = c.participants.length; i < hs.length; i++) hs[i].remove();
    var btn = paneEl.querySelector('[data-e2e-send-text-button]');
    var kind = c.rcs ? 'RCS' : 'SMS';
    setText(btn, kind);
    setAttr(btn, 'aria-label', 'Send ' + kind);
    writeDraft(composeBox(), '');
    document.body.setAttribute('data-sim-conversation', c.id);
  }

  // lateUrlMs is how long a reused pane's router takes to set the address after drawing the
  // rows, from one draw u in [0, 1): mostly under 150 ms, one switch in five 150 ms to 3 s.
  function lateUrlMs(u) {
    return Math.floor(u < 0.8 ? u / 0.8 * 150 : 150 + (u - 0.8) / 0.2 * 2850);
  }

  // ---- drafts (restore-draft) ----------------------------------------------------------------

  var drafts = {};

  function saveDraft() {
    if (!variants['restore-draft'] || !current) return;
    var text = readDraft(composeBox());
    if (text) drafts[current] = text; else delete drafts[current];
  }

  // restoreDraft puts a conversation's saved draft back into an empty box, as a page does
  // once it has loaded the conversation's stored draft: after its rows, with no event.
  function restoreDraft(id) {
    if (!variants['restore-draft'] || !drafts[id] || current !== id) return;
    var box = composeBox();
    if (box && !readDraft(box)) {
      writeDraft(box, drafts[id]);
      truth({ kind: 'behave', conv: id, detail: 'restore-draft' });
    }
    delete drafts[id];
  }

  // ---- message rows ---------------------------------------------------------------------------

  function isGroup() {
    var c = current && convById(current);
    return !!c && c.participants.length > 1;
  }

  // makeRow builds one row. With delayLabels the aria-labels are filled row.labelDelayMs (100-300 ms)
  // after insertion, as Google fills them asynchronously.
  function makeRow(row, delayLabels) {
    var wrapper = h('mws-message-wrapper', {
      'data-e2e-message-wrapper': '', 'msg-id': row.id, 'class': row.outgoing ? 'outgoing' : 'incoming'
    });
    var core = h('div', {
      'class': 'core', 'data-e2e-message-wrapper-core': '', 'data-e2e-message-id': row.id,
      'data-e2e-message-outgoing': String(row.outgoing)
    });
    if (row.tombstone) core.setAttribute('data-e2e-message-tombstone', '');
    wrapper.appendChild(core);
    fillCore(core, row, delayLabels);
    wrapper.__rowId = row.id;
    return wrapper;
  }

  // fillCore draws row's content into core (whose own attributes the caller set).
  function fillCore(core, row, delayLabels) {
    if (!row.outgoing && isGroup()) core.appendChild(h('div', { 'class': 'sender' }, row.from));
    var bubble = h('div', { 'class': 'bubble' });
    core.appendChild(bubble);
    var parts = [];
    if (row.tombstone) bubble.appendChild(h('div', { 'class': 'tombstone-text' }, 'This message was deleted'));
    if (row.quoteLabel) {
      var embed = h('div', { 'class': 'embed-msg-part-container' });
      var qp = h('mws-text-message-part', { 'data-e2e-text-message-content': '' });
      qp.appendChild(h('div', { 'class': 'quote-from' }, row.quoteFrom));
      qp.appendChild(h('div', { 'class': 'text' }, row.quoteText));
      embed.appendChild(qp);
      bubble.appendChild(embed);
      parts.push([qp, row.quoteLabel, row.quoteLabel]);
    }
    if (row.image) {
      var ip = h('mws-image-message-part');
      var frame = h('div', { 'data-e2e-message-image': '' });
      var src = blobs[row.image] || '';
      // late-src: the image element comes first, its blob URL later (as a loading image).
      var img = variants['late-src'] ? h('img', { alt: '' }) : h('img', { src: src, alt: '' });
      if (variants['late-src']) setTimeout(function () { img.setAttribute('src', src); }, row.srcDelayMs);
      img.addEventListener('load', function () { if (stickBottom) scrollToBottom(); });
      frame.appendChild(img);
      ip.appendChild(frame);
      bubble.appendChild(ip);
      parts.push([ip, row.imageLabel, row.firstImageLabel]);
    }
    if (row.text) {
      var tp = h('mws-text-message-part', { 'data-e2e-text-message-content': '' });
      tp.appendChild(h('div', { 'class': 'text' }, row.text));
      bubble.appendChild(tp);
      parts.push([tp, row.textLabel, row.firstTextLabel]);
    }
    if (row.attachment) {
      bubble.appendChild(h('div', { 'class': 'attachment' },
        row.attachment === 'video' ? '\u25b6 Video \u00b7 0:12' : 'File \u00b7 document.pdf'));
    }
    var meta = h('div', { 'class': 'meta' }, row.time);
    core.appendChild(meta);
    core.appendChild(h('div', { 'class': 'reactions' + (row.reactions ? '' : ' empty') }, row.reactions || ''));
    var fill = function (i) { parts.forEach(function (p) { if (p[i]) p[0].setAttribute('aria-label', p[i]); }); };
    if (!delayLabels) { fill(1); return; }
    var delay = variants['late-labels'] ? row.lateLabelMs : row.labelDelayMs;
    if (variants['labels-change'] && (row.firstTextLabel || row.firstImageLabel)) {
      // First the short time-only label, the full one later.
      setTimeout(function () { fill(2); }, delay);
      setTimeout(function () { fill(1); }, delay + 300 + Math.floor(rng() * 1200));
      return;
    }
    setTimeout(function () { fill(1); }, delay);
  }

  // rebind rewrites an existing row element to show another row: the same elements, another
  // message id and content, as a virtual scroller's recycled view.
  function rebind(wrapper, row, delayLabels) {
    var core = wrapper.querySelector('[data-e2e-message-wrapper-core]');
    wrapper.setAttribute('msg-id', row.id);
    wrapper.className = row.outgoing ? 'outgoing' : 'incoming';
    core.setAttribute('data-e2e-message-id', row.id);
    core.setAttribute('data-e2e-message-outgoing', String(row.outgoing));
    if (row.tombstone) core.setAttribute('data-e2e-message-tombstone', ''); else core.removeAttribute('data-e2e-message-tombstone');
    core.replaceChildren();
    core.classList.remove('placeholder');
    fillCore(core, row, delayLabels);
    wrapper.__rowId = row.id;
    wrapper.__stale = null;
  }

  // placeholder is a row element whose core has no message id yet (noise: a row loading).
  function placeholder() {
    var wrapper = h('mws-message-wrapper', { 'data-e2e-message-wrapper': '', 'class': 'incoming' });
    var core = h('div', { 'class': 'core placeholder', 'data-e2e-message-wrapper-core': '' });
    core.appendChild(h('div', { 'class': 'bubble' }, '\u2026'));
    wrapper.appendChild(core);
    wrapper.__rowId = '';
    return wrapper;
  }

  function list() { return listEl; }

  // ---- row nesting (variants nest-1, nest-2, nest-mixed) ---------------------------------------

  function nesting() {
    if (variants['nest-mixed']) return 'mixed';
    if (variants['nest-2']) return '2';
    if (variants['nest-1']) return '1';
    return '0';
  }

  function anchored(l) {
    var a = l.querySelector(':scope > mws-bottom-anchored');
    if (!a) { a = h('mws-bottom-anchored', { 'class': 'container' }); l.appendChild(a); }
    return a;
  }

  // rowHost is the element rows are added to: the list itself, mws-bottom-anchored, or (nest-2)
  // the last message group, or a new group at the top for rows loaded by scrolling back.
  function rowHost(l, top) {
    var n = nesting();
    if (n === '0' || n === 'mixed') return l;
    var a = anchored(l);
    if (n === '1') return a;
    var groups = a.querySelectorAll(':scope > div.msg-group');
    if (top || !groups.length) {
      var g = h('div', { 'class': 'msg-group' });
      a.insertBefore(g, top ? a.firstElementChild : null);
      return g;
    }
    return groups[groups.length - 1];
  }

  // framed wraps a row in its seeded 0-2 frames (nest-mixed); otherwise it is the row itself.
  function framed(el, row) {
    if (nesting() !== 'mixed') return el;
    for (var i = 0; i < row.depth; i++) {
      var f = h('div', { 'class': 'row-frame' });
      f.appendChild(el);
      el = f;
    }
    return el;
  }

  // outermost is a row's outermost frame: what moves or goes with the row.
  function outermost(wrapper) {
    var el = wrapper;
    while (el.parentElement && el.parentElement.classList.contains('row-frame')) el = el.parentElement;
    return el;
  }

  function scrollToBottom() {
    var l = list();
    if (l) l.scrollTop = l.scrollHeight;
  }

  // ---- the rendered range -------------------------------------------------------------------
  //
  // rows[first..last) are in the DOM, nodes[i] is the element of rows[first + i]. The view is at
  // its live end when last === rows.length. How the range changes depends on the variants:
  // by default rows are keyed by id (entering rows get new elements, leaving ones are removed);
  // recycle reuses the elements of leaving rows for entering ones; index-keyed rewrites the
  // elements in place by position.

  var nodes = [];
  var cache = [];
  var CACHE_SIZE = 20;

  function atLive() { return last === rows.length; }

  // separatorFor is the date separator drawn above row index i (noise), or null.
  function separatorFor(i) {
    if (!variants.noise || i % 12 !== 0 || !rows[i]) return null;
    var s = h('mws-tombstone-message-wrapper', { 'class': 'separator' });
    s.appendChild(h('div', { 'class': 'tombstone-text' }, 'Today \u00b7 ' + rows[i].time));
    return s;
  }

  // place puts a row element (with its frames and separator) at the top or bottom of the list.
  function place(el, rowIndex, top, host) {
    var l = list();
    host = host || rowHost(l, top);
    var o = framed(el, rows[rowIndex] || { depth: 0 });
    var sep = separatorFor(rowIndex);
    el.__sep = sep;
    if (top) {
      var anchor = host.__anchor !== undefined ? host.__anchor : host.firstElementChild;
      if (sep) host.insertBefore(sep, anchor);
      host.insertBefore(o, anchor);
    } else {
      var tail = host.querySelector(':scope > .sim-typing, :scope > .sim-spacer');
      if (sep) host.insertBefore(sep, tail);
      host.insertBefore(o, tail);
    }
  }

  // unplace takes a row element out of the list (with its frames, separator and an emptied
  // group), keeping it for reuse when keep is set.
  function unplace(el, keep) {
    var o = outermost(el);
    var parent = o.parentElement;
    if (el.__sep) { el.__sep.remove(); el.__sep = null; }
    o.remove();
    if (parent && parent.classList.contains('msg-group') && !parent.firstElementChild) parent.remove();
    if (keep && cache.length < CACHE_SIZE) {
      // A cached view keeps its elements but not its frames.
      if (el.parentElement) el.remove();
      cache.push(el);
    }
  }

  // renderRows draws the open conversation's rows: the last window of them, or (back > 0) the
  // window ending back rows above the live end. With reuse-pane the elements already in the
  // list are rewritten instead.
  function renderRows(back) {
    var l = list();
    if (!l) return;
    last = Math.max(Math.min(rows.length, 1), rows.length - (back || 0));
    first = Math.max(0, last - st.window);
    if (variants['reuse-pane'] && nodes.length && nodes[0].isConnected && l.contains(nodes[0])) {
      rewriteInPlace(first, last);
    } else {
      l.replaceChildren();
      nodes = [];
      var host = rowHost(l, false);
      for (var i = first; i < last; i++) {
        var el = makeRow(rows[i], false);
        nodes.push(el);
        place(el, i, false, host);
      }
    }
    shown = true;
    liveMarkers();
    if (atLive()) {
      scrollToBottom();
      truth({ kind: 'live', conv: current });
    } else if (nodes.length) {
      // A view opened at an older message shows that message, not the bottom.
      var hit = outermost(nodes[nodes.length - 1]);
      l.scrollTop = Math.max(0, hit.offsetTop - l.clientHeight / 2);
    }
    document.body.setAttribute('data-sim-shown', current);
  }

  // liveMarkers shows, while the view is not at its live end, what a virtual scroller shows: a
  // spacer standing for the rows not rendered below (the list's scroll height covers the whole
  // conversation) and a button to jump to the newest message.
  function liveMarkers() {
    var l = list();
    if (!l || !paneEl) return;
    var spacer = l.querySelector(':scope > .sim-spacer');
    var jump = paneEl.querySelector('.jump-to-bottom');
    if (atLive() || !shown) {
      if (spacer) spacer.remove();
      if (jump) jump.remove();
      return;
    }
    if (!spacer) { spacer = h('div', { 'class': 'sim-spacer', 'aria-hidden': 'true' }); l.appendChild(spacer); }
    spacer.style.height = ((rows.length - last) * 56) + 'px';
    if (!jump) {
      jump = h('button', { type: 'button', 'class': 'jump-to-bottom', 'aria-label': 'Jump to newest message' }, '\u2193');
      jump.addEventListener('click', function () { behave({ kind: 'jump-live' }); });
      if (l.parentNode) l.parentNode.insertBefore(jump, l.nextSibling);
      else paneEl.appendChild(jump); // the list is out of the document (reinsert)
    }
  }

  // rewriteInPlace makes the elements show rows[nf..nl) by position: each element is rewritten
  // to the row at its index when that differs, elements are added or removed at the bottom.
  function rewriteInPlace(nf, nl, delayLabels) {
    var want = nl - nf;
    for (var i = 0; i < Math.min(want, nodes.length); i++) {
      if (nodes[i].__rowId !== rows[nf + i].id) rebind(nodes[i], rows[nf + i], delayLabels && nf + i >= last);
    }
    for (var j = nodes.length; j < want; j++) {
      var el = makeRow(rows[nf + j], delayLabels && nf + j >= last);
      nodes.push(el);
      place(el, nf + j, false);
    }
    while (nodes.length > want) unplace(nodes.pop(), false);
    first = nf;
    last = nl;
  }

  // setRange moves the rendered range to rows[nf..nl). delayLabels labels rows that enter at
  // the bottom late (live rows); opts.placeholders draws rows entering at the top as
  // placeholders first (noise); opts.seed drives which reused elements show their old row for
  // a moment (recycle).
  function setRange(nf, nl, delayLabels, opts) {
    opts = opts || {};
    var l = list();
    if (!l) return;
    var wasLive = atLive();
    if (variants['index-keyed']) {
      rewriteInPlace(nf, nl, delayLabels);
    } else {
      var r = opts.rand || rng;
      // Rows leaving at the top and the bottom.
      while (nodes.length && first < Math.min(nf, last)) { unplace(nodes.shift(), variants.recycle); first++; }
      while (nodes.length && last > Math.max(nl, first)) { unplace(nodes.pop(), variants.recycle); last--; }
      if (!nodes.length) { first = nf; last = nf; }
      var make = function (i, late) {
        var el = variants.recycle && cache.length ? cache.pop() : null;
        if (!el) return opts.placeholders ? placeholder() : makeRow(rows[i], late);
        if (r() < 0.3) {
          // Inserted still showing its old row; rewritten a moment later.
          var row = rows[i];
          el.__stale = row;
          setTimeout(function () { if (el.__stale === row) rebind(el, row, late); }, Math.floor(r() * 40));
        } else {
          rebind(el, rows[i], late);
        }
        return el;
      };
      // Rows entering at the top, nearest first, so each goes above the one before.
      var host = nf < first ? rowHost(l, true) : null;
      if (host) host.__anchor = host.firstElementChild;
      var top = [];
      for (var i = first - 1; i >= nf; i--) {
        var el = make(i, true);
        top.unshift(el);
        place(el, i, true, host);
        if (host) host.__anchor = outermost(el.__sep && el.__sep.parentElement === host ? el.__sep : el);
      }
      if (host) delete host.__anchor;
      if (opts.placeholders) {
        top.forEach(function (el, k) {
          var row = rows[nf + k];
          setTimeout(function () { if (el.__rowId === '') rebind(el, row, false); }, 50 + Math.floor(r() * 200));
        });
      }
      nodes = top.concat(nodes);
      first = nf;
      for (var j = last; j < nl; j++) {
        var b = make(j, delayLabels);
        nodes.push(b);
        place(b, j, false);
      }
      last = Math.max(last, nl);
    }
    liveMarkers();
    // A list out of the document (reinsert) shows nothing: the live end is shown when it is
    // put back.
    if (!wasLive && !opts.appending && atLive() && l.isConnected) truth({ kind: 'live', conv: current });
  }

  // appendLive draws a row that just arrived, if the view is at its live end, and keeps the
  // window: the oldest rows go (recycle: their elements are reused). It returns whether it drew
  // the row.
  function appendLive() {
    if (!shown || !list() || last !== rows.length - 1) return false;
    var n = rows.length;
    if (variants.recycle || variants['index-keyed']) {
      setRange(Math.max(first, n - st.window), n, true, { appending: true });
    } else {
      setRange(first, n, true, { appending: true });
      if (last - first > st.window) setRange(last - st.window, last, false);
    }
    return true;
  }

  // scrollBack brings up to n older rows into view at the top: by default the range grows
  // upward (loading more); with recycle it slides, so the newest rows leave at the bottom.
  function scrollBack(n, seed) {
    var l = list();
    if (!shown || !l || first === 0) return;
    var nf = Math.max(0, first - n);
    var before = l.scrollHeight;
    var rand = seed ? prng(seed) : rng;
    if (variants.recycle) setRange(nf, last - (first - nf), false, { rand: rand });
    else setRange(nf, last, false, { rand: rand, placeholders: variants.noise && !variants['index-keyed'] });
    l.scrollTop += l.scrollHeight - before;
  }

  // scrollDown brings up to n newer rows into view at the bottom of a view that is not at its
  // live end.
  function scrollDown(n, seed) {
    if (!shown || !list() || atLive()) return;
    var nl = Math.min(rows.length, last + n);
    var rand = seed ? prng(seed) : rng;
    if (variants.recycle) setRange(first + (nl - last), nl, false, { rand: rand });
    else {
      setRange(first, nl, false, { rand: rand });
      if (last - first > st.window) setRange(last - st.window, last, false, { rand: rand });
    }
    if (atLive()) scrollToBottom();
  }

  // rerenderList draws the list again with n more older rows on top: fresh elements for every
  // row, or (index-keyed) the old elements rewritten in place and new ones added at the bottom.
  function rerenderList(n) {
    var l = list();
    if (!shown || !l) return;
    var nf = Math.max(0, first - n);
    if (variants['index-keyed']) {
      rewriteInPlace(nf, last, false);
      return;
    }
    l.replaceChildren();
    nodes = [];
    cache = [];
    first = nf;
    shown = true;
    var host = rowHost(l, false);
    for (var i = first; i < last; i++) {
      var el = makeRow(rows[i], false);
      nodes.push(el);
      place(el, i, false, host);
    }
    liveMarkers();
  }

  // rerenderPane draws the whole pane of the open conversation again; the old one lingers
  // hidden for ms.
  function rerenderPane(ms) {
    if (!current || !shown) return;
    nodes = [];
    cache = [];
    renderPane(ms);
    var l = list();
    var host = rowHost(l, false);
    for (var i = first; i < last; i++) {
      var el = makeRow(rows[i], false);
      nodes.push(el);
      place(el, i, false, host);
    }
    liveMarkers();
    if (atLive()) scrollToBottom();
  }

  // reinsert takes the list out of the document and puts the same element back ms later.
  // While it is out the page goes on drawing into it (rows, the view's range); put back, it
  // is scrolled as the view is (an element out of the document loses its scroll position),
  // and a view at its live end shows the live end from then on.
  function reinsert(ms) {
    var l = list();
    if (!l || !l.parentNode) return;
    var parent = l.parentNode;
    var next = l.nextSibling;
    var top = l.scrollTop;
    var conv = current;
    l.remove();
    setTimeout(function () {
      if (listEl !== l || l.isConnected || !parent.isConnected) return;
      parent.insertBefore(l, next && next.parentNode === parent ? next : null);
      if (atLive()) {
        scrollToBottom();
        if (shown && current === conv) truth({ kind: 'live', conv: current });
      } else {
        l.scrollTop = top;
      }
    }, ms);
  }

  // moveRow takes the row n places from the bottom out and puts it back in the same place.
  function moveRow(n) {
    var el = nodes[nodes.length - 1 - Math.min(n, nodes.length - 1)];
    if (!el) return;
    var o = outermost(el);
    var parent = o.parentNode;
    var next = o.nextSibling;
    if (!parent) return;
    o.remove();
    parent.insertBefore(o, next);
  }

  // typing shows a typing indicator row at the bottom of the list for ms.
  function typing(ms) {
    var l = list();
    if (!l) return;
    var host = rowHost(l, false);
    var old = host.querySelector(':scope > .sim-typing');
    if (old) old.remove();
    var c = convById(current);
    var who = c ? c.participants[0] : '';
    var el = h('mws-message-wrapper', { 'class': 'sim-typing incoming', 'data-e2e-message-wrapper': '' });
    el.appendChild(h('div', { 'class': 'typing-indicator', 'aria-label': who + ' is typing' }, '\u2022\u2022\u2022'));
    host.appendChild(el);
    setTimeout(function () { el.remove(); }, ms || 1500);
  }

  function nodeById(id) {
    for (var i = 0; i < nodes.length; i++) if (nodes[i].__rowId === id) return nodes[i];
    return null;
  }

  // ---- search results (drawn with the sidebar's row markup) ------------------------------------

  var searchEl = null;

  function search(query, seed) {
    var listBox = document.querySelector('mws-conversations-list');
    if (searchEl) { searchEl.remove(); searchEl = null; }
    if (listBox && !query) {
      listBox.style.display = '';
      listBox.removeAttribute('aria-hidden');
      return;
    }
    getJSON('/__sim/page/search?q=' + encodeURIComponent(query)).then(function (d) {
      var r = prng(seed || 1);
      // Either a list element of its own or a second conversation list, above the real one.
      var outer = r() < 0.5 ? h('mws-search-results', { 'class': 'search-results' }) : h('mws-conversations-list', { 'class': 'search-results' });
      var nav = h('nav', { 'class': 'conversation-list', role: 'listbox' });
      d.hits.forEach(function (hit) {
        var item = makeItem(hit);
        var a = item.querySelector('a');
        setAttr(a, 'data-e2e-is-unread', 'false');
        setText(item.querySelector('[data-e2e-conversation-name]'), hit.name);
        setText(item.querySelector('mws-conversation-snippet span'), hit.snippet);
        nav.appendChild(item);
      });
      outer.appendChild(nav);
      var lb = document.querySelector('mws-conversations-list:not(.search-results)');
      if (!lb) return;
      lb.style.display = 'none';
      lb.setAttribute('aria-hidden', 'true');
      lb.parentNode.insertBefore(outer, lb);
      searchEl = outer;
    }).catch(function (e) { console.error('sim: search', e); });
  }

  // ---- behaviours ---------------------------------------------------------------------------

  function behave(b) {
    truth({ kind: 'behave', conv: current || '', detail: JSON.stringify(b) });
    switch (b.kind) {
      case 'scroll-back': scrollBack(b.n || 10, b.seed); return;
      case 'scroll-down': scrollDown(b.n || 10, b.seed); return;
      case 'jump-live':
        if (shown && list() && !atLive()) {
          setRange(Math.max(0, rows.length - st.window), rows.length, false, { rand: prng(b.seed || 1) });
          scrollToBottom();
        }
        return;
      case 'rerender-list': rerenderList(b.n || 0); return;
      case 'rerender-pane': rerenderPane(b.ms || 0); return;
      case 'reinsert': reinsert(b.ms || 0); return;
      case 'move-row': moveRow(b.n || 0); return;
      case 'open-at':
        if (!convById(b.conversation)) return;
        history.pushState(null, '', '/web/conversations/' + b.conversation);
        openConversation(b.conversation, { back: b.n || 0 });
        return;
      case 'typing': typing(b.ms); return;
      case 'search': search(b.query || '', b.seed); return;
      case 'switch-address-late':
        if (!convById(b.conversation) || !current || b.conversation === current) return;
        openConversation(b.conversation, { deferUrl: true, urlDelayMs: b.ms || 0, reuse: true });
        return;
    }
  }

  // ---- compose box ----------------------------------------------------------------------------

  function makeCompose(c) {
    var kind = c.rcs ? 'RCS' : 'SMS';
    var outer = h('div', { 'class': 'compose' });
    var wrap = h('div', { 'class': 'compose-box', 'data-e2e-message-input': '' });
    var box;
    if (variants.contenteditable) {
      box = h('div', {
        contenteditable: 'true', role: 'textbox', 'aria-multiline': 'true',
        'aria-label': 'Text message', 'data-e2e-message-input-box': '', 'class': 'input'
      });
    } else {
      box = h('textarea', {
        rows: '1', placeholder: 'Text message', 'aria-label': 'Text message',
        'data-e2e-message-input-box': '', 'class': 'input'
      });
      box.addEventListener('input', function () { if (variants.mirror) box.textContent = box.value; });
    }
    box.addEventListener('keydown', function (e) {
      var enter = e.key === 'Enter' || e.keyCode === 13;
      if (!enter || e.shiftKey || e.isComposing) return;
      e.preventDefault();
      attemptSend('enter', e.isTrusted);
    });
    // CDP and some native input deliver Enter's newline as a separate char/keypress event, which
    // preventDefault on keydown does not cover; the box never takes a plain Enter as a newline.
    box.addEventListener('keypress', function (e) {
      if ((e.key === 'Enter' || e.keyCode === 13) && !e.shiftKey) e.preventDefault();
    });
    var btn = h('button', { type: 'button', 'class': 'send', 'data-e2e-send-text-button': '', 'aria-label': 'Send ' + kind }, kind);
    btn.addEventListener('click', function (e) {
      e.preventDefault();
      attemptSend('click', e.isTrusted);
    });
    wrap.appendChild(box);
    wrap.appendChild(btn);
    outer.appendChild(wrap);
    return outer;
  }

  // composeBox is the open pane's box (never a lingering hidden pane's).
  function composeBox() {
    return paneEl && paneEl.isConnected ? paneEl.querySelector('[data-e2e-message-input-box]') : document.querySelector('[data-e2e-message-input-box]');
  }

  function readDraft(box) {
    if (!box) return '';
    return box.tagName === 'TEXTAREA' ? box.value : box.innerText;
  }

  function writeDraft(box, text) {
    if (!box) return;
    if (box.tagName === 'TEXTAREA') {
      box.value = text;
      if (variants.mirror) box.textContent = text;
    } else {
      box.textContent = text;
    }
  }

  // attemptSend reports every attempt. Untrusted ones (el.click(), dispatched KeyboardEvents) are
  // logged as rejected and change nothing: the draft stays and no row appears.
  function attemptSend(via, trusted) {
    var box = composeBox();
    var text = readDraft(box);
    if (!trusted) {
      reportSend({ conversation: current || '', text: text, trusted: false, via: via });
      return;
    }
    if (!current || !text.trim()) return;
    writeDraft(box, '');
    // clear-silently: the box is emptied the way a framework's model binding does it, without
    // an input event.
    if (!variants['clear-silently']) box.dispatchEvent(new Event('input', { bubbles: true }));
    reportSend({ conversation: current, text: text, trusted: true, via: via });
  }

  // reportSend posts send reports one at a time, so the server's logs keep the page's order.
  var sendChain = Promise.resolve();
  function reportSend(body) {
    sendChain = sendChain.then(function () { return post('/__sim/page/send', body); });
  }

  // ---- server events --------------------------------------------------------------------------

  function apply(ev) {
    if (ev.sidebar) {
      sidebar = ev.sidebar;
      if (variants.unrecognised) { renderUnrecognised(); return; }
      renderSidebar();
    }
    pageNotification(ev);
    switch (ev.type) {
      case 'reload':
        load();
        return;
      case 'message':
      case 'update':
      case 'swap':
        var kind = ev.type === 'message' ? 'arrive' : ev.type === 'update' ? 'update' : '';
        if (variants.unrecognised || ev.conversation !== current || !rowsReady) {
          if (kind && ev.row) truth({ kind: kind, conv: ev.conversation, id: ev.row.id, shown: false });
          if (!variants.unrecognised && ev.conversation === current) convQueue.push(ev);
          return;
        }
        var drawn = applyRow(ev);
        if (kind && ev.row) truth({ kind: kind, conv: ev.conversation, id: ev.row.id, shown: drawn });
        return;
      case 'draft': {
        var box = composeBox();
        if (!box) return;
        box.focus();
        writeDraft(box, ev.text);
        box.dispatchEvent(new Event('input', { bubbles: true }));
        return;
      }
      case 'click': {
        var item = itemById[ev.conversation];
        if (item) item.querySelector('a').click();
        return;
      }
      case 'loadOlder':
        scrollBack(ev.count);
        return;
      case 'behave':
        if (ev.behaviour) behave(ev.behaviour);
        return;
    }
  }

  // applyRow applies a row event of the open conversation; for a new message it returns
  // whether the row was drawn at the live end, for a reaction whether the row it changed is
  // on the page.
  function applyRow(ev) {
    var l = list();
    if (ev.type === 'message') {
      if (indexOfRow(ev.row.id) >= 0) return false;
      rows.push(ev.row);
      if (!shown || !l) return false;
      var stick = stickBottom || ev.row.outgoing;
      var drawn = appendLive();
      if (drawn && stick) scrollToBottom();
      return drawn && l.isConnected; // drawn into a list out of the document, no one sees it
    }
    var oldId = ev.type === 'swap' ? ev.from : ev.row.id;
    var i = indexOfRow(oldId);
    if (i < 0) return false;
    rows[i] = ev.row;
    var wrapper = shown && nodeById(oldId);
    if (!wrapper) return false;
    var core = wrapper.querySelector('[data-e2e-message-wrapper-core]');
    if (ev.type === 'swap' && ev.mode === 'replace') {
      var fresh = makeRow(ev.row, false);
      wrapper.replaceWith(fresh);
      nodes[nodes.indexOf(wrapper)] = fresh;
      fresh.__sep = wrapper.__sep;
      return false;
    }
    if (ev.type === 'swap') {
      core.setAttribute('data-e2e-message-id', ev.row.id);
      wrapper.setAttribute('msg-id', ev.row.id);
      wrapper.__rowId = ev.row.id;
      return false;
    }
    // A reaction: the labels change in place (attributes only), and the chip shows it.
    core.querySelectorAll('mws-text-message-part, mws-image-message-part').forEach(function (p) {
      if (p.closest('.embed-msg-part-container')) return;
      p.setAttribute('aria-label', p.tagName === 'MWS-IMAGE-MESSAGE-PART' ? ev.row.imageLabel : ev.row.textLabel);
    });
    var chip = core.querySelector('.reactions');
    chip.textContent = ev.row.reactions || '';
    chip.classList.toggle('empty', !ev.row.reactions);
    return wrapper.isConnected && list() && list().isConnected;
  }

  boot();
})();
