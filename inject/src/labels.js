// What the rows of the foreground conversation say, as their labels tell it: reading a row
// with the sender names seen so far (reactor lists need them), what was last reported of
// each message (so a changed label becomes one message_update, an unchanged one nothing),
// and the rows still waiting for their label. Google fills labels asynchronously after
// inserting a row; such a row waits (attribute observation brings the label) and after a
// grace period is reported with what could be read, so no row is silently dropped.
//
// It decides nothing about novelty: the rows part says what a row is, this part only
// holds it until it can be read and hands it back through onDue(core, history).

import { parseCore } from './parse.js';

const PENDING_GRACE_MS = 1500;

export function createLabels(hooks) {
  const st = {
    names: new Set(), // sender names seen in this conversation (reaction lists)
    sig: new Map(), // message id -> what was last reported of it (text, label, reactions)
    // pending: core element -> { since, history, id } for rows still waiting for a label; id
    // is the message the row showed when it came (a recycled element may show another one by
    // the time the bridge looks again).
    pending: new Map(),
    pendingTimer: 0,
  };

  // reset forgets the conversation's names, reports and waiting rows (a switch, or the page
  // became unusable).
  function reset() {
    st.names = new Set();
    st.sig = new Map();
    st.pending.clear();
  }

  // useHeader starts the name list with the header's names (a name with a comma is a
  // group's title, not a person).
  function useHeader(header) {
    st.names = new Set(header.filter((n) => n.indexOf(',') < 0));
  }

  function parse(core) { return parseCore(core, st.names); }

  // learn remembers a message's sender name for reading reactor lists.
  function learn(m) {
    if (m.sender && m.sender !== 'You' && st.names.size < 1000) st.names.add(m.sender);
  }

  // signature is everything a message_update can change: a label that arrives late brings
  // the sender, direction and time; an image's src may be set after the row appeared.
  function signature(m) {
    return JSON.stringify([m.text, m.sender, m.direction, m.timestamp, m.labelKind, m.status, m.reactions, m.images, m.quote]);
  }

  // noteReported records what was reported of m.
  function noteReported(m) { st.sig.set(m.id, signature(m)); }

  // changed records m and says whether it differs from what was last reported of its id.
  function changed(m) {
    const sig = signature(m);
    if (st.sig.get(m.id) === sig) return false;
    st.sig.set(m.id, sig);
    return true;
  }

  // renamed moves what was reported of oldId to newId.
  function renamed(oldId, newId) {
    st.sig.set(newId, st.sig.get(oldId));
    st.sig.delete(oldId);
  }

  function forget(id) { st.sig.delete(id); }

  // wait holds a row until its label comes; history is what the row was when it came, id
  // the message it showed then.
  function wait(core, history, id) {
    if (!st.pending.has(core)) st.pending.set(core, { since: performance.now(), history, id });
    arm();
  }

  function waiting(core) { return st.pending.has(core); }

  // waitingNew lists the rows waiting for their label that were new (not history) when they
  // came.
  function waitingNew() {
    const out = [];
    for (const [core, p] of st.pending) if (p.history === false) out.push(core);
    return out;
  }

  // waitedAs is how a waiting row was classified when it came (undefined if not waiting).
  function waitedAs(core) {
    const p = st.pending.get(core);
    return p ? p.history : undefined;
  }

  // waitedId is the message id a waiting row showed when it came (undefined if not waiting).
  function waitedId(core) {
    const p = st.pending.get(core);
    return p ? p.id : undefined;
  }

  function done(core) { st.pending.delete(core); }

  function arm() {
    if (st.pendingTimer) return;
    st.pendingTimer = setTimeout(flush, PENDING_GRACE_MS);
  }

  // flush reports rows whose label never came (attachments, unusual rows) with what could
  // be read.
  function flush() {
    st.pendingTimer = 0;
    const now = performance.now();
    for (const [core, p] of Array.from(st.pending)) {
      if (!core.isConnected) { st.pending.delete(core); continue; }
      if (now - p.since >= PENDING_GRACE_MS - 5) hooks.onDue(core, p.history);
    }
    hooks.afterDue();
    if (st.pending.size) arm();
  }

  // flushAll reports every row still waiting at once, with what can be read: the page is
  // leaving the conversation, and a row drawn in it is its message whether or not its label
  // came.
  function flushAll() {
    for (const [core, p] of Array.from(st.pending)) {
      if (core.isConnected) hooks.onDue(core, p.history);
      else st.pending.delete(core);
    }
    hooks.afterDue();
  }

  return { reset, useHeader, parse, learn, noteReported, changed, renamed, forget, wait, waiting, waitingNew, waitedAs, waitedId, done, flushAll };
}
