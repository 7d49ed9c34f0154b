// Clanker's own UI inside the Messages page: warning banner, toasts, processing overlay,
// the status pill with its mode menu, and the one-time hint bubble pointing at the pill. It all lives in one CLOSED shadow root on a
// host element whose layout is pinned by the :host !important rules of ui.css (important
// declarations of the inner context beat every page rule, even inline !important) plus
// inline !important styles, so page scripts cannot reach into it and page styles cannot
// restyle it. It never contains message rows, so the parser cannot mistake it for
// conversation content. Clicks are only acted on when trusted (a real user's), and a menu
// choice is only reported: Go decides.

import CSS from './ui.css';

const MODES = { deactivated: 'Deactivated', available: 'Available', active: 'Active', uninitialized: 'Not set up' };
const MENU = [['deactivated', 'Deactivated'], ['available', 'Available'], ['active', 'Active'], ['settings', 'Settings...']];

export function createUI(emit) {
  let host = null;
  let root = null;
  const parts = {};
  let status = null; // { conversationId, mode }

  function pin(el) {
    const st = el.style;
    for (const [k, v] of [['display', 'block'], ['position', 'fixed'], ['inset', '0'], ['width', 'auto'],
      ['height', 'auto'], ['z-index', '2147483647'], ['pointer-events', 'none'], ['opacity', '1'],
      ['visibility', 'visible'], ['transform', 'none'], ['filter', 'none'], ['margin', '0'], ['padding', '0'],
      ['border', '0'], ['background', 'transparent'], ['contain', 'none']]) st.setProperty(k, v, 'important');
  }

  function ensure() {
    if (host && host.isConnected) return;
    if (!host) {
      host = document.createElement('clanker-ui');
      root = host.attachShadow({ mode: 'closed' });
      const style = document.createElement('style');
      style.textContent = CSS;
      root.appendChild(style);
      parts.toasts = document.createElement('div');
      parts.toasts.className = 'toasts';
      parts.toasts.setAttribute('data-part', 'toasts');
      root.appendChild(parts.toasts);
    }
    pin(host);
    (document.documentElement || document).appendChild(host);
  }

  function el(tag, cls, partName, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (partName) e.setAttribute('data-part', partName);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // The banner is a strip across the top that pushes the page down by its own height,
  // so it never covers the conversation's name or anything else: the page's body becomes
  // a fixed box starting under the strip (its transform makes it the containing block of
  // the page's own fixed elements too, so menus and dialogs move down with it). The
  // body's previous inline values come back when the banner goes.
  const PUSH = ['position', 'top', 'left', 'right', 'bottom', 'height', 'min-height', 'transform', 'overflow'];
  let pushed = null; // saved inline values of the body while pushed
  let pushedBody = null;
  let resize = null;

  function pushPage(px) {
    const body = document.body;
    if (!body) return;
    if (pushedBody && pushedBody !== body) unpushPage();
    if (!pushed) {
      pushed = PUSH.map((k) => [k, body.style.getPropertyValue(k), body.style.getPropertyPriority(k)]);
      pushedBody = body;
    }
    for (const [k, v] of [['position', 'fixed'], ['top', px + 'px'], ['left', '0'], ['right', '0'], ['bottom', '0'],
      ['height', 'auto'], ['min-height', '0'], ['transform', 'translateZ(0)'], ['overflow', 'hidden']]) body.style.setProperty(k, v, 'important');
  }

  function unpushPage() {
    if (!pushed) return;
    for (const [k, v, prio] of pushed) {
      if (v) pushedBody.style.setProperty(k, v, prio); else pushedBody.style.removeProperty(k);
    }
    pushed = null;
    pushedBody = null;
  }

  function fitPage() {
    if (parts.banner) pushPage(Math.ceil(parts.banner.getBoundingClientRect().height));
  }

  function showBanner(text, level) {
    ensure();
    hideBanner();
    const b = el('div', 'banner ' + (level || 'warning'), 'banner');
    b.setAttribute('role', 'alert');
    b.appendChild(el('span', '', 'banner-text', text));
    const x = el('button', '', 'banner-dismiss', '\u00d7');
    x.setAttribute('aria-label', 'Dismiss');
    x.addEventListener('click', (ev) => {
      if (!ev.isTrusted) return;
      hideBanner();
      emit('banner_dismissed', { text });
    });
    b.appendChild(x);
    root.appendChild(b);
    parts.banner = b;
    fitPage();
    // The strip's height follows its text's wrapping as the window is resized.
    if (!resize && window.ResizeObserver) resize = new ResizeObserver(fitPage);
    if (resize) resize.observe(b);
  }

  function hideBanner() {
    if (parts.banner) {
      if (resize) resize.unobserve(parts.banner);
      parts.banner.remove();
      parts.banner = null;
    }
    unpushPage();
  }

  function showToast(text, level) {
    ensure();
    const t = el('div', 'toast ' + (level || 'info'), 'toast', text);
    t.setAttribute('role', 'status');
    parts.toasts.appendChild(t);
    while (parts.toasts.children.length > 5) parts.toasts.firstChild.remove();
    setTimeout(() => t.remove(), 5000);
  }

  // The overlay dims the page but lets every click and key through (pointer-events: none), so
  // the user can always take over: clicking a conversation in the sidebar, typing in the
  // compose box or pressing Cancel on the card ends the visit. Only the card takes clicks.
  function showOverlay(text) {
    ensure();
    hideOverlay();
    const o = el('div', 'overlay', 'overlay');
    const card = el('div', 'overlay-card', 'overlay-card');
    card.appendChild(el('span', '', 'overlay-text', text));
    const cancel = el('button', '', 'overlay-cancel', 'Cancel');
    cancel.addEventListener('click', (ev) => {
      if (!ev.isTrusted) return;
      hideOverlay();
      emit('overlay_cancel', { reason: 'cancel' });
    });
    card.appendChild(cancel);
    o.appendChild(card);
    root.insertBefore(o, parts.toasts);
    parts.overlay = o;
  }

  function hideOverlay() {
    if (parts.overlay) { parts.overlay.remove(); parts.overlay = null; }
  }

  function overlayShown() { return !!parts.overlay; }

  // The hint is a bubble just above the pill, in the bottom-left corner over the
  // conversation list, with an arrow down at the pill: it never reaches the conversation's
  // name (top) or the compose box (bottom of the conversation pane). Go sends it only
  // beside an unlocked pill and decides when it is done; "Got it" only reports.
  function showHint(text) {
    ensure();
    hideHint();
    const h = el('div', 'hint', 'hint');
    h.setAttribute('role', 'status');
    h.appendChild(el('span', '', 'hint-text', text));
    const ok = el('button', '', 'hint-dismiss', 'Got it');
    ok.addEventListener('click', (ev) => {
      if (!ev.isTrusted) return;
      hideHint();
      emit('hint_dismissed', {});
    });
    h.appendChild(ok);
    if (parts.menu) h.classList.add('behind-menu');
    root.appendChild(h);
    parts.hint = h;
  }

  function hideHint() {
    if (parts.hint) { parts.hint.remove(); parts.hint = null; }
  }

  function closeMenu() {
    if (parts.menu) { parts.menu.remove(); parts.menu = null; }
    if (parts.hint) parts.hint.classList.remove('behind-menu');
    document.removeEventListener('pointerdown', outsideMenu, true);
    document.removeEventListener('keydown', escapeMenu, true);
  }

  // While the menu is open, a press anywhere outside Clanker's own UI, or Escape, closes it
  // (the pill toggles it itself). Both listen in the capture phase and only look: the page
  // still gets the press or the key.
  function outsideMenu(ev) {
    if (!ev.isTrusted || !parts.menu) return;
    if (host && ev.composedPath().includes(host)) return;
    closeMenu();
  }

  function escapeMenu(ev) {
    if (ev.isTrusted && parts.menu && ev.key === 'Escape') closeMenu();
  }

  function openMenu() {
    closeMenu();
    // The menu opens where the hint is; the hint waits behind it.
    if (parts.hint) parts.hint.classList.add('behind-menu');
    const m = el('div', 'menu', 'menu');
    m.setAttribute('role', 'menu');
    const locked = status ? status.locked : '';
    for (const [choice, label] of MENU) {
      const b = el('button', '', 'menu-' + choice, label);
      b.setAttribute('role', 'menuitemradio');
      b.setAttribute('aria-checked', String(!!status && status.mode === choice));
      // A locked conversation shows its modes greyed out, with the reason below them; Go
      // refuses a change there anyway. They stay clickable (aria-disabled, not disabled,
      // which swallows the click): a click on one closes the menu and chooses nothing, as
      // a click anywhere else does.
      const off = !!locked && choice !== 'settings';
      if (off) b.setAttribute('aria-disabled', 'true');
      b.addEventListener('click', (ev) => {
        if (!ev.isTrusted) return;
        closeMenu();
        if (off) return;
        emit('mode_menu', { conversationId: status ? status.conversationId : '', choice });
      });
      m.appendChild(b);
      if (locked && choice === 'active') m.appendChild(el('div', 'reason', 'menu-reason', locked));
    }
    root.appendChild(m);
    parts.menu = m;
    document.addEventListener('pointerdown', outsideMenu, true);
    document.addEventListener('keydown', escapeMenu, true);
  }

  function setStatus(conversationId, mode, locked, waiting) {
    ensure();
    status = { conversationId, mode, locked: locked || '' };
    if (!parts.pill) {
      const p = el('button', 'pill', 'pill');
      p.addEventListener('click', (ev) => {
        if (!ev.isTrusted) return;
        if (parts.menu) closeMenu(); else openMenu();
      });
      root.appendChild(p);
      parts.pill = p;
    }
    const wait = !!waiting && !locked;
    parts.pill.className = 'pill ' + mode + (wait ? ' waiting' : '');
    parts.pill.textContent = 'Clanker: ' + (MODES[mode] || mode) + (wait ? ' \u00b7 waiting for your draft' : '');
    parts.pill.title = wait ? 'Clanker has something to say and waits until you send or clear what you typed.' : '';
    if (parts.menu) openMenu();
  }

  function hideStatus() {
    closeMenu();
    hideHint();
    if (parts.pill) { parts.pill.remove(); parts.pill = null; }
    status = null;
  }

  // keepAttached re-adds the host if the page removed it (e.g. replaced documentElement's
  // children); called from the bridge's observer.
  function keepAttached() {
    if (host && !host.isConnected && (parts.banner || parts.overlay || parts.pill || parts.hint || parts.toasts.children.length)) ensure();
    // A page that replaced its body, or rewrote its style, is pushed down again.
    if (parts.banner && (pushedBody !== document.body || document.body.style.getPropertyValue('top') === '')) {
      if (pushedBody !== document.body) { pushed = null; pushedBody = null; }
      fitPage();
    }
  }

  return { showBanner, hideBanner, showToast, showOverlay, hideOverlay, overlayShown, setStatus, hideStatus, showHint, hideHint, keepAttached, host: () => host };
}
