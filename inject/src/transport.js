// The host transport: how events leave the page. The channel is chosen once, at
// injection time, and the functions are captured then, so a page script that later
// replaces window.webkit or window.chrome.webview cannot intercept or forge the bridge's
// traffic through our references. There is no other channel: tests stand in one of these
// two before the bridge runs (tests/browser's WailsHost).

import { SCHEMA } from '../gen/schema.gen.js';
import { utf8Bytes } from './util.js';

const EVENT_NAME = 'clanker:event';

// SEAL starts the text of every event. Before injecting the script, the app writes this
// run's nonce over the placeholder in SCHEMA.seal (page.SealScript), and Go drops any event
// that does not start with it. An unsealed copy still holds the placeholder, which is not
// a nonce, so it posts bare JSON.
const SEAL = /^[0-9a-f]{16,64}$/.test(SCHEMA.seal) ? SCHEMA.seal : '';

function capture() {
  try {
    const h = window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.external;
    if (h && typeof h.postMessage === 'function') {
      const post = h.postMessage.bind(h);
      return { name: 'webkit', send: (s) => post('EE' + JSON.stringify({ name: EVENT_NAME, data: [s] })) };
    }
  } catch (e) { /* fall through */ }
  try {
    const w = window.chrome && window.chrome.webview;
    if (w && typeof w.postMessage === 'function') {
      const post = w.postMessage.bind(w);
      return { name: 'webview2', send: (s) => post('EE' + JSON.stringify({ name: EVENT_NAME, data: [s] })) };
    }
  } catch (e) { /* fall through */ }
  return null;
}

// createTransport returns emit(type, data): it wraps data in the versioned envelope,
// enforces the event size cap and posts the JSON text to the host. Events emitted before
// any host exists are kept (up to 200) and flushed once one appears.
export function createTransport() {
  let host = capture();
  let seq = 0;
  const backlog = [];
  const stats = { events: 0, dropped: 0, bytes: 0, postMs: 0 };

  function post(text) {
    if (!host) host = capture();
    if (!host) {
      if (backlog.length < 200) backlog.push(text); else stats.dropped++;
      return;
    }
    while (backlog.length) {
      try { host.send(backlog.shift()); } catch (e) { stats.dropped++; }
    }
    const t0 = performance.now();
    try { host.send(text); } catch (e) { stats.dropped++; }
    stats.postMs += performance.now() - t0;
  }

  function emit(type, data) {
    seq++;
    const body = JSON.stringify({ v: SCHEMA.version, type, seq, data });
    // Go caps the envelope (after the seal) in UTF-8 bytes; a UTF-16 unit is at most three.
    if (body.length * 3 > SCHEMA.maxEventBytes && utf8Bytes(body) > SCHEMA.maxEventBytes) {
      stats.dropped++;
      return false;
    }
    const text = SEAL + body;
    stats.events++;
    stats.bytes += text.length;
    post(text);
    return true;
  }

  return { emit, stats, name: () => (host ? host.name : 'test') };
}
