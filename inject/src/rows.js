// The message rows of the foreground conversation after it settled: which row is new
// (reported once as message), which is history (scroll-back, reported in batches), which
// is a known message that changed id (tmp_ -> permanent) or content (message_update).
//
// A row that comes after every known row in document order is new; a row with a known
// row after it is history. New rows are reported in document order, whatever order their
// labels come in (releaseNew). Where the rows sit (direct children of the list or nested in
// wrappers of any depth) does not matter: only document order among message rows does.

import { S } from './selectors.js';
import { isReady } from './parse.js';
import { capString } from './util.js';

// coresIn adds the message cores in node (node itself or its descendants) to into.
export function coresIn(node, into) {
  if (node.nodeType !== 1) return;
  if (node.matches(S.messageCore)) into.push(node);
  else if (node.firstElementChild) for (const c of node.querySelectorAll(S.messageCore)) into.push(c);
}

// follows is true when element a comes after element b in document order.
export function follows(a, b) {
  return !!(b.compareDocumentPosition(a) & Node.DOCUMENT_POSITION_FOLLOWING);
}

// inDocumentOrder sorts connected, distinct cores in document order.
export function inDocumentOrder(cores) {
  const out = Array.from(new Set(cores)).filter((c) => c.isConnected);
  out.sort((a, b) => (a === b ? 0 : follows(a, b) ? 1 : -1));
  return out;
}

