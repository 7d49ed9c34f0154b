// The conversation list, reported as sidebar events: the whole list first, then debounced
// diffs (changed and added items, removed ids). It owns the last reported list and its
// own debounce timer.

import { S } from './selectors.js';
import { parseSidebarItem } from './parse.js';
import { aside, age } from './pane.js';
import { within } from './util.js';

const SIDEBAR_DEBOUNCE_MS = 500;
// The first sidebar report (the conversation list that makes the page usable to Go) waits
// only this long for the rows rendered in the same burst; later changes are debounced longer.
const SIDEBAR_FIRST_MS = 20;
// While the list is gone (search results in its place), it is looked at again this often.
const GONE_POLL_MS = 1000;

// SIDEBAR_ANY matches any part of the conversation list (to tell which changes touch it).
export const SIDEBAR_ANY = S.sidebarList + ',' + S.sidebarItem + ',' + S.sidebarLink;

export function createSidebar(emit) {
  const st = {
    timer: 0,
    due: 0,
    snap: null, // id -> item of the last report (null before the first)
    goneTimer: 0, // looks again while the list is gone
  };

  // schedule reports the sidebar after a debounce: short until the first list was
  // reported, so Go learns the conversations as soon as the page drew them. A report already
  // due sooner stands; one due later is brought forward.
  function schedule() {
    const wait = st.snap ? SIDEBAR_DEBOUNCE_MS : SIDEBAR_FIRST_MS;
    const due = performance.now() + wait;
    if (st.timer) {
      if (st.due <= due) return;
      clearTimeout(st.timer);
    }
    st.due = due;
    st.timer = setTimeout(report, wait);
  }

  // links are the conversation links of the real list. Search results drawn with the
  // list's row markup are not it: neither a list inside search results or a dialog, nor a
  // second list drawn while the real one is there (the list that was there first is the
  // real one; the page may hide it under the results, and what changes in it meanwhile is
  // still true). Without any list element (a redesign renamed it), the links themselves
  // outside search results, dialogs and hidden parts.
  function links() {
    let real = null;
    for (const l of document.querySelectorAll(S.sidebarList)) {
      if (aside(l)) continue;
      if (!real || age(l) < age(real)) real = l;
    }
    if (real) return within(real, S.sidebarLink).filter((a) => !aside(a));
    return Array.from(document.querySelectorAll(S.sidebarLink)).filter((a) => !aside(a) && !a.closest(S.hidden));
  }

  function items() {
    const as = links();
    const map = new Map();
    for (const a of as) {
      const it = parseSidebarItem(a);
      if (it && !map.has(it.id)) map.set(it.id, it);
    }
    return map;
  }

  // report sends what changed since the last report; force sends the whole list.
  function report(force) {
    clearTimeout(st.timer);
    st.timer = 0;
    const now = items();
    if (!now.size && st.snap && st.snap.size) {
      // The whole list went (search results in its place, or a redraw): that is not every
      // conversation removed. Keep the last report and look again each second.
      if (force) st.snap = null;
      if (!st.goneTimer) st.goneTimer = setTimeout(() => { st.goneTimer = 0; report(); }, GONE_POLL_MS);
      return;
    }
    const prev = force ? null : st.snap;
    if (!now.size && !prev) return;
    const changed = [];
    const removedIds = [];
    // A row the last report did not have, drawn above one it had, is where the page puts a
    // conversation that just began; rows that scrolling or loading more brings into view
    // come below every known row. Go tells a first-time writer from those by this mark.
    const aboveKnown = new Set();
    if (prev) {
      const ids = [...now.keys()];
      let knownBelow = false;
      for (let i = ids.length - 1; i >= 0; i--) {
        if (prev.has(ids[i])) knownBelow = true;
        else if (knownBelow) aboveKnown.add(ids[i]);
      }
    }
    for (const [id, it] of now) {
      const old = prev && prev.get(id);
      if (!old) changed.push(aboveKnown.has(id) ? { ...it, aboveKnown: true } : it);
      else if (JSON.stringify(old) !== JSON.stringify(it)) changed.push(it);
    }
    if (prev) for (const id of prev.keys()) if (!now.has(id)) removedIds.push(id);
    st.snap = now;
    if (prev && !changed.length && !removedIds.length) return;
    emit('sidebar', { full: !prev, items: changed.slice(0, 1000), removed: removedIds.slice(0, 1000) });
  }

  return { schedule, report };
}
