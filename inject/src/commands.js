// The single command entry point. Go sends JSON text (never code); it is parsed with
// JSON.parse, checked against the schema generated from the Go types (schema.gen.js),
// and dispatched to a fixed table of handlers. Every command, valid or not, is answered
// with a result event carrying its id.

import { SCHEMA } from '../gen/schema.gen.js';
import { findCompose, insertText, typeStep, clearInserted, focusCompose, composeState, userText, userActiveWithin, watchUserInput, watchEdits } from './compose.js';
import { S } from './selectors.js';
import { conversationIdFrom } from './util.js';

const ID_RE = /^[A-Za-z0-9_.:-]{1,64}$/;
const MAX_COMMAND_CHARS = 16384;

function validate(cmd) {
  if (!cmd || typeof cmd !== 'object' || Array.isArray(cmd)) return 'command is not an object';
  for (const k of Object.keys(cmd)) if (k !== 'v' && k !== 'id' && k !== 'type' && k !== 'args') return 'unknown command field ' + JSON.stringify(k.slice(0, 40));
  if (cmd.v !== SCHEMA.version) return 'protocol version ' + String(cmd.v).slice(0, 10) + ', bridge speaks ' + SCHEMA.version;
  if (typeof cmd.id !== 'string' || !ID_RE.test(cmd.id)) return 'bad command id';
  const fields = typeof cmd.type === 'string' && Object.prototype.hasOwnProperty.call(SCHEMA.commands, cmd.type) ? SCHEMA.commands[cmd.type] : null;
  if (!fields) return 'unknown command type';
  const args = cmd.args === undefined ? {} : cmd.args;
  if (!args || typeof args !== 'object' || Array.isArray(args)) return 'args is not an object';
  for (const k of Object.keys(args)) if (!Object.prototype.hasOwnProperty.call(fields, k)) return 'unknown argument ' + JSON.stringify(k.slice(0, 40));
  for (const name of Object.keys(fields)) {
    const f = fields[name];
    const v = args[name];
    if (v === undefined || v === null) {
      if (f.req) return 'missing argument ' + name;
      continue;
    }
    if (f.kind === 'string') {
      if (typeof v !== 'string') return name + ' must be a string';
      if (f.req && v === '') return name + ' must not be empty';
      if (f.max !== undefined && Array.from(v).length > f.max) return name + ' is longer than ' + f.max;
      if (f.enum && v !== '' && f.enum.indexOf(v) < 0) return name + ' must be one of ' + f.enum.join(', ');
    } else if (f.kind === 'int') {
      if (typeof v !== 'number' || !Number.isInteger(v)) return name + ' must be an integer';
      if (f.min !== undefined && v < f.min) return name + ' is below ' + f.min;
      if (f.max !== undefined && v > f.max) return name + ' is above ' + f.max;
    } else if (f.kind === 'bool') {
      if (typeof v !== 'boolean') return name + ' must be true or false';
    } else {
      return name + ' has an unsupported kind';
    }
  }
  return '';
}

