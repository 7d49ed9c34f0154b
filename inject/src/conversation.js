// Which conversation is in the foreground, and when its DOM has settled. The foreground
// conversation is reported (conversation event) only after the DOM settled for it: no
// row of the previous conversation left, at least one row (or a long wait), labels
// filled, and no row changes for a quiet period. Those rows are the baseline, never "new".
// A conversation is never settled before its pane is there: the wait for rows of an empty
// conversation starts when the pane appears, not when the page started loading.
//
// It owns the URL, the conversation id and the settling phase; the rows and labels parts
// it is given are reset on every switch and seeded with the baseline.

import { S } from './selectors.js';
import { isReady, headerNames } from './parse.js';
import { hasThread } from './pagestate.js';
import { currentPane, paneCores, aside } from './pane.js';
import { conversationIdFrom, capString, cleanName, isAutomatedName, utf8Bytes } from './util.js';

const QUIET_MS = 300;
const EMPTY_WAIT_MS = 10000;
const LABEL_WAIT_MS = 2000;
// OLD_ROWS_MAX_MS bounds the wait for the previous conversation's rows to leave the pane on
// screen: after it the conversation settles without them (they are never reported for it).
const OLD_ROWS_MAX_MS = 8000;
// MAX_PREV_IDS bounds the ids kept of the conversations the page showed before.
const MAX_PREV_IDS = 5000;
// A pane whose header names other people than the conversation settled with shows another
// conversation (a pane reused for the next one before the address changes, or never
// changing it): its new rows wait, and are dropped at the switch. The header is taken as
// the conversation's own (renamed, a member added) only when the conversation list names
// the conversation on the address that way too. While rows wait, that is looked at again
// every HELD_CHECK_MS; at most MAX_HELD rows wait.
const HELD_CHECK_MS = 1000;
const MAX_HELD = 500;
// A conversation still settling whose pane's header names another conversation (as the
// conversation list names it) while the list names this one otherwise is not settled:
// the page is drawing the next conversation into the pane before it changes the address.
// Its header and rows are not this conversation's. The wait is bounded: after
// OTHER_PANE_MAX_MS the conversation settles with its header unknown and no row reported,
// the rows on screen only its baseline (never new, never history).
const OTHER_PANE_MAX_MS = 8000;
// A header whose names changed twice since the address did (from what was on screen at the
// switch to this conversation's, then to others) may be the next conversation drawn into the
// pane before its address, whatever the list calls it (a group the list shows by its own
// name). The conversation then settles only once the header has kept its names
// HEADER_STILL_MS (names resolved late, a rename) or the address changes.
const HEADER_STILL_MS = 5000;