// createRows returns the rows part. labels is the labels part (reading rows, waiting for
// labels, what was reported); conversationId() names the conversation events are for;
// hooks.onOwnRow() is told when a new row turns out to be the user's own.
export function createRows(emit, stats, labels, conversationId, hooks) {
  const st = {
    known: new Map(), // message id -> core element (null once removed)
    tail: null, // the known core that comes last in document order
    removedTmp: [], // { id, sender, text, at }
    // ordered holds new rows already read whose message event waits for an earlier new row
    // (in document order) that still waits for its label: { core, m }. See releaseNew.
    ordered: [],
  };
  let historyBatch = [];

  // reset forgets every row (a switch, or the page became unusable).
  function reset() {
    st.known = new Map();
    st.tail = null;
    st.removedTmp = [];
    st.ordered = [];
    historyBatch = [];
  }

  // baseline records the settled conversation's rows (cores in document order, messages
  // parsed from them): none of them is new.
  function baseline(cores, messages) {
    st.tail = null;
    for (let i = 0; i < cores.length; i++) {
      const m = messages[i];
      st.known.set(m.id, cores[i]);
      labels.noteReported(m);
      st.tail = cores[i];
    }
  }

  function knownIds() { return st.known.keys(); }

  // rowChanged reports a known row whose content now says something different.
  function rowChanged(core) {
    const id = core.getAttribute(S.messageIdAttr);
    if (!id || st.known.get(id) !== core || labels.waiting(core)) return;
    const m = labels.parse(core);
    labels.learn(m);
    if (!labels.changed(m)) return;
    const held = st.ordered.find((e) => e.core === core);
    if (held) { held.m = m; return; } // not reported yet: it goes out as it reads now
    emit('message_update', { conversationId: conversationId(), message: m });
  }

  // remember records core as the element of a known row and keeps st.tail, the known row
  // that comes last in document order.
  function remember(id, core) {
    st.known.set(id, core);
    const t = st.tail;
    if (!t || !t.isConnected || follows(core, t)) st.tail = core;
  }

  // tailCore returns the last known row in document order. Only when that row left the
  // page is it looked up again among the known rows.
  function tailCore() {
    const t = st.tail;
    if (t && t.isConnected && st.known.get(t.getAttribute(S.messageIdAttr)) === t) return t;
    st.tail = null;
    for (const c of st.known.values()) {
      if (c && c.isConnected && (!st.tail || follows(c, st.tail))) st.tail = c;
    }
    return st.tail;
  }

  // isAboveKnown is true when some already-known row comes after core in document order:
  // it was inserted above (scroll-back), so it is history. Rows may sit at any depth.
  function isAboveKnown(core) {
    const t = tailCore();
    return !!t && t !== core && follows(t, core);
  }

  function matchRemovedTmp(m) {
    const now = performance.now();
    st.removedTmp = st.removedTmp.filter((r) => now - r.at < 30000);
    for (let i = 0; i < st.removedTmp.length; i++) {
      const r = st.removedTmp[i];
      // A sender not known yet (the row went before its label came) matches any.
      if ((r.sender === m.sender || !r.sender || !m.sender) && r.text === m.text && r.id !== m.id) {
        st.removedTmp.splice(i, 1);
        return r;
      }
    }
    return null;
  }

  // report classifies and emits one row. history is decided when the row was added (a
  // row that waited for its label may have newer rows below it by now).
  function report(core, history) {
    labels.done(core);
    const m = labels.parse(core);
    if (!m.id || st.known.has(m.id)) return;
    labels.learn(m);
    const swapped = matchRemovedTmp(m);
    const above = history === undefined ? isAboveKnown(core) : history;
    remember(m.id, core);
    labels.noteReported(m);
    if (swapped) {
      st.known.delete(swapped.id);
      labels.forget(swapped.id);
      if (heldAs(swapped.id, core, m)) return;
      stats.idChanges++;
      emit('message_id', { conversationId: conversationId(), oldId: swapped.id, newId: m.id });
      return;
    }
    if (above) {
      stats.historyMessages++;
      historyBatch.push(m);
      return;
    }
    st.ordered.push({ core, m });
    releaseNew();
  }

  // heldAs gives a new row still held for its turn (see releaseNew) the row and message it
  // became when its id changed (a pending message confirmed): the message is reported once,
  // under its new id. It reports whether the row was held.
  function heldAs(oldId, core, m) {
    const e = st.ordered.find((x) => x.m.id === oldId);
    if (!e) return false;
    e.core = core;
    e.m = m;
    return true;
  }

  // releaseNew reports the new rows held in st.ordered in document order, stopping before the
  // first one that has an earlier new row above it still waiting for its label. The page fills
  // labels in whatever order it likes, but the order of new messages is the order they were
  // written in: the engine reads a message older than one it already processed as history, so
  // a row whose label came first must not overtake a row above it. The wait is bounded by the
  // labels' grace period, after which the row above is reported with what could be read.
  function releaseNew() {
    if (!st.ordered.length) return;
    const waiting = labels.waitingNew().filter((c) => c.isConnected);
    // A row that left the page before its turn keeps its place among the others only as far
    // as it can be compared: it goes first.
    const gone = st.ordered.filter((e) => !e.core.isConnected);
    const here = st.ordered.filter((e) => e.core.isConnected);
    here.sort((a, b) => (a.core === b.core ? 0 : follows(a.core, b.core) ? 1 : -1));
    const out = gone;
    let i = 0;
    for (; i < here.length; i++) {
      const c = here[i].core;
      if (waiting.some((w) => w !== c && follows(c, w))) break;
      out.push(here[i]);
    }
    st.ordered = here.slice(i);
    for (const { m } of out) {
      stats.newMessages++;
      emit('message', { conversationId: conversationId(), message: m });
      if (m.direction === 'out') hooks.onOwnRow();
    }
  }

  function flushHistory() {
    releaseNew();
    if (!historyBatch.length) return;
    const batch = historyBatch;
    historyBatch = [];
    for (let i = 0; i < batch.length; i += 100) {
      emit('history', { conversationId: conversationId(), messages: batch.slice(i, i + 100) });
    }
  }

  function added(core) {
    const id = core.getAttribute(S.messageIdAttr);
    if (!id || core.closest(S.tombstone) || core.closest(S.sidebarItem)) return;
    if (st.known.has(id)) { remember(id, core); rowChanged(core); return; } // re-rendered, already reported
    if (!isReady(core)) {
      labels.wait(core, labels.waiting(core) ? undefined : isAboveKnown(core));
      return;
    }
    report(core);
  }

  function removed(core) {
    const wasWaiting = labels.waiting(core);
    labels.done(core);
    if (wasWaiting) releaseNew();
    const id = core.getAttribute(S.messageIdAttr);
    if (!id || !st.known.has(id)) return;
    st.known.set(id, null);
    if (id.startsWith('tmp_')) {
      const m = labels.parse(core);
      st.removedTmp.push({ id, sender: m.sender, text: m.text, at: performance.now() });
    }
  }

  function idChanged(core, oldId) {
    const id = core.getAttribute(S.messageIdAttr);
    if (!id || id === oldId) return;
    if (oldId && st.known.has(oldId)) {
      st.known.delete(oldId);
      if (st.known.has(id)) return;
      remember(id, core);
      labels.renamed(oldId, id);
      if (heldAs(oldId, core, labels.parse(core))) return;
      stats.idChanges++;
      emit('message_id', { conversationId: conversationId(), oldId: capString(oldId, 200), newId: capString(id, 200) });
      return;
    }
    added(core);
  }

  // touched handles rows something changed inside (a part or image added, a label or src
  // set, text edited): a waiting row may be ready now, a known one may need an update.
  function touched(cores) {
    for (const c of cores) if (labels.waiting(c) && isReady(c)) report(c, labels.waitedAs(c));
    flushHistory();
    for (const c of cores) rowChanged(c);
  }

  return { reset, baseline, knownIds, added, removed, idChanged, touched, report, flushHistory };
}
