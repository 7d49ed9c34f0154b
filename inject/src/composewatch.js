// Watching the compose box: a compose event whenever what Go believes of the box (a draft
// of the user's, Clanker's text, focus) changes. The box is read on input and focus events
// in it, on DOM changes around it, and after every compose command.
//
// A belief that the user has a draft is never trusted without reading the box again: the
// page may empty the box by script with no input event (a framework's model binding
// setting .value fires none, and changes no DOM either), and may restore a draft after a
// switch the same way. So while the last report said a draft is there, the box is read
// again after changes in the conversation pane (coalesced) and on a slow timer, which
// stops once no draft is believed; it is read when the user's own sent row appears (the
// page empties the box when it sends); and for a few seconds after each switch, while the
// page may still be restoring the conversation's draft. Go can also ask (read_compose).

import { S } from './selectors.js';
import { composeState, ownEditInProgress } from './compose.js';

// While a draft is believed, the box is read this often even when nothing else happens.
const DRAFT_POLL_MS = 1500;
// Reads asked for by changes in the pane are coalesced into one per this many ms.
const CHANGE_READ_MS = 150;
// After a conversation switch or settle the box is polled this long whatever it held: the
// page may restore the conversation's draft without any event.
const AFTER_SWITCH_MS = 5000;
// After the user's own row appears, the box is read at once and again after these delays
// (the page may empty it a moment after it draws the row).
const AFTER_SEND_MS = [300, 1000];

// createComposeWatch returns the compose watcher; conversationId() names the foreground
// conversation the box belongs to.
export function createComposeWatch(emit, conversationId) {
  const st = {
    last: '', // the last reported state, as JSON
    draft: false, // the last report said the user has a draft in the box
    pollTimer: 0,
    changeTimer: 0,
    watchUntil: 0, // poll whatever the belief until then (after a switch)
    reads: 0, // how often the box was read (stats)
  };

  // report reads the box and sends a compose event when its state changed (or always,
  // when force is set).
  function report(force) {
    st.reads++;
    const s = composeState(conversationId());
    const key = JSON.stringify(s);
    st.draft = !!s.hasUserText;
    keepPolling();
    if (!force && key === st.last) return s;
    st.last = key;
    emit('compose', s);
    return s;
  }

  // polling says whether the slow re-read timer should run.
  function polling() {
    return st.draft || performance.now() < st.watchUntil;
  }

  function keepPolling() {
    if (!polling()) {
      clearTimeout(st.pollTimer);
      st.pollTimer = 0;
      return;
    }
    if (st.pollTimer) return;
    st.pollTimer = setTimeout(() => {
      st.pollTimer = 0;
      if (ownEditInProgress()) { keepPolling(); return; }
      report(false);
    }, DRAFT_POLL_MS);
  }

  // paneChanged is told about DOM changes in the conversation pane: while a draft is
  // believed, the box is read again (coalesced, so a burst of changes costs one read).
  function paneChanged() {
    if (!st.draft || st.changeTimer) return;
    st.changeTimer = setTimeout(() => {
      st.changeTimer = 0;
      if (!ownEditInProgress()) report(false);
    }, CHANGE_READ_MS);
  }

  // ownRowAppeared is told that a row the user sent appeared: the page empties the box
  // when it sends, with or without an event.
  function ownRowAppeared() {
    report(false);
    for (const ms of AFTER_SEND_MS) setTimeout(() => { if (!ownEditInProgress()) report(false); }, ms);
  }

  // switched is told that the foreground conversation changed or settled: the box is polled
  // for a while, whatever it held, in case the page restores a draft without events.
  function switched() {
    st.watchUntil = performance.now() + AFTER_SWITCH_MS;
    keepPolling();
  }

  function onEvent(ev) {
    // Clanker's own edit: the command reports the compose state itself once it is done.
    if (ownEditInProgress()) return;
    const t = ev.target;
    if (!t || t.nodeType !== 1) return;
    if (t.closest(S.inputWrapper) || t.closest(S.inputBox) || ev.type === 'focusout') report(false);
  }

  // start listens for the user's input and focus changes (capture, so the page cannot
  // stop them first).
  function start() {
    for (const t of ['input', 'focusin', 'focusout']) document.addEventListener(t, onEvent, true);
  }

  // touches says whether a changed element is part of the compose box.
  function touches(el) {
    return !!(el.closest(S.inputWrapper) || el.closest(S.inputBox));
  }

  // stats is what the stats command reports of the watcher.
  function stats() {
    return { composeReads: st.reads, composePolling: !!st.pollTimer };
  }

  return { report, start, touches, paneChanged, ownRowAppeared, switched, stats };
}
