// The message rows of the foreground conversation after it settled: which row is new
// (reported once as message), which is history (reported in batches), which known message
// changed id (tmp_ -> permanent) or what it says (message_update).
//
// Novelty is decided by message identity, never by element identity or insertion order
// alone:
// * A message id seen once in this conversation is never new again, wherever and in
//   whatever element it comes back: a list or pane drawn again, a recycled node, a list
//   taken out and put back, a row that scrolled away and back.
// * An element whose id changes is one message leaving and another arriving. Only a pending
//   tmp_ id that becomes an id never seen, on a row that still says the same, is an id
//   change (message_id).
// * A row is new only when it comes after the live anchor, the newest message known to be
//   at the conversation's live end, with no known row after it, and either the anchor stayed
//   where it was (the view stayed at the live end) or the view is at the live end now (see
//   pane.js atLiveEnd). A row whose label time is older than the newest message known
//   (beyond a slack for clocks) is history whatever its place.
// * Without a live anchor (a view opened at an older message, as a search hit opens it; a
//   view scrolled away, or every row recycled, so the anchor is not on the page) rows are
//   history. When the view comes to the live end, its last row becomes the anchor. A view
//   that shows no row is the live end only of a conversation with no message seen: one
//   known to have messages is without its rows for a moment (its list out of the document),
//   which says nothing about where the live end is.
// * Only rows of the pane on screen count (pane.js): rows of a hidden lingering pane, of
//   search results or of a dialog are never read.
// * New rows are reported in document order, whatever order their labels come in
//   (releaseNew).
// Where the rows sit (direct children of the list or nested at any depth) does not matter:
// only document order among message rows does.

import { S } from './selectors.js';
import { isReady } from './parse.js';
import { currentPane, belongs, lastCore, atLiveEnd } from './pane.js';
import { capString, lastWithin, within } from './util.js';

// MAX_KNOWN bounds the ids remembered per conversation; the oldest ids no longer on the page
// go first.
const MAX_KNOWN = 20000;
// TIME_SLACK_MS is how much older than the newest known message a new row's label may say it
// is: the phone's and the server's clocks differ a little, and labels say the minute.
const TIME_SLACK_MS = 120000;

