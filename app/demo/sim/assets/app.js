// The Google Messages simulator page.
//
// The Go server owns the data (conversations, messages, labels, ids, logs). This script renders it
// with the DOM shape of messages.google.com/web (what inject/src/selectors.js expects), applies the
// server's events (new rows, id swaps, reactions, typing, clicks, scroll-back), and reports sends.
// A send counts only when it comes from trusted input (event.isTrusted): that is the property of the
// real page that forces Clanker to deliver its final Enter as native input.
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
    var nav = document.querySelector('mws-conversations-list nav');
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
      setText(item.querySelector('mws-conversation-snippet span'), c.snippet);
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
    history.pushState(null, '', '/web/conversations/' + id);
    openConversation(id);
  }

  function route() {
    var id = idFromPath();
    if (id && !convById(id)) id = null;
    openConversation(id);
  }

  // openConversation swaps the pane synchronously (old rows gone with the URL change), then renders
  // the new rows once fetched (after the slow variant's delay).
  function openConversation(id) {
    current = id;
    rows = [];
    rowsReady = false;
    convQueue = [];
    first = 0;
    shown = false;
    stickBottom = true;
    var token = ++openToken;
    document.body.removeAttribute('data-sim-shown');
    renderSidebar();
    renderPane();
    post('/__sim/page/open', { conversation: id || '' });
    if (!id) return;
    getJSON('/__sim/page/messages?conversation=' + encodeURIComponent(id)).then(function (d) {
      if (token !== openToken) return null;
      rows = d.rows;
      rowsReady = true;
      var q = convQueue;
      convQueue = [];
      q.forEach(apply);
      return variants.slow ? sleep(st.slowDelayMs) : null;
    }).then(function () {
      if (token !== openToken || !rowsReady) return;
      renderRows();
    }).catch(function (e) { console.error('sim: open conversation', e); });
  }

  function renderPane() {
    var pane = document.querySelector('mw-conversation-container');
    if (!pane) return;
    var c = current && convById(current);
    if (!c) {
      var landing = h('div', { 'class': 'landing' });
      landing.appendChild(h('div', { 'class': 'landing-art' }));
      landing.appendChild(h('p', null, 'Select a conversation to start messaging'));
      pane.replaceChildren(landing);
      document.body.removeAttribute('data-sim-conversation');
      return;
    }
    var box = h('div', { 'class': 'conversation', 'data-e2e-conversation-container': '' });
    var header = h('div', { 'class': 'conv-header' });
    var title = h('div', { 'class': 'title', 'data-e2e-header-title': '' });
    c.participants.forEach(function (p) { title.appendChild(h('h2', null, p)); });
    header.appendChild(title);
    box.appendChild(header);
    var list = h('mws-messages-list', { role: 'list' });
    list.addEventListener('scroll', function () {
      stickBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 80;
    });
    list.addEventListener('wheel', function (e) {
      if (e.deltaY < 0 && list.scrollTop === 0) loadOlder(10);
    });
    box.appendChild(list);
    box.appendChild(makeCompose(c));
    pane.replaceChildren(box);
    document.body.setAttribute('data-sim-conversation', c.id);
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
      parts.push([qp, row.quoteLabel]);
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
      parts.push([ip, row.imageLabel]);
    }
    if (row.text) {
      var tp = h('mws-text-message-part', { 'data-e2e-text-message-content': '' });
      tp.appendChild(h('div', { 'class': 'text' }, row.text));
      bubble.appendChild(tp);
      parts.push([tp, row.textLabel]);
    }
    if (row.attachment) {
      bubble.appendChild(h('div', { 'class': 'attachment' },
        row.attachment === 'video' ? '\u25b6 Video \u00b7 0:12' : 'File \u00b7 document.pdf'));
    }
    var meta = h('div', { 'class': 'meta' }, row.time);
    core.appendChild(meta);
    core.appendChild(h('div', { 'class': 'reactions' + (row.reactions ? '' : ' empty') }, row.reactions || ''));
    var fill = function () { parts.forEach(function (p) { p[0].setAttribute('aria-label', p[1]); }); };
    if (delayLabels) setTimeout(fill, variants['late-labels'] ? row.lateLabelMs : row.labelDelayMs); else fill();
    return wrapper;
  }

  function list() { return document.querySelector('mws-messages-list'); }

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

  function rowCount(l) { return l.querySelectorAll('mws-message-wrapper').length; }

  function scrollToBottom() {
    var l = list();
    if (l) l.scrollTop = l.scrollHeight;
  }

  function renderRows() {
    var l = list();
    if (!l) return;
    first = Math.max(0, rows.length - st.window);
    l.replaceChildren();
    var host = rowHost(l, false);
    var frag = document.createDocumentFragment();
    for (var i = first; i < rows.length; i++) frag.appendChild(framed(makeRow(rows[i], false), rows[i]));
    host.appendChild(frag);
    shown = true;
    scrollToBottom();
    document.body.setAttribute('data-sim-shown', current);
  }

  // trimWindow removes the oldest rows while more than the window are in the DOM.
  function trimWindow() {
    var l = list();
    while (l && rowCount(l) > st.window) {
      var o = outermost(l.querySelector('mws-message-wrapper'));
      var parent = o.parentElement;
      o.remove();
      if (parent && parent.classList.contains('msg-group') && !parent.firstElementChild) parent.remove();
      first++;
    }
  }

  // loadOlder inserts up to n earlier rows at the top, keeping the visible rows in place.
  function loadOlder(n) {
    var l = list();
    if (!shown || !l || first === 0) return;
    var from = Math.max(0, first - n);
    var before = l.scrollHeight;
    var host = rowHost(l, true);
    var anchor = host.firstElementChild;
    for (var i = from; i < first; i++) host.insertBefore(framed(makeRow(rows[i], true), rows[i]), anchor);
    first = from;
    l.scrollTop += l.scrollHeight - before;
  }

  function coreById(id) {
    var l = list();
    return l && l.querySelector('[data-e2e-message-id="' + CSS.escape(id) + '"]');
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

  function composeBox() { return document.querySelector('[data-e2e-message-input-box]'); }

  function readDraft(box) {
    if (!box) return '';
    return box.tagName === 'TEXTAREA' ? box.value : box.innerText;
  }

  function writeDraft(box, text) {
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
    box.dispatchEvent(new Event('input', { bubbles: true }));
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
        if (variants.unrecognised || ev.conversation !== current) return;
        if (!rowsReady) { convQueue.push(ev); return; }
        applyRow(ev);
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
        loadOlder(ev.count);
        return;
    }
  }

  function applyRow(ev) {
    var l = list();
    if (ev.type === 'message') {
      if (indexOfRow(ev.row.id) >= 0) return;
      rows.push(ev.row);
      if (!shown || !l) return;
      var stick = stickBottom || ev.row.outgoing;
      rowHost(l, false).appendChild(framed(makeRow(ev.row, true), ev.row));
      trimWindow();
      if (stick) scrollToBottom();
      return;
    }
    var oldId = ev.type === 'swap' ? ev.from : ev.row.id;
    var i = indexOfRow(oldId);
    if (i < 0) return;
    rows[i] = ev.row;
    var core = shown && coreById(oldId);
    if (!core) return;
    var wrapper = core.closest('mws-message-wrapper');
    if (ev.type === 'swap' && ev.mode === 'replace') {
      wrapper.replaceWith(makeRow(ev.row, false));
      return;
    }
    if (ev.type === 'swap') {
      core.setAttribute('data-e2e-message-id', ev.row.id);
      wrapper.setAttribute('msg-id', ev.row.id);
      return;
    }
    // A reaction: the labels change in place (attributes only), and the chip shows it.
    core.querySelectorAll('mws-text-message-part, mws-image-message-part').forEach(function (p) {
      if (p.closest('.embed-msg-part-container')) return;
      p.setAttribute('aria-label', p.tagName === 'MWS-IMAGE-MESSAGE-PART' ? ev.row.imageLabel : ev.row.textLabel);
    });
    var chip = core.querySelector('.reactions');
    chip.textContent = ev.row.reactions || '';
    chip.classList.toggle('empty', !ev.row.reactions);
  }

  boot();
})();
