// Parsing of message rows, the conversation header and sidebar items. Pure reads of the
// DOM: no observers, no side effects. Every function copes with missing or odd pieces and
// returns what it could read instead of dropping the row.

import { S } from './selectors.js';
import { capString, clean, conversationIdFrom, isAutomatedName } from './util.js';

const MAX_TEXT = 4000;
const MAX_NAME = 200;

// "<SENDER> said: <TEXT>. <Sent|Received> <when>. <tail>" with the text taken greedily so
// a text that itself contains ". Received on ..." is not cut short: the real timestamp is
// the last such sentence.
const RE_SAID = /^([\s\S]+?)\s+said:\s*([\s\S]*)\.\s*(Sent|Received)\b\s*([^.]*)\.?\s*([\s\S]*)$/i;
const RE_SAID_ONLY = /^([\s\S]+?)\s+said:\s*([\s\S]*?)\.?\s*$/i;
const RE_IMAGE = /^([\s\S]+?)\s+sent an? (?:image|photo|picture|GIF|sticker)\.?\s*(?:(Sent|Received)\b\s*([^.]*)\.)?\s*([\s\S]*)$/i;
const RE_BARE = /^(Sent|Received)\b\s*([^.]*)\.?\s*([\s\S]*)$/i;
const RE_REACTION = /^([\s\S]+?)\s+reacted with\s+(.+)$/i;

// parseTail splits what follows the timestamp into status words and reactions.
function parseTail(tail, out) {
  for (const raw of tail.split(/\.\s*/)) {
    const s = raw.trim();
    if (!s) continue;
    const m = s.match(RE_REACTION);
    if (m) {
      if (out.reactions.length < 20) {
        const by = m[1].split(/\s*,\s*|\s+and\s+/).map((n) => clean(n, MAX_NAME)).filter(Boolean).slice(0, 50);
        out.reactions.push({ reaction: clean(m[2], 100), by });
      }
    } else if (out.status.length < 10) {
      out.status.push(clean(s, 100));
    }
  }
}

// timestampKind tells a full "on <date> at <time>" from a time-only or odd stamp.
function setWhen(when, out) {
  const w = when.trim();
  out.timestamp = clean(w.replace(/^on\s+/i, ''), 200);
  out.labelKind = /^on\s+\S/i.test(w) ? 'full' : 'time_only';
}

// parseTextLabel reads a text part's aria-label into out (sender, direction, text,
// timestamp, status, reactions, labelKind).
export function parseTextLabel(label, out) {
  let m = label.match(RE_SAID);
  if (m) {
    out.sender = clean(m[1], MAX_NAME);
    out.text = m[2].trim();
    out.direction = m[3].toLowerCase() === 'sent' ? 'out' : 'in';
    setWhen(m[4], out);
    parseTail(m[5], out);
    return true;
  }
  m = label.match(RE_SAID_ONLY);
  if (m) {
    out.sender = clean(m[1], MAX_NAME);
    out.text = m[2].trim();
    out.labelKind = 'partial';
    return true;
  }
  m = label.match(RE_BARE);
  if (m) {
    out.direction = m[1].toLowerCase() === 'sent' ? 'out' : 'in';
    setWhen(m[2], out);
    out.labelKind = 'partial';
    parseTail(m[3], out);
  }
  return false;
}

function parseImageLabel(label, out) {
  const m = label.match(RE_IMAGE);
  if (!m) {
    const b = label.match(RE_BARE);
    if (b) {
      out.direction = b[1].toLowerCase() === 'sent' ? 'out' : 'in';
      setWhen(b[2], out);
      out.labelKind = 'partial';
    }
    return;
  }
  out.sender = clean(m[1], MAX_NAME);
  if (m[2]) {
    out.direction = m[2].toLowerCase() === 'sent' ? 'out' : 'in';
    setWhen(m[3], out);
  } else {
    out.labelKind = 'partial';
  }
  parseTail(m[4], out);
}

function inQuote(el, core) {
  const q = el.closest(S.quoteContainer);
  return !!q && core.contains(q);
}

// parts finds the reply's own text part, the quoted parent's text part and the image
// parts that are not part of a quote.
function parts(core) {
  let own = null;
  let quoted = null;
  const images = [];
  for (const p of core.querySelectorAll(S.textPart)) {
    if (inQuote(p, core)) { if (!quoted) quoted = p; } else if (!own) own = p;
  }
  for (const p of core.querySelectorAll(S.imagePart)) {
    if (!inQuote(p, core)) images.push(p);
  }
  return { own, quoted, images };
}