// parts: { rows, labels, pageState, ui, onSettled, onSwitch } where onSettled runs after
// each conversation event and onSwitch after each change of conversation.
export function createConversation(emit, maxEventBytes, parts) {
  const { rows, labels, pageState, ui } = parts;
  const st = {
    url: '',
    convId: '',
    phase: 'idle', // idle | settling | ready
    prevIds: new Map(), // message id -> the conversation it was seen in
    // paneSince and rowsSince are when this conversation's pane and its first rows were
    // first seen while settling (0 = not yet): the empty and label waits count from them;
    // oldSince when rows of the previous conversation were first seen still on screen;
    // otherSince when the pane's header was first seen naming another conversation.
    paneSince: 0,
    rowsSince: 0,
    oldSince: 0,
    otherSince: 0,
    // The header's names (a key) last seen while settling, how often they changed since
    // the address did, and when they last changed.
    headerKey: '',
    headerChanges: 0,
    headerSince: 0,
    // The conversation the list marked at the switch, and whether the mark moved since.
    selectedAtSwitch: '',
    selectionMoved: false,
    settleTimer: 0,
    header: [], // the names the conversation settled with (or first showed after)
    held: [], // rows that came while the pane showed another conversation's header
    heldTimer: 0,
  };

  // check follows the address. reopened says the page pushed a history entry (pushState):
  // one for the conversation already open is the page opening it again (at a search hit,
  // say), a new visit that settles afresh, so nothing drawn before it is new in it.
  function check(reopened) {
    const again = !!reopened && st.phase !== 'idle' && conversationIdFrom(location.href) === st.convId && !!st.convId;
    if (location.href === st.url && !again) return;
    st.url = location.href;
    const id = conversationIdFrom(st.url);
    if (id === st.convId && st.phase !== 'idle' && !again) return;
    // Rows of the conversation being left that still wait for their label are reported now,
    // while they are on screen and the conversation is still this one. A conversation opened
    // again is not left: such rows are part of its new baseline.
    if (st.phase === 'ready' && !again) labels.flushAll();
    // Remember the previous conversation's rows, each with the conversation it was seen in,
    // so they are never taken for this one's. A conversation left before it settled adds
    // nothing of its own, and must not make the page forget the rows of the one before it,
    // which may still be on screen. A conversation opened again keeps its own rows out of
    // that: they are its baseline. So does a conversation come back to before the one in
    // between settled (A, B, back to A): A's rows are A's, not rows left over from before,
    // or the return would wait for its own rows to leave, settle without them, and take
    // what arrived meanwhile as baseline.
    let prev = st.prevIds;
    if (!again) {
      if (st.phase === 'ready') prev = new Map();
      for (const k of rows.knownIds()) prev.set(k, st.convId);
    }
    for (const [k, c] of prev) if (c === id) prev.delete(k);
    while (prev.size > MAX_PREV_IDS) prev.delete(prev.keys().next().value);
    st.prevIds = prev;
    rows.reset();
    labels.reset();
    release('');
    st.convId = id;
    clearTimeout(st.settleTimer);
    st.settleTimer = 0;
    if (id && !pageState.lost()) {
      st.phase = 'settling';
      st.paneSince = 0;
      st.rowsSince = 0;
      st.oldSince = 0;
      st.otherSince = 0;
      st.headerKey = namesKey(headerNames(currentPane(ui.host())));
      st.headerChanges = 0;
      st.headerSince = 0;
      st.selectedAtSwitch = selectedId();
      st.selectionMoved = false;
      arm();
    } else {
      st.phase = 'idle';
    }
    pageState.schedule(0);
    parts.onSwitch();
  }

  // lose forgets the conversation when the page stops being usable without a reload
  // (Google re-rendered it into something unknown, or signed the user out): its rows are
  // gone, and whatever appears later is a fresh baseline, never "new".
  function lose() {
    clearTimeout(st.settleTimer);
    st.settleTimer = 0;
    st.phase = 'idle';
    rows.reset();
    labels.reset();
    release('');
    st.prevIds = new Map();
  }

  // regain settles the conversation on screen afresh once the page is usable again.
  function regain() {
    st.url = '';
    st.phase = 'idle';
    check();
  }

  function arm(ms) {
    clearTimeout(st.settleTimer);
    st.settleTimer = setTimeout(trySettle, ms === undefined ? QUIET_MS : ms);
  }

  function trySettle() {
    st.settleTimer = 0;
    // An exception (a page shaped like nothing seen before) must not end settling for good.
    try { trySettleNow(); } catch (e) { arm(500); }
  }

  function trySettleNow() {
    if (st.phase !== 'settling') return;
    const now = performance.now();
    // The rows of the pane on screen, wherever they sit in it; hidden panes (a previous
    // conversation's lingering) are not read.
    const pane = currentPane(ui.host());
    let cores = paneCores(pane, ui.host());
    if (cores.some((c) => st.prevIds.has(c.getAttribute(S.messageIdAttr)))) {
      // Old rows still shown: wait for them to go, but not for ever.
      if (!st.oldSince) st.oldSince = now;
      if (now - st.oldSince < OLD_ROWS_MAX_MS) return arm();
      cores = cores.filter((c) => !st.prevIds.has(c.getAttribute(S.messageIdAttr)));
    }
    if (!pane) {
      st.paneSince = 0;
      return arm(500);
    }
    watchHeader();
    if (st.headerChanges >= 2 && now - st.headerSince < HEADER_STILL_MS) return arm(500);
    let unsure = false;
    if (namedElsewhere(headerNames(pane)) || markedElsewhere()) {
      // The pane shows the next conversation before the address does: wait for the address
      // (or for the header to come back), but not for ever.
      if (!st.otherSince) st.otherSince = now;
      if (now - st.otherSince < OTHER_PANE_MAX_MS) return arm();
      unsure = true;
    }
    if (!cores.length) {
      // No pane yet (the page is still loading, however long that takes): nothing can be
      // settled, or rows drawn later would count as new. Once the pane is there, an empty
      // conversation is settled after EMPTY_WAIT_MS without rows.
      if (!hasThread()) {
        st.paneSince = 0;
        return arm(500);
      }
      if (!st.paneSince) st.paneSince = now;
      if (now - st.paneSince < EMPTY_WAIT_MS) return arm(500);
    } else {
      if (!st.rowsSince) st.rowsSince = now;
      if (now - st.rowsSince < LABEL_WAIT_MS && cores.some((c) => !isReady(c) && hasParts(c))) return arm(100);
    }
    settle(cores, pane, unsure);
  }

  function hasParts(core) {
    return !!core.querySelector(S.textPart + ',' + S.imagePart);
  }

  // settle reports the conversation with the rows on screen as its baseline. unsure (the
  // pane may show another conversation) reports no header and no row: the rows are only
  // kept from counting as new. A snapshot of a settled conversation keeps the header it
  // settled with.
  function settle(cores, pane, unsure) {
    const wasReady = st.phase === 'ready';
    st.phase = 'ready';
    const header = unsure ? [] : headerNames(pane);
    if (!unsure || !wasReady) st.header = header;
    labels.useHeader(header);
    let messages = cores.map((core) => labels.parse(core));
    let omitted = 0;
    if (unsure) {
      rows.baseline(cores, messages, pane);
      omitted = messages.length;
      messages = [];
    }
    const senders = [];
    for (const m of messages) {
      if (m.sender && m.sender !== 'You' && senders.indexOf(m.sender) < 0) senders.push(m.sender);
      labels.learn(m);
    }
    // Reactor lists are read with every sender's name known (a name with a comma).
    messages = messages.map((m, i) => (m.reactions.length ? labels.parse(cores[i]) : m));
    if (!unsure) rows.baseline(cores, messages, pane);
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
      omitted,
    };
    // Keep the event under the size cap by leaving out the oldest rows.
    while (ev.messages.length && utf8Bytes(JSON.stringify(ev)) > maxEventBytes - 1024) {
      const drop = Math.max(1, Math.ceil(ev.messages.length / 10));
      ev.messages = ev.messages.slice(drop);
      ev.omitted += drop;
    }
    emit('conversation', ev);
    pageState.schedule(0);
    parts.onSettled();
  }

  // snapshot sends the settled conversation again (or settles now if it was settling).
  function snapshot() {
    if (st.phase === 'ready') {
      const pane = currentPane(ui.host());
      settle(paneCores(pane, ui.host()), pane, namedElsewhere(headerNames(pane)));
    } else if (st.phase === 'settling') arm(0);
  }

  // hold keeps rows that came from being classified while the pane on screen names other
  // people in its header than the conversation did: the page is drawing another
  // conversation into this pane before (or without) changing the address. Each row waits
  // with the header it came under: if that header turns out to be this conversation's
  // (the conversation list names it so: a rename), the row is classified; otherwise it is
  // dropped when the header is this conversation's again or the switch comes. A row that
  // changes later comes again as a change of its own. It returns whether it held them.
  function hold(cores) {
    const now = headerNames(currentPane(ui.host()));
    if (!now.length) return false;
    if (!st.header.length && !namedElsewhere(now)) {
      st.header = now; // a header drawn late is the conversation's own
      return false;
    }
    if (sameNames(now, st.header)) return false;
    if (renamed(now)) {
      accept(now);
      return false;
    }
    const under = namesKey(now);
    for (const c of cores) {
      if (st.held.length < MAX_HELD && !st.held.some((h) => h.core === c)) st.held.push({ core: c, under });
    }
    if (!st.heldTimer) st.heldTimer = setTimeout(checkHeld, HELD_CHECK_MS);
    return true;
  }

  // renamed says whether the conversation list names the conversation on the address as the
  // header now does: then the header changed for the conversation itself.
  function renamed(names) {
    for (const a of document.querySelectorAll(S.sidebarLink)) {
      if (conversationIdFrom(a.getAttribute('href') || '') !== st.convId) continue;
      if (listNames(a, names)) return true;
    }
    return false;
  }

  // selectedId is the conversation the real list marks as open ('' when it marks none).
  function selectedId() {
    for (const a of document.querySelectorAll(S.sidebarLink)) {
      if (a.getAttribute('aria-selected') !== 'true' || aside(a)) continue;
      const id = conversationIdFrom(a.getAttribute('href') || '');
      if (id) return id;
    }
    return '';
  }

  // markedElsewhere says whether the list's mark (aria-selected on the open conversation's
  // link) moved since the switch and stands on another conversation than the one on the
  // address: the page shows that one ahead of its address, and the conversation waits as for
  // a header the list names otherwise. A mark that never moved says nothing: a page may leave
  // it where it was (a conversation opened from search) or tie it to the address.
  function markedElsewhere() {
    const now = selectedId();
    if (now !== st.selectedAtSwitch) st.selectionMoved = true;
    return st.selectionMoved && !!now && now !== st.convId;
  }

  // namedElsewhere says whether header names are how the conversation list names another
  // conversation and not how it names the one on the address: the pane then shows that
  // other conversation. It needs the list to name both: a conversation the list does not
  // show (opened from search, or further down than the list has loaded) may share its name
  // with one it shows, and names the list gives no conversation, or gives this one too,
  // say nothing.
  function namedElsewhere(names) {
    if (!names.length || !st.convId) return false;
    let other = false;
    let listed = false;
    for (const a of document.querySelectorAll(S.sidebarLink)) {
      const id = conversationIdFrom(a.getAttribute('href') || '');
      if (!id) continue;
      const so = listNames(a, names);
      if (id === st.convId) {
        if (so) return false;
        listed = true;
      } else if (so) other = true;
    }
    return listed && other;
  }

  // accept takes names as the conversation's header: rows held under it are this
  // conversation's, the others are dropped.
  function accept(names) {
    st.header = names;
    release(namesKey(names));
  }

  // checkHeld looks again while rows wait, since the header or the list may change without
  // any row changing.
  function checkHeld() {
    st.heldTimer = 0;
    if (st.phase !== 'ready' || !st.held.length) return;
    headerBack();
    if (st.held.length) st.heldTimer = setTimeout(checkHeld, HELD_CHECK_MS);
  }

  // release ends the wait of held rows: those held under the header key `take` are
  // classified now; the rest are dropped (they came under another conversation's header).
  function release(take) {
    clearTimeout(st.heldTimer);
    st.heldTimer = 0;
    const held = st.held;
    st.held = [];
    const mine = take ? held.filter((h) => h.under === take).map((h) => h.core) : [];
    if (mine.length) rows.unheld(mine);
  }

  // headerBack is told about each batch of the settled conversation (and looks while rows
  // wait): a header that names this conversation's people again, or that the list confirms
  // as its new name, ends the wait.
  function headerBack() {
    if (!st.held.length) return;
    const now = headerNames(currentPane(ui.host()));
    if (now.length && (sameNames(now, st.header) || renamed(now))) accept(now);
  }

  // watchHeader follows the header's names while settling (told about changes in the pane).
  function watchHeader() {
    if (st.phase !== 'settling') return;
    markedElsewhere(); // notes a mark that moved
    const key = namesKey(headerNames(currentPane(ui.host())));
    if (!key || key === st.headerKey) return;
    st.headerKey = key;
    st.headerChanges++;
    st.headerSince = performance.now();
  }

  // changed is told about row changes while settling: the quiet period starts again.
  function changed() { arm(); }

  return {
    check,
    lose,
    regain,
    snapshot,
    changed,
    watchHeader,
    hold,
    headerBack,
    phase: () => st.phase,
    id: () => st.convId,
  };
}

// listNames says whether the conversation list's link a names the conversation as names
// do (a group's names joined with commas).
function listNames(a, names) {
  const el = a.querySelector(S.sidebarName);
  const name = el ? cleanName(el.textContent, 200) : '';
  return !!name && (name === names.join(', ') || (names.length === 1 && names[0] === name));
}

function sameNames(a, b) {
  if (a.length !== b.length) return false;
  const x = a.slice().sort();
  const y = b.slice().sort();
  return x.every((n, i) => n === y[i]);
}

function namesKey(names) {
  return names.slice().sort().join('\n');
}
