// Watching the page: URL and page state, the foreground conversation, message rows,
// sidebar and compose box. One MutationObserver over the document does the row work; its
// cost per batch depends on the nodes that changed, never on how many rows are rendered
// (no whole-list scans on the hot path).
//
// Rules it keeps (each has a browser test):
// * The foreground conversation is reported only after the DOM settled for it: no row of
//   the previous conversation left, at least one row (or a long wait), labels filled, and
//   no row changes for a quiet period. Those rows are the baseline, never "new".
// * After that, a row that comes after every known row in document order is new and
//   reported exactly once; a row with a known row after it is history (scroll-back).
//   Where the rows sit (direct children of the list or nested in wrappers of any depth)
//   does not matter: only document order among message rows does.
// * tmp_ -> permanent id changes, in place or by replacing the row, are id updates.
// * A page that takes longer to appear than the unrecognised grace is declared
//   unrecognised, and re-checked from then on (after every structural change, and on a
//   timer that backs off from 1 s to 30 s), so the real state is reported once it shows.
//   A conversation is never settled before its pane is there: the wait for rows of an
//   empty conversation starts when the pane appears, not when the page started loading.
// * Rows whose label is not there yet wait for the label (attribute observation), with a
//   grace period after which they are reported with what could be read.
// * A known row that changes afterwards (its label arrives late, an image's src is set,
//   a reaction is added) is reported again as message_update when what it says changed.

import { S } from './selectors.js';
import { parseCore, isReady, headerNames, parseSidebarItem } from './parse.js';
import { conversationIdFrom, capString, isAutomatedName, utf8Bytes } from './util.js';
import { composeState, ownEditInProgress } from './compose.js';

const QUIET_MS = 300;
const EMPTY_WAIT_MS = 10000;
const LABEL_WAIT_MS = 2000;
const PENDING_GRACE_MS = 1500;
const SIDEBAR_DEBOUNCE_MS = 500;
// The first sidebar report (the conversation list that makes the page usable to Go) waits
// only this long for the rows rendered in the same burst; later changes are debounced longer.
const SIDEBAR_FIRST_MS = 20;
const STATE_CHECK_MS = 250;
const RECHECK_FIRST_MS = 1000;
const RECHECK_MAX_MS = 30000;
// While the page is loading, a structural change is checked in the next task (the check is a
// few selector lookups, and loading ends within seconds), and without changes the state is
// re-checked this often until the unrecognised grace ends (then once a second).
const LOADING_CHECK_MS = 0;
const LOADING_POLL_MS = 200;

