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
import { conversationIdFrom, capString, isAutomatedName, utf8Bytes } from './util.js';

const QUIET_MS = 300;
const EMPTY_WAIT_MS = 10000;
const LABEL_WAIT_MS = 2000;

// parts: { rows, labels, pageState, ui, onSettled, onSwitch } where onSettled runs after
// each conversation event and onSwitch after each change of conversation.
export function createConversation(emit, maxEventBytes, parts) {
  const { rows, labels, pageState, ui } = parts;
  const st = {
    url: '',
    convId: '',
    phase: 'idle', // idle | settling | ready
    prevIds: new Set(),
    // paneSince and rowsSince are when this conversation's pane and its first rows were
    // first seen while settling (0 = not yet): the empty and label waits count from them.
    paneSince: 0,
    rowsSince: 0,
    settleTimer: 0,
  };

  function check() {
    if (location.href === st.url) return;
    st.url = location.href;
    const id = conversationIdFrom(st.url);
    if (id === st.convId && st.phase !== 'idle') return;
    // Remember the previous conversation's rows so they are never taken for this one's.
    st.prevIds = new Set(rows.knownIds());
    rows.reset();
    labels.reset();
    st.convId = id;
    clearTimeout(st.settleTimer);
    st.settleTimer = 0;
    if (id && !pageState.lost()) {
      st.phase = 'settling';
      st.paneSince = 0;
      st.rowsSince = 0;
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
    st.prevIds = new Set();
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
    if (cores.some((c) => st.prevIds.has(c.getAttribute(S.messageIdAttr)))) return arm(); // old rows still shown
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
    settle(cores);
  }

  function hasParts(core) {
    return !!core.querySelector(S.textPart + ',' + S.imagePart);
  }

  function settle(cores) {
    st.phase = 'ready';
    const header = headerNames();
    labels.useHeader(header);
    let messages = cores.map((core) => labels.parse(core));
    const senders = [];
    for (const m of messages) {
      if (m.sender && m.sender !== 'You' && senders.indexOf(m.sender) < 0) senders.push(m.sender);
      labels.learn(m);
    }
    // Reactor lists are read with every sender's name known (a name with a comma).
    messages = messages.map((m, i) => (m.reactions.length ? labels.parse(cores[i]) : m));
    rows.baseline(cores, messages);
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
    pageState.schedule(0);
    parts.onSettled();
  }

  // snapshot sends the settled conversation again (or settles now if it was settling).
  function snapshot() {
    if (st.phase === 'ready') settle(visibleCores());
    else if (st.phase === 'settling') arm(0);
  }

  // changed is told about row changes while settling: the quiet period starts again.
  function changed() { arm(); }

  return {
    check,
    lose,
    regain,
    snapshot,
    changed,
    phase: () => st.phase,
    id: () => st.convId,
  };
}
