// Watching the compose box: a compose event whenever what Go believes of the box (a draft
// of the user's, Clanker's text, focus) changes. The box is read on input and focus events
// in it, on DOM changes around it, and after every compose command.

import { S } from './selectors.js';
import { composeState, ownEditInProgress } from './compose.js';

// createComposeWatch returns the compose watcher; conversationId() names the foreground
// conversation the box belongs to.
export function createComposeWatch(emit, conversationId) {
  let last = ''; // the last reported state, as JSON

  // report reads the box and sends a compose event when its state changed (or always,
  // when force is set).
  function report(force) {
    const s = composeState(conversationId());
    const key = JSON.stringify(s);
    if (!force && key === last) return;
    last = key;
    emit('compose', s);
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

  return { report, start, touches };
}