// isReady is true once the row's label has been filled in (Google fills aria-labels
// asynchronously after inserting the row).
export function isReady(core) {
  const p = parts(core);
  if (p.own) return !!p.own.getAttribute('aria-label');
  if (p.images.length) return !!p.images[0].getAttribute('aria-label');
  return false;
}

function visibleText(part) {
  return (part.textContent || '').trim();
}

// parseCore turns one message core element into the protocol's Message object.
export function parseCore(core) {
  const out = {
    id: capString(core.getAttribute(S.messageIdAttr) || '', 200),
    sender: '',
    direction: 'unknown',
    text: '',
    textTruncated: false,
    images: [],
    reactions: [],
    status: [],
    quote: null,
    timestamp: '',
    labelKind: 'none',
    ownClanker: false,
    otherClanker: false,
    unsupported: false,
  };
  const p = parts(core);
  let text = '';
  if (p.own) {
    const label = p.own.getAttribute('aria-label') || '';
    const vis = visibleText(p.own);
    if (label && parseTextLabel(label, out)) {
      text = out.text;
      // The grammar eats one trailing period; the visible text says whether it was there.
      if (vis && (vis === text + '.' || vis.replace(/\s+/g, ' ') === text.replace(/\s+/g, ' ') + '.')) text = vis;
    } else {
      text = vis;
    }
  }
  if (p.images.length) {
    const label = p.images[0].getAttribute('aria-label') || '';
    if (!p.own && label) parseImageLabel(label, out);
    for (const part of p.images) {
      for (const img of part.querySelectorAll('img')) {
        if (out.images.length >= 10) break;
        out.images.push({ src: capString(img.src || img.getAttribute('src') || '', 2048), alt: capString(img.getAttribute('alt') || '', 1000) });
      }
    }
  }
  if (!p.own && !p.images.length) out.unsupported = true;
  if (p.quoted) {
    const q = { sender: '', text: '', direction: 'unknown', timestamp: '', labelKind: 'none', status: [], reactions: [] };
    const label = p.quoted.getAttribute('aria-label') || '';
    if (!(label && parseTextLabel(label, q))) q.text = visibleText(p.quoted);
    out.quote = { sender: q.sender, text: capString(q.text, MAX_TEXT) };
  }
  if (out.direction === 'unknown') {
    const attr = core.getAttribute(S.outgoingAttr);
    if (attr === 'true') out.direction = 'out';
    else if (attr === 'false') out.direction = 'in';
    else if (out.sender === 'You') out.direction = 'out';
  }
  out.textTruncated = text.length > MAX_TEXT;
  out.text = capString(text, MAX_TEXT);
  const clanker = out.text.startsWith('[clanker]');
  out.ownClanker = clanker && out.sender === 'You';
  out.otherClanker = clanker && out.sender !== 'You' && out.direction !== 'out';
  return out;
}

// headerNames reads the foreground conversation's participant names from the header.
export function headerNames() {
  const h = document.querySelector(S.headerTitle);
  if (!h) return [];
  let names = Array.from(h.querySelectorAll('h2')).map((e) => clean(e.textContent, MAX_NAME));
  if (!names.length) names = (h.textContent || '').split(',').map((n) => clean(n, MAX_NAME));
  return names.filter((n) => n && n !== 'You').slice(0, 50);
}

// parseSidebarItem reads one sidebar anchor.
export function parseSidebarItem(a) {
  const id = conversationIdFrom(a.getAttribute('href') || '');
  if (!id) return null;
  const nameEl = a.querySelector(S.sidebarName);
  const snipEl = a.querySelector(S.sidebarSnippet);
  const name = clean(nameEl ? nameEl.textContent : '', MAX_NAME);
  const snippet = capString((snipEl ? snipEl.textContent : '').trim(), MAX_TEXT);
  return {
    id,
    name,
    snippet,
    outgoing: snippet.startsWith('You:'),
    unread: a.getAttribute('data-e2e-is-unread') === 'true',
    selected: a.getAttribute('aria-selected') === 'true',
    pinned: a.getAttribute('data-e2e-is-pinned') === 'true',
    muted: a.getAttribute('data-e2e-is-muted') === 'true',
    automated: isAutomatedName(name),
  };
}
