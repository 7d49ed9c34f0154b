// Entry point of the Clanker bridge. It observes the Google Messages page, reports what it
// sees as small typed events, and carries out validated commands. It decides nothing: the
// Go engine does. Injecting it twice is harmless (the second copy sees the first and
// stops), and it works injected at document start or after load.

import { createTransport } from './transport.js';
import { createObserver } from './observe.js';
import { createUI } from './ui.js';
import { createCommands } from './commands.js';
import { SELECTORS_CHECKED, S } from './selectors.js';
import { createSelfWatch } from './selfwatch.js';
import { SCHEMA } from '../gen/schema.gen.js';
import { capString, conversationIdFrom } from './util.js';

const BRIDGE = 'clanker-bridge/1';

(function () {
  if (Object.prototype.hasOwnProperty.call(window, '__clanker')) return;
  // Captured now, before page scripts can replace them.
  const nativeFetch = window.fetch.bind(window);
  const transport = createTransport();
  const emit = transport.emit;
  const ui = createUI(emit);
  const obs = createObserver(emit, ui, SCHEMA.maxEventBytes);
  const selfWatch = createSelfWatch(emit, () => obs.pageState());
  obs.stats.transport = transport.stats;
  const command = createCommands(emit, obs, ui, selfWatch, nativeFetch);
  const api = Object.freeze({ command: (text) => { try { command(text); } catch (e) { /* never throw into the page */ } }, version: BRIDGE });
  Object.defineProperty(window, '__clanker', { value: api, writable: false, configurable: false, enumerable: false });
  emit('hello', {
    bridge: BRIDGE,
    transport: transport.name(),
    url: capString(location.href, 2048),
    readyState: document.readyState,
    selectorsChecked: SELECTORS_CHECKED,
  });
  // A key pressed in the compose box while Clanker visits another conversation is the user
  // taking over: the overlay goes and Go ends the visit. Enter is left out: it is the trusted
  // key the shell presses to send Clanker's own reply in the visited conversation. The event
  // names the conversation the address shows now: the user may have clicked another one just
  // before, and its page_state may still be on its way; Go releases what the visited
  // conversation was owed only for a key pressed in it.
  document.addEventListener('keydown', (ev) => {
    if (!ev.isTrusted || !ui.overlayShown() || ev.key === 'Enter') return;
    const t = ev.target;
    if (!t || t.nodeType !== 1 || !(t.closest(S.inputBox) || t.closest(S.inputWrapper))) return;
    ui.hideOverlay();
    emit('overlay_cancel', { reason: 'key', conversationId: conversationIdFrom(location.href) });
  }, true);
  obs.start(selfWatch);
})();