export function createCommands(emit, obs, ui, selfWatch, nativeFetch) {
  watchUserInput(); // navigate's visit guard needs to know when the user last used the page
  watchEdits(); // clear_inserted needs to know which characters of the box are Clanker's
  let quietMs = SCHEMA.userQuietMs;
  function result(id, command, r) {
    emit('result', {
      id: id || '',
      command: command || '',
      ok: !!r.ok,
      code: r.ok ? '' : (r.code || 'failed'),
      error: r.ok ? '' : String(r.error || '').slice(0, 500),
      data: r.data === undefined ? null : r.data,
    });
  }

  function needCompose(args, fn) {
    const c = findCompose();
    if (!c) return { ok: false, code: 'no_compose', error: 'no compose box on the page' };
    if (args.conversationId !== undefined && args.conversationId !== obs.conversationId()) {
      return { ok: false, code: 'wrong_conversation', error: 'the foreground conversation is not the one the command is for' };
    }
    const r = fn(c);
    obs.reportCompose(false);
    return r;
  }

  function navigate(args) {
    if (/[/?#]/.test(args.conversationId)) return { ok: false, code: 'bad_command', error: 'conversationId may not contain / ? #' };
    if (obs.conversationId() === args.conversationId) return { ok: true, data: { already: true } };
    if (args.visit) {
      // A visit is Clanker's idea, not the user's: it waits while they are using the window.
      const c = findCompose();
      if (c && userText(c)) return { ok: false, code: 'user_active', error: 'the compose box holds the user\'s text; the visit waits' };
      if (userActiveWithin(quietMs)) return { ok: false, code: 'user_active', error: 'the user used the page in the last ' + quietMs + ' ms; the visit waits' };
    }
    for (const a of document.querySelectorAll(S.sidebarLink)) {
      if (conversationIdFrom(a.getAttribute('href') || '') === args.conversationId) {
        a.click();
        return { ok: true, data: { already: false } };
      }
    }
    return { ok: false, code: 'not_found', error: 'no sidebar link for that conversation' };
  }

  function toBase64(bytes) {
    let bin = '';
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(bin);
  }

  async function fetchImage(id, args) {
    const src = args.src;
    if (!src.startsWith('blob:' + location.origin + '/')) {
      return { ok: false, code: 'bad_source', error: 'only blob URLs of this page can be fetched' };
    }
    const max = args.maxBytes || SCHEMA.maxImageBytes;
    let blob;
    try {
      const resp = await nativeFetch(src);
      if (!resp.ok) throw new Error('status ' + resp.status);
      blob = await resp.blob();
    } catch (e) {
      return { ok: false, code: 'image_gone', error: 'the image blob is no longer available (revoked or never loaded)' };
    }
    if (blob.size > max) return { ok: false, code: 'too_large', error: 'image is ' + blob.size + ' bytes, limit ' + max };
    const bytes = new Uint8Array(await blob.arrayBuffer());
    const size = SCHEMA.imageChunkBytes;
    const total = Math.max(1, Math.ceil(bytes.length / size));
    for (let i = 0; i < total; i++) {
      emit('image_chunk', { id, index: i, total, data: toBase64(bytes.subarray(i * size, (i + 1) * size)) });
    }
    return { ok: true, data: { mime: String(blob.type || '').slice(0, 100), size: bytes.length, chunks: total } };
  }

  const handlers = {
    insert_text: (a) => needCompose(a, (c) => insertText(c, a.text)),
    type_step: (a) => needCompose(a, (c) => typeStep(c, a.text)),
    clear_inserted: (a) => needCompose(a, (c) => clearInserted(c, a.text)),
    focus_compose: (a) => needCompose(a, (c) => focusCompose(c)),
    compose_state: () => ({ ok: true, data: composeState(obs.conversationId()) }),
    read_compose: () => ({ ok: true, data: obs.reportCompose(true) }),
    navigate,
    show_banner: (a) => { ui.showBanner(a.text, a.level || 'warning'); return { ok: true }; },
    hide_banner: () => { ui.hideBanner(); return { ok: true }; },
    show_toast: (a) => { ui.showToast(a.text, a.level || 'info'); return { ok: true }; },
    show_overlay: (a) => { ui.showOverlay(a.text); return { ok: true }; },
    hide_overlay: () => { ui.hideOverlay(); return { ok: true }; },
    set_status: (a) => { ui.setStatus(a.conversationId, a.mode, a.locked, a.waiting); return { ok: true }; },
    hide_status: () => { ui.hideStatus(); return { ok: true }; },
    show_hint: (a) => { ui.showHint(a.text); return { ok: true }; },
    hide_hint: () => { ui.hideHint(); return { ok: true }; },
    self_test: () => { selfWatch.now(); return { ok: true }; },
    snapshot: () => { obs.snapshot(); return { ok: true }; },
    stats: () => ({ ok: true, data: Object.assign({}, obs.stats, obs.extraStats(), { transport: undefined, postMs: obs.stats.transport.postMs, events: obs.stats.transport.events }) }),
    configure: (a) => {
      if (a.unrecognisedGraceMs) obs.cfg.unrecognisedGraceMs = a.unrecognisedGraceMs;
      if (a.userQuietMs) quietMs = a.userQuietMs;
      if (a.selfTestEveryMs) selfWatch.every(a.selfTestEveryMs);
      obs.scheduleState(0);
      return { ok: true };
    },
  };

  // command is the entry point Go calls through WindowExecJS with one JSON string.
  return function command(text) {
    let cmd;
    if (typeof text !== 'string' || text.length > MAX_COMMAND_CHARS) {
      result('', '', { ok: false, code: 'bad_command', error: 'command must be a JSON string of at most ' + MAX_COMMAND_CHARS + ' characters' });
      return;
    }
    try { cmd = JSON.parse(text); } catch (e) {
      result('', '', { ok: false, code: 'bad_command', error: 'command is not valid JSON' });
      return;
    }
    const problem = validate(cmd);
    const id = cmd && typeof cmd.id === 'string' && ID_RE.test(cmd.id) ? cmd.id : '';
    const type = cmd && typeof cmd.type === 'string' && Object.prototype.hasOwnProperty.call(SCHEMA.commands, cmd.type) ? cmd.type : '';
    if (problem) {
      result(id, type, { ok: false, code: 'bad_command', error: problem });
      return;
    }
    const args = cmd.args || {};
    if (type === 'fetch_image') {
      fetchImage(id, args).then((r) => result(id, type, r), () => result(id, type, { ok: false, code: 'failed', error: 'image fetch failed' }));
      return;
    }
    let r;
    try { r = handlers[type](args); } catch (e) {
      r = { ok: false, code: 'failed', error: 'command failed: ' + String(e && e.message || e).slice(0, 200) };
    }
    result(id, type, r);
  };
}