export function createObserver(emit, ui, maxEventBytes) {
  const cfg = { unrecognisedGraceMs: 10000 };
  const stats = { observerMs: 0, observerCalls: 0, newMessages: 0, historyMessages: 0, idChanges: 0, maxBatchMs: 0 };
  const startedAt = performance.now();

  const st = {
    url: '',
    convId: '',
    phase: 'idle', // idle | settling | ready
    known: new Map(), // message id -> core element (null once removed)
    tail: null, // the known core that comes last in document order
    names: new Set(), // sender names seen in this conversation (reaction lists)
    sig: new Map(), // message id -> what was last reported of its label (text, status, reactions)
    prevIds: new Set(),
    pending: new Map(), // core element -> { since, history } for rows still waiting for a label
    removedTmp: [], // { id, sender, text, direction, at }
    // paneSince and rowsSince are when this conversation's pane and its first rows were
    // first seen while settling (0 = not yet): the empty and label waits count from them.
    paneSince: 0,
    rowsSince: 0,
    settleTimer: 0,
    pendingTimer: 0,
    pageState: '',
    pageStateKey: '',
    stateTimer: 0,
    // recheckTimer re-checks an unrecognised page; recheckMs is the next delay (backoff).
    recheckTimer: 0,
    recheckMs: RECHECK_FIRST_MS,
    stateDue: 0,
    sidebarTimer: 0,
    sidebarDue: 0,
    sidebarSnap: null,
    compose: '',
    selfTested: false,
    // lost is set while the page is unrecognised or signed out: nothing is tracked then,
    // and the conversation settles afresh once the page is usable again (the engine
    // dropped it when told the page was not usable).
    lost: false,
  };

  // ---- page state ------------------------------------------------------------------

  const has = (sel) => !!document.querySelector(sel);

  // hasThread says whether any part of a conversation pane is on the page. Each kind of
  // page is recognised by any one of several independent signals, so a redesign that
  // renames some selectors (the self-test reports which) leaves the page usable wherever
  // the others still match instead of declaring it unrecognised.
  function hasThread() {
    return has(S.conversationContainer) || has(S.messagesList) || has(S.messageCore) || has(S.inputBox) || has(S.inputWrapper);
  }

  function computeState() {
    const id = conversationIdFrom(location.href);
    if (/\/authentication\b/.test(location.pathname)) return 'signed_out';
    const hasSidebar = has(S.sidebarList) || has(S.sidebarItem) || has(S.sidebarLink);
    const thread = hasThread();
    // A pairing element counts only on a page without conversations (a signed-in page
    // may carry one in a dialog).
    if (!hasSidebar && !thread && has(S.signedOut)) return 'signed_out';
    if (id && thread) return 'conversation';
    if (!id && (hasSidebar || thread)) return 'no_conversation';
    if (performance.now() - startedAt < cfg.unrecognisedGraceMs) return 'loading';
    if (id && hasSidebar) return 'loading';
    return 'unrecognised';
  }

  function checkState() {
    st.stateTimer = 0;
    const s = computeState();
    const unusable = s === 'unrecognised' || s === 'signed_out';
    if (unusable && !st.lost) loseConversation();
    else if (!unusable && st.lost) {
      st.lost = false;
      st.url = '';
      st.phase = 'idle';
      checkUrl();
    }
    // A new conversation id is reported at once (the switch has started), even though
    // its messages only come with the settled conversation event.
    const key = s + '|' + st.convId;
    if (key !== st.pageStateKey) {
      st.pageStateKey = key;
      st.pageState = s;
      emit('page_state', { state: s, url: capString(location.href, 2048), conversationId: st.convId });
    }
    // While loading, keep checking so the page is reported usable soon after it renders and
    // "unrecognised" when the grace ends (and, after it, once a second until the page decides).
    if (s === 'loading') {
      const left = cfg.unrecognisedGraceMs - (performance.now() - startedAt);
      scheduleState(left > 0 ? Math.min(LOADING_POLL_MS, Math.max(50, left + 10)) : 1000);
    }
    // "Unrecognised" is never final: a slow machine may draw the app long after the grace,
    // or change it in ways the observer does not see (an attribute outside its filter).
    // Structural changes re-check at once; this timer re-checks anyway, less often the
    // longer the page stays unrecognised.
    if (s === 'unrecognised') {
      if (!st.recheckTimer) {
        st.recheckTimer = setTimeout(() => { st.recheckTimer = 0; checkState(); }, st.recheckMs);
        st.recheckMs = Math.min(RECHECK_MAX_MS, st.recheckMs * 2);
      }
    } else {
      clearTimeout(st.recheckTimer);
      st.recheckTimer = 0;
      st.recheckMs = RECHECK_FIRST_MS;
    }
  }

  // loseConversation forgets the conversation when the page stops being usable without a
  // reload (Google re-rendered it into something unknown, or signed the user out): its
  // rows are gone, and whatever appears later is a fresh baseline, never "new".
  function loseConversation() {
    st.lost = true;
    clearTimeout(st.settleTimer);
    st.settleTimer = 0;
    st.phase = 'idle';
    st.known = new Map();
    st.tail = null;
    st.names = new Set();
    st.sig = new Map();
    st.pending.clear();
    st.removedTmp = [];
    st.prevIds = new Set();
    historyBatch = [];
  }

  // scheduleState checks the state in ms (STATE_CHECK_MS by default). A check already due
  // sooner stands; one due later is brought forward, so a change seen while a slow poll is
  // pending is not left waiting for it.
  function scheduleState(ms) {
    const wait = ms === undefined ? STATE_CHECK_MS : ms;
    const due = performance.now() + wait;
    if (st.stateTimer) {
      if (st.stateDue <= due) return;
      clearTimeout(st.stateTimer);
    }
    st.stateDue = due;
    st.stateTimer = setTimeout(checkState, wait);
  }

  // ---- conversation switching ------------------------------------------------------

  function checkUrl() {
    if (location.href === st.url) return;
    st.url = location.href;
    const id = conversationIdFrom(st.url);
    if (id === st.convId && st.phase !== 'idle') return;
    // Remember the previous conversation's rows so they are never taken for this one's.
    st.prevIds = new Set(st.known.keys());
    st.known = new Map();
    st.tail = null;
    st.names = new Set();
    st.sig = new Map();
    st.pending.clear();
    st.removedTmp = [];
    st.convId = id;
    clearTimeout(st.settleTimer);
    st.settleTimer = 0;
    if (id && !st.lost) {
      st.phase = 'settling';
      st.paneSince = 0;
      st.rowsSince = 0;
      armSettle();
    } else {
      st.phase = 'idle';
    }
    scheduleState(0);
    scheduleSidebar();
  }

  function armSettle(ms) {
    clearTimeout(st.settleTimer);
    st.settleTimer = setTimeout(trySettle, ms === undefined ? QUIET_MS : ms);
  }

  // visibleCores lists the rows of the whole document in document order: the rows are
  // found wherever they sit, not only under the first message list.
  function visibleCores() {
    const out = [];
    const seen = new Set();
    const h = ui.host();
    for (const core of document.querySelectorAll(S.messageCore)) {
      if (h && h.contains(core)) continue;
      const id = core.getAttribute(S.messageIdAttr);
      if (!id || seen.has(id)) continue;
      if (core.closest(S.tombstone) || core.closest(S.sidebarItem)) continue;
      seen.add(id);
      out.push(core);
    }
    return out;
  }

  function trySettle() {
    st.settleTimer = 0;
    if (st.phase !== 'settling') return;
    const now = performance.now();
    const cores = visibleCores();
    if (cores.some((c) => st.prevIds.has(c.getAttribute(S.messageIdAttr)))) return armSettle(); // old rows still shown
    if (!cores.length) {
      // No pane yet (the page is still loading, however long that takes): nothing can be
      // settled, or rows drawn later would count as new. Once the pane is there, an empty
      // conversation is settled after EMPTY_WAIT_MS without rows.
      if (!hasThread()) {
        st.paneSince = 0;
        return armSettle(500);
      }
      if (!st.paneSince) st.paneSince = now;
      if (now - st.paneSince < EMPTY_WAIT_MS) return armSettle(500);
    } else {
      if (!st.rowsSince) st.rowsSince = now;
      if (now - st.rowsSince < LABEL_WAIT_MS && cores.some((c) => !isReady(c) && hasParts(c))) return armSettle(100);
    }
    settle(cores);
  }

  function hasParts(core) {
    return !!core.querySelector(S.textPart + ',' + S.imagePart);
  }

  function settle(cores) {
    st.phase = 'ready';
    const header = headerNames();
    st.names = new Set(header.filter((n) => n.indexOf(',') < 0));
    let messages = cores.map((core) => parseCore(core, st.names));
    const senders = [];
    for (const m of messages) {
      if (m.sender && m.sender !== 'You' && senders.indexOf(m.sender) < 0) senders.push(m.sender);
      learn(m);
    }
    // Reactor lists are read with every sender's name known (a name with a comma).
    messages = messages.map((m, i) => (m.reactions.length ? parseCore(cores[i], st.names) : m));
    st.tail = null;
    for (let i = 0; i < cores.length; i++) {
      const m = messages[i];
      st.known.set(m.id, cores[i]);
      st.sig.set(m.id, signature(m));
      st.tail = cores[i];
    }
    const participants = header.slice();
    for (const s of senders) if (participants.indexOf(s) < 0) participants.push(s);
    const automated = participants.filter(isAutomatedName);
    const ev = {
      conversationId: st.convId,
      url: capString(location.href, 2048),
      headerNames: header,
      participants: participants.slice(0, 200),
      automated: automated.slice(0, 50),
      messages,
      omitted: 0,
    };
    // Keep the event under the size cap by leaving out the oldest rows.
    while (ev.messages.length && utf8Bytes(JSON.stringify(ev)) > maxEventBytes - 1024) {
      const drop = Math.max(1, Math.ceil(ev.messages.length / 10));
      ev.messages = ev.messages.slice(drop);
      ev.omitted += drop;
    }
    emit('conversation', ev);
    scheduleState(0);
    reportCompose(true);
    if (!st.selfTested) {
      st.selfTested = true;
      selfTest();
    }
  }

  let selfTest = () => {};

  // signature is everything a message_update can change: a label that arrives late brings
  // the sender, direction and time; an image's src may be set after the row appeared.
  function signature(m) {
    return JSON.stringify([m.text, m.sender, m.direction, m.timestamp, m.labelKind, m.status, m.reactions, m.images, m.quote]);
  }

  // learn remembers a message's sender name for reading reactor lists.
  function learn(m) {
    if (m.sender && m.sender !== 'You' && st.names.size < 1000) st.names.add(m.sender);
  }

  // rowChanged reports a known row whose content now says something different.
  function rowChanged(core) {
    const id = core.getAttribute(S.messageIdAttr);
    if (!id || st.known.get(id) !== core || st.pending.has(core)) return;
    const m = parseCore(core, st.names);
    learn(m);
    const sig = signature(m);
    if (st.sig.get(id) === sig) return;
    st.sig.set(id, sig);
    emit('message_update', { conversationId: st.convId, message: m });
  }

  // ---- rows ------------------------------------------------------------------------

  function coresIn(node, into) {
    if (node.nodeType !== 1) return;
    if (node.matches(S.messageCore)) into.push(node);
    else if (node.firstElementChild) for (const c of node.querySelectorAll(S.messageCore)) into.push(c);
  }

  // follows is true when element a comes after element b in document order.
  function follows(a, b) {
    return !!(b.compareDocumentPosition(a) & Node.DOCUMENT_POSITION_FOLLOWING);
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

  let historyBatch = [];

  // report classifies and emits one row. history is decided when the row was added (a
  // row that waited for its label may have newer rows below it by now).
  function report(core, history) {
    st.pending.delete(core);
    const m = parseCore(core, st.names);
    if (!m.id || st.known.has(m.id)) return;
    learn(m);
    const swapped = matchRemovedTmp(m);
    const above = history === undefined ? isAboveKnown(core) : history;
    remember(m.id, core);
    st.sig.set(m.id, signature(m));
    if (swapped) {
      st.known.delete(swapped.id);
      st.sig.delete(swapped.id);
      stats.idChanges++;
      emit('message_id', { conversationId: st.convId, oldId: swapped.id, newId: m.id });
      return;
    }
    if (above) {
      stats.historyMessages++;
      historyBatch.push(m);
      return;
    }
    stats.newMessages++;
    emit('message', { conversationId: st.convId, message: m });
  }

  function flushHistory() {
    if (!historyBatch.length) return;
    const batch = historyBatch;
    historyBatch = [];
    for (let i = 0; i < batch.length; i += 100) {
      emit('history', { conversationId: st.convId, messages: batch.slice(i, i + 100) });
    }
  }

  function added(core) {
    const id = core.getAttribute(S.messageIdAttr);
    if (!id || core.closest(S.tombstone) || core.closest(S.sidebarItem)) return;
    if (st.known.has(id)) { remember(id, core); rowChanged(core); return; } // re-rendered, already reported
    if (!isReady(core)) {
      if (!st.pending.has(core)) st.pending.set(core, { since: performance.now(), history: isAboveKnown(core) });
      armPending();
      return;
    }
    report(core);
  }

  function removed(core) {
    st.pending.delete(core);
    const id = core.getAttribute(S.messageIdAttr);
    if (!id || !st.known.has(id)) return;
    st.known.set(id, null);
    if (id.startsWith('tmp_')) {
      const m = parseCore(core, st.names);
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
      st.sig.set(id, st.sig.get(oldId));
      st.sig.delete(oldId);
      stats.idChanges++;
      emit('message_id', { conversationId: st.convId, oldId: capString(oldId, 200), newId: capString(id, 200) });
      return;
    }
    added(core);
  }

  function armPending() {
    if (st.pendingTimer) return;
    st.pendingTimer = setTimeout(flushPending, PENDING_GRACE_MS);
  }

  // flushPending reports rows whose label never came (attachments, unusual rows) with
  // what could be read, so no row is silently dropped.
  function flushPending() {
    st.pendingTimer = 0;
    const now = performance.now();
    for (const [core, p] of Array.from(st.pending)) {
      if (!core.isConnected) { st.pending.delete(core); continue; }
      if (now - p.since >= PENDING_GRACE_MS - 5) report(core, p.history);
    }
    flushHistory();
    if (st.pending.size) armPending();
  }

  // ---- the observer ----------------------------------------------------------------

  function inOwnUI(node) {
    const h = ui.host();
    return !!h && (node === h);
  }

  const SIDEBAR_ANY = S.sidebarList + ',' + S.sidebarItem + ',' + S.sidebarLink;

  function onMutations(records) {
    const t0 = performance.now();
    checkUrl();
    let addedCores = [];
    // touched: rows something changed inside (a part or image added, a label or src set,
    // text edited): a waiting row may be ready now, a known one may need an update.
    const touched = new Set();
    let sidebarTouched = false;
    let composeTouched = false;
    let structure = false;
    for (const r of records) {
      const target = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (!target || inOwnUI(target)) continue;
      if (r.type === 'childList') {
        for (const n of r.removedNodes) {
          if (n.nodeType !== 1) continue;
          structure = true;
          const cs = [];
          coresIn(n, cs);
          for (const c of cs) removed(c);
        }
        for (const n of r.addedNodes) {
          if (n.nodeType !== 1 || inOwnUI(n)) continue;
          structure = true;
          coresIn(n, addedCores);
        }
        const owner = target.closest(S.messageCore);
        if (owner) touched.add(owner);
      } else if (r.type === 'attributes') {
        if (r.attributeName === S.messageIdAttr) {
          if (target.matches(S.messageCore) && st.phase === 'ready') idChanged(target, r.oldValue);
          continue;
        }
        if (r.attributeName === 'aria-label' || r.attributeName === 'src') {
          const owner = target.closest(S.messageCore);
          if (owner) touched.add(owner);
        }
      } else if (r.type === 'characterData') {
        const owner = target.closest(S.messageCore);
        if (owner) touched.add(owner);
      }
      if (!sidebarTouched && target.closest(SIDEBAR_ANY)) sidebarTouched = true;
      if (!composeTouched && (target.closest(S.inputWrapper) || target.closest(S.inputBox))) composeTouched = true;
    }
    if (st.phase === 'settling') {
      if (addedCores.length || structure) armSettle();
    } else if (st.phase === 'ready') {
      // Rows are taken in document order, whatever order the page inserted them in.
      if (addedCores.length > 1) {
        addedCores = Array.from(new Set(addedCores)).filter((c) => c.isConnected);
        addedCores.sort((a, b) => (a === b ? 0 : follows(a, b) ? 1 : -1));
      }
      for (const c of addedCores) added(c);
      for (const c of touched) if (st.pending.has(c) && isReady(c)) report(c, st.pending.get(c).history);
      flushHistory();
      for (const c of touched) rowChanged(c);
    }
    if (sidebarTouched) scheduleSidebar();
    if (composeTouched) reportCompose(false);
    // Any structural change may have taken the page's known parts away (Google re-renders
    // without a reload), so the state is re-checked, debounced, after every one.
    if (structure) scheduleState(st.pageState === 'loading' || !st.pageState ? LOADING_CHECK_MS : undefined);
    if (structure) ui.keepAttached();
    const dt = performance.now() - t0;
    stats.observerMs += dt;
    stats.observerCalls++;
    if (dt > stats.maxBatchMs) stats.maxBatchMs = dt;
  }

  // ---- sidebar ---------------------------------------------------------------------

  // scheduleSidebar reports the sidebar after a debounce: short until the first list was
  // reported, so Go learns the conversations as soon as the page drew them. A report already
  // due sooner stands; one due later is brought forward.
  function scheduleSidebar() {
    const wait = st.sidebarSnap ? SIDEBAR_DEBOUNCE_MS : SIDEBAR_FIRST_MS;
    const due = performance.now() + wait;
    if (st.sidebarTimer) {
      if (st.sidebarDue <= due) return;
      clearTimeout(st.sidebarTimer);
    }
    st.sidebarDue = due;
    st.sidebarTimer = setTimeout(reportSidebar, wait);
  }

  function sidebarItems() {
    const map = new Map();
    for (const a of document.querySelectorAll(S.sidebarLink)) {
      const it = parseSidebarItem(a);
      if (it && !map.has(it.id)) map.set(it.id, it);
    }
    return map;
  }

  function reportSidebar(force) {
    clearTimeout(st.sidebarTimer);
    st.sidebarTimer = 0;
    const now = sidebarItems();
    const prev = force ? null : st.sidebarSnap;
    if (!now.size && !prev) return;
    const items = [];
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
      if (!old) items.push(aboveKnown.has(id) ? { ...it, aboveKnown: true } : it);
      else if (JSON.stringify(old) !== JSON.stringify(it)) items.push(it);
    }
    if (prev) for (const id of prev.keys()) if (!now.has(id)) removedIds.push(id);
    st.sidebarSnap = now;
    if (prev && !items.length && !removedIds.length) return;
    emit('sidebar', { full: !prev, items: items.slice(0, 1000), removed: removedIds.slice(0, 1000) });
  }

  // ---- compose ---------------------------------------------------------------------

  function reportCompose(force) {
    const s = composeState(st.convId);
    const key = JSON.stringify(s);
    if (!force && key === st.compose) return;
    st.compose = key;
    emit('compose', s);
  }

  function onComposeEvent(ev) {
    // Clanker's own edit: the command reports the compose state itself once it is done.
    if (ownEditInProgress()) return;
    const t = ev.target;
    if (!t || t.nodeType !== 1) return;
    if (t.closest(S.inputWrapper) || t.closest(S.inputBox) || ev.type === 'focusout') reportCompose(false);
  }

  // ---- start -----------------------------------------------------------------------

  let mo = null;

  function start(selfTestFn) {
    selfTest = selfTestFn;
    mo = new MutationObserver(onMutations);
    mo.observe(document, {
      childList: true, subtree: true, characterData: true, attributes: true, attributeOldValue: true,
      attributeFilter: [S.messageIdAttr, 'aria-label', 'src', 'href', 'aria-selected', 'data-e2e-is-unread', 'data-e2e-is-pinned', 'data-e2e-is-muted'],
    });
    // SPA navigation: the page changes the URL with the history API; a mutation follows,
    // but the hooks make the switch visible at once.
    for (const name of ['pushState', 'replaceState']) {
      const orig = history[name];
      if (typeof orig !== 'function') continue;
      history[name] = function () {
        const r = orig.apply(this, arguments);
        try { checkUrl(); } catch (e) { /* never break the page */ }
        return r;
      };
    }
    window.addEventListener('popstate', () => checkUrl(), true);
    window.addEventListener('hashchange', () => checkUrl(), true);
    for (const t of ['input', 'focusin', 'focusout']) document.addEventListener(t, onComposeEvent, true);
    checkUrl();
    scheduleState(0);
    scheduleSidebar();
  }

  function snapshot() {
    st.pageStateKey = '';
    checkState();
    if (st.phase === 'ready') settle(visibleCores());
    else if (st.phase === 'settling') armSettle(0);
    reportSidebar(true);
    reportCompose(true);
  }

  return {
    start,
    snapshot,
    stats,
    cfg,
    state: () => st,
    pageState: () => computeState(),
    conversationId: () => st.convId,
    reportCompose,
    scheduleState,
  };
}
