// Which part of the page is the conversation a person sees, which rows belong to it, and
// whether its view is at the conversation's live end. Pure reads of the page: the only
// state is when each pane was first seen (to tell a pane drawn again from the old one).
//
// Only the visible pane counts: a pane the page hides (aria-hidden, hidden, inert, not
// rendered) while it lingers after a switch or a re-render, search results and dialogs
// drawn with the rows' markup, and rows inside any hidden part are never the conversation.

import { S, JUMP_LABEL } from './selectors.js';
import { lastWithin, within } from './util.js';

// ASIDE is what is never the conversation or its list even when shown.
const ASIDE = S.searchResults + ',' + S.dialog;

// shown says whether the person can see el at all: nothing around it hides it from them,
// and it is rendered.
export function shown(el) {
  if (!el || !el.isConnected || el.closest(S.hidden)) return false;
  if (el.getClientRects().length === 0) return false;
  return getComputedStyle(el).visibility !== 'hidden';
}

// aside says whether el sits in search results or a dialog.
export function aside(el) {
  return !!el.closest(ASIDE);
}

let seq = 0;
const firstSeen = new WeakMap();

// age numbers elements in the order the bridge first looked at them: a later number is a
// part of the page that appeared later.
export function age(el) {
  let n = firstSeen.get(el);
  if (n === undefined) {
    n = ++seq;
    firstSeen.set(el, n);
  }
  return n;
}

// currentPane is the conversation pane the person sees: of the shown panes, the one that
// appeared last (a pane drawn again, while the old one still shows, replaces it). Without
// any pane element (a redesign renamed it), the shown message list stands in, and failing
// that the whole document. null when every pane there is is hidden.
export function currentPane(uiHost) {
  for (const sel of [S.conversationContainer, S.messagesList]) {
    const all = document.querySelectorAll(sel);
    if (!all.length) continue;
    let best = null;
    let bestAge = -1;
    for (const p of all) {
      if ((uiHost && uiHost.contains(p)) || aside(p) || !shown(p)) continue;
      const a = age(p);
      if (a > bestAge) { best = p; bestAge = a; }
    }
    return best;
  }
  return document.body || document.documentElement;
}

// belongs says whether core is a message row of pane: inside it, not hidden within it, not
// a tombstone, not in the conversation list, search results or a dialog.
export function belongs(core, pane) {
  if (!pane || !pane.contains(core)) return false;
  if (core.closest(S.hidden) || aside(core)) return false;
  return !core.closest(S.tombstone) && !core.closest(S.sidebarItem);
}

// paneCores lists pane's message rows in document order, one per id.
export function paneCores(pane, uiHost) {
  const out = [];
  if (!pane) return out;
  const seen = new Set();
  for (const core of within(pane, S.messageCore)) {
    if (uiHost && uiHost.contains(core)) continue;
    const id = core.getAttribute(S.messageIdAttr);
    if (!id || seen.has(id) || !belongs(core, pane)) continue;
    seen.add(id);
    out.push(core);
  }
  return out;
}

// lastCore is the last message row of pane in document order (or null).
export function lastCore(pane) {
  if (!pane) return null;
  return lastWithin(pane, S.messageCore, (c) => c.getAttribute(S.messageIdAttr) && belongs(c, pane));
}

// BELOW_MAX is how much may follow the last row inside its scroller at the live end: a
// typing indicator, a status line, padding. A virtual scroller that has not drawn the rows
// below reserves their height (a spacer) instead, which is more.
const BELOW_MAX = 160;

function scroller(el) {
  for (let p = el.parentElement; p && p !== document.body && p !== document.documentElement; p = p.parentElement) {
    const oy = getComputedStyle(p).overflowY;
    if ((oy === 'auto' || oy === 'scroll' || oy === 'overlay') && p.scrollHeight > p.clientHeight + 1) return p;
  }
  return null;
}

// atLiveEnd says whether the view of pane shows the conversation's live end: no control
// offers to jump to the newest message, and the last drawn row ends where its scroller's
// content ends (nothing, or only a little, below it). A view opened at an older message,
// scrolled away in a virtual list, or drawn without its newest rows is not at the live end.
export function atLiveEnd(pane) {
  if (!pane) return false;
  for (const b of within(pane, S.jumpControl)) {
    if (JUMP_LABEL.test(b.getAttribute('aria-label') || '') && shown(b)) return false;
  }
  const last = lastCore(pane);
  if (!last) return true;
  const sc = scroller(last);
  if (!sc) return true;
  const r = last.getBoundingClientRect();
  const box = sc.getBoundingClientRect();
  const below = sc.scrollHeight - (r.bottom - box.top + sc.scrollTop);
  return below <= BELOW_MAX;
}