// coresIn adds the message cores in node (node itself or its descendants) to into.
export function coresIn(node, into) {
  if (node.nodeType !== 1) return;
  if (node.matches(S.messageCore)) into.push(node);
  else if (node.firstElementChild) for (const c of within(node, S.messageCore)) into.push(c);
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
// hooks.onOwnRow() is told when a new row turns out to be the user's own; hooks.uiHost()
// is Clanker's own UI element (never the conversation).
export function createRows(emit, stats, labels, conversationId, hooks) {
  const st = {
    // known: every message id seen in this conversation -> { el, text, sender }; el is the
    // element showing it now (null while it is not on the page).
    known: new Map(),
    bound: new WeakMap(), // element -> the id it showed when it was last bound
    // anchor: the newest message known to be at the live end ({ id }), { id: null } for an
    // empty conversation at its live end, or null while the live end is not known.
    anchor: null,
    newest: 0, // the newest label time known (ms since the epoch), 0 when none
    tail: null, // the last known row of the pane, as last found
    removedTmp: [], // { id, sender, text, at } of tmp_ rows that left the page
    // ordered holds new rows already read whose message event waits for an earlier new row
    // (in document order) that still waits for its label: { core, m }. See releaseNew.
    ordered: [],
    // left: message id -> history (true) or new (false), for rows classified when they came
    // that left the page, or came to show another message, before their label: a virtual
    // list recycles a row's element before the page labels it. The id keeps its class: the
    // message is never new when it comes back unless it came as new, and never forgotten.
    left: new Map(),
  };
  let historyBatch = [];
  let pane = null; // the pane on screen, for the batch being handled

  function paneNow() { return pane || currentPane(hooks.uiHost()); }

  // reset forgets every row (a switch, or the page became unusable).
  function reset() {
    st.known = new Map();
    st.bound = new WeakMap();
    st.anchor = null;
    st.newest = 0;
    st.tail = null;
    st.removedTmp = [];
    st.ordered = [];
    st.left = new Map();
    historyBatch = [];
  }

  function know(m, core) {
    st.left.delete(m.id);
    st.known.set(m.id, { el: core, text: m.text, sender: m.sender });
    st.bound.set(core, m.id);
    if (m.at > st.newest) st.newest = m.at;
    if (!st.tail || (core.isConnected && follows(core, st.tail))) st.tail = core;
    if (st.known.size > MAX_KNOWN) {
      for (const [id, r] of st.known) {
        if (st.known.size <= MAX_KNOWN) break;
        if (!r.el) st.known.delete(id);
      }
    }
  }

  // baseline records the settled conversation's rows (cores of p in document order,
  // messages parsed from them): none of them is new. The last one is the live anchor when
  // the view shows the live end.
  function baseline(cores, messages, p) {
    for (let i = 0; i < cores.length; i++) {
      know(messages[i], cores[i]);
      labels.noteReported(messages[i]);
    }
    st.tail = cores.length ? cores[cores.length - 1] : st.tail;
    st.anchor = atLiveEnd(p) ? { id: cores.length ? messages[messages.length - 1].id : null } : null;
  }

  function knownIds() { return [...st.known.keys(), ...st.left.keys()]; }

  // elOf is the element of the pane that shows message id now, or null.
  function elOf(id) {
    const r = st.known.get(id);
    const el = r && r.el;
    if (!el || !el.isConnected || el.getAttribute(S.messageIdAttr) !== id || !belongs(el, paneNow())) return null;
    return el;
  }

  // tailCore is the last known row of the pane in document order. When the one found last
  // left (or shows another message now), the pane's rows are looked through from the end.
  function tailCore() {
    const t = st.tail;
    if (t && st.bound.get(t) && elOf(st.bound.get(t)) === t) return t;
    st.tail = null;
    const p = paneNow();
    if (!p) return null;
    st.tail = lastWithin(p, S.messageCore, (c) => {
      const id = c.getAttribute(S.messageIdAttr);
      return id && elOf(id) === c;
    });
    return st.tail;
  }

  function knownAfter(core) {
    const t = tailCore();
    return !!t && t !== core && follows(t, core);
  }

  // unbind says the element no longer shows the message it was bound to (it left the page,
  // or shows another message now).
  function unbind(core, id, leaving) {
    const wasWaiting = labels.waiting(core);
    const as = labels.waitedAs(core);
    // The class belongs to the message the row showed when it came: a recycled element may
    // show another by now (rewritten in the same task it left in).
    const wid = labels.waitedId(core);
    labels.done(core);
    if (wasWaiting) {
      if (wid && !st.known.has(wid)) {
        st.left.set(wid, as !== false);
        if (st.left.size > MAX_KNOWN) st.left.delete(st.left.keys().next().value);
      }
      releaseNew();
    }
    const was = id || st.bound.get(core);
    const r = was && st.known.get(was);
    if (!r || r.el !== core) return;
    r.el = null;
    if (st.tail === core) st.tail = null;
    if (leaving && was.startsWith('tmp_')) st.removedTmp.push({ id: was, sender: r.sender, text: r.text, at: performance.now() });
  }

  function rebind(id, core) {
    st.known.get(id).el = core;
    st.bound.set(core, id);
    const t = st.tail;
    if (!t || !t.isConnected || follows(core, t)) st.tail = core;
  }

  // swapTmp handles an element whose pending tmp_ id became another id: an id change when
  // the new id was never seen and the row still says what the pending message said.
  function swapTmp(core, oldId) {
    const id = core.getAttribute(S.messageIdAttr);
    if (!oldId || !oldId.startsWith('tmp_') || !id || id === oldId || st.known.has(id)) return false;
    const r = st.known.get(oldId);
    if (!r || r.el !== core) return false;
    const m = labels.parse(core);
    if (m.text !== r.text || (r.sender && m.sender && r.sender !== m.sender)) return false;
    st.known.delete(oldId);
    st.known.set(id, r);
    st.bound.set(core, id);
    if (st.anchor && st.anchor.id === oldId) st.anchor = { id };
    labels.renamed(oldId, id);
    if (heldAs(oldId, core, m)) return true;
    stats.idChanges++;
    emit('message_id', { conversationId: conversationId(), oldId: capString(oldId, 200), newId: capString(id, 200) });
    return true;
  }

  // rowChanged reports a known row whose content now says something different. A row drawn
  // again without its label yet (the page fills it a moment later) says less, not something
  // else: it is looked at again when the label comes.
  function rowChanged(core) {
    const id = core.getAttribute(S.messageIdAttr);
    const r = id && st.known.get(id);
    if (!r || r.el !== core || labels.waiting(core) || !isReady(core) || !belongs(core, paneNow())) return;
    const m = labels.parse(core);
    labels.learn(m);
    if (!labels.changed(m)) return;
    r.text = m.text;
    r.sender = m.sender;
    if (m.at > st.newest) st.newest = m.at;
    const held = st.ordered.find((e) => e.core === core);
    if (held) { held.m = m; return; } // not reported yet: it goes out as it reads now
    emit('message_update', { conversationId: conversationId(), message: m });
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

  // report reads and emits one row. history was decided when the row came (a row that
  // waited for its label may have newer rows below it by now, or the view may have moved:
  // it was drawn at the live end all the same); its label time may still make a row
  // decided new history.
  function report(core, history) {
    const waitedFor = labels.waitedId(core);
    labels.done(core);
    if (!core.isConnected || !belongs(core, paneNow())) return;
    const m = labels.parse(core);
    if (!m.id || st.known.has(m.id)) return;
    // A row that shows another message than the one it waited with was never classified:
    // never new.
    if (waitedFor && waitedFor !== m.id) history = true;
    labels.learn(m);
    const swapped = matchRemovedTmp(m);
    if (!history && m.at && st.newest && m.at < st.newest - TIME_SLACK_MS) history = true;
    know(m, core);
    labels.noteReported(m);
    if (swapped) {
      st.known.delete(swapped.id);
      labels.forget(swapped.id);
      if (st.anchor && st.anchor.id === swapped.id) st.anchor = { id: m.id };
      if (heldAs(swapped.id, core, m)) return;
      stats.idChanges++;
      emit('message_id', { conversationId: conversationId(), oldId: swapped.id, newId: m.id });
      return;
    }
    if (history) {
      stats.historyMessages++;
      historyBatch.push(m);
      return;
    }
    // The anchor moves down only: a row above it that waited for its label is new all the
    // same, but the newest message known at the live end is still the one below.
    const ael = st.anchor && st.anchor.id ? elOf(st.anchor.id) : null;
    if (!ael || follows(core, ael)) st.anchor = { id: m.id };
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
  // labels in whatever order it likes, but new messages were written in page order, and the
  // engine reads a message older than one it already processed as history: a row whose label
  // came first must not overtake a new row above it. The wait is bounded by the labels' grace
  // period (or the page leaving the conversation), after which the row above is reported with
  // what could be read.
  function releaseNew() {
    if (!st.ordered.length) return;
    const waiting = labels.waitingNew().filter((c) => c.isConnected);
    // A row that left the page before its turn can no longer be placed: it goes first.
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

  // hasMessages says whether a message of this conversation was ever seen (a pending tmp_
  // row whose send went away does not make a conversation one with messages).
  function hasMessages() {
    for (const id of st.known.keys()) if (!id.startsWith('tmp_')) return true;
    return false;
  }

  // findAnchor makes the pane's last row the live anchor when the view is at the live end
  // and no anchor is on the page. A view that shows no row at all is the live end of an
  // empty conversation only: when the conversation is known to have messages, the view is
  // without its rows for a moment (its list out of the document, drawn again, not drawn
  // yet) and says nothing about where the live end is. Taking it for the live end of an
  // empty conversation would make every row the list comes back with new, whichever
  // message the view shows by then.
  function findAnchor() {
    if (st.anchor && (st.anchor.id === null ? !tailCore() : elOf(st.anchor.id))) return;
    const p = paneNow();
    if (!p || !atLiveEnd(p)) return;
    const last = lastCore(p);
    if (!last) {
      if (!hasMessages()) st.anchor = { id: null };
      return;
    }
    const id = last.getAttribute(S.messageIdAttr);
    if (elOf(id) === last) st.anchor = { id };
  }

  // batch handles one observer batch of the settled conversation: rows that left
  // (removed), elements whose message id changed ([core, oldId]), rows added, and rows
  // something changed inside (touched). hold is arrive's (rows that must wait while the
  // pane shows another conversation's header come back through unheld).
  function batch(b) {
    pane = currentPane(hooks.uiHost());
    try {
      for (const c of b.removed) unbind(c, undefined, true);
      const arrivals = b.added.slice();
      for (const [core, oldId] of b.changed) {
        if (swapTmp(core, oldId)) continue;
        unbind(core, oldId, false);
        arrivals.push(core);
      }
      arrive(arrivals, b.hold);
      for (const c of b.touched) if (labels.waiting(c) && isReady(c)) report(c, labels.waitedAs(c));
      flushHistory();
      for (const c of b.touched) rowChanged(c);
      findAnchor();
    } finally {
      pane = null;
    }
  }

  // arrive takes rows that came (added, or showing another message now): known messages
  // are bound to their new element, the others classified. hold (optional) may keep the
  // unknown ones from being classified now: it returns true when it took them.
  function arrive(arrivals, hold) {
    let cores = arrivals.filter((c) => c.isConnected && c.getAttribute(S.messageIdAttr) && belongs(c, pane));
    if (cores.length > 1) cores = inDocumentOrder(cores);
    const fresh = new Set(cores);
    const unknown = [];
    for (const c of cores) {
      const id = c.getAttribute(S.messageIdAttr);
      if (st.known.has(id)) {
        rebind(id, c);
        rowChanged(c);
      } else if (st.left.has(id)) {
        // Back before its label came: classified as it was when it first came.
        const history = st.left.get(id);
        st.left.delete(id);
        if (!isReady(c)) labels.wait(c, history, id);
        else report(c, history);
      } else unknown.push(c);
    }
    if (!unknown.length || (hold && hold(unknown))) return;
    const a = st.anchor;
    const ael = a && a.id ? elOf(a.id) : null;
    // The anchor stayed where it was: the view did not move away from the live end.
    const stable = !!a && (a.id === null || (!!ael && !fresh.has(ael)));
    let live = null;
    const liveNow = () => (live === null ? (live = atLiveEnd(pane)) : live);
    for (const c of unknown) {
      const afterAnchor = !!a && (a.id === null ? true : !!ael && follows(c, ael));
      const isNew = afterAnchor && !knownAfter(c) && (stable || liveNow());
      if (!isReady(c)) {
        labels.wait(c, labels.waiting(c) ? undefined : !isNew, c.getAttribute(S.messageIdAttr));
        continue;
      }
      report(c, !isNew);
    }
  }

  // unheld classifies rows that were held, once the pane shows this conversation again.
  function unheld(cores) {
    pane = currentPane(hooks.uiHost());
    try {
      arrive(cores.filter((c) => c.isConnected));
      flushHistory();
      findAnchor();
    } finally {
      pane = null;
    }
  }

  // viewMoved is told that the view scrolled: a view that reached the live end gets its
  // anchor.
  function viewMoved() {
    pane = currentPane(hooks.uiHost());
    try { findAnchor(); } finally { pane = null; }
  }

  return { reset, baseline, knownIds, batch, unheld, viewMoved, report, flushHistory, hasAnchor: () => !!st.anchor };
}
