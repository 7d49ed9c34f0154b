// Parsing of message rows, the conversation header and sidebar items. Pure reads of the
// DOM: no observers, no side effects. Every function copes with missing or odd pieces and
// returns what it could read instead of dropping the row.

import { S } from './selectors.js';
import { capString, clean, cleanName, codePoints, conversationIdFrom, isAutomatedName, stripInvisible, within } from './util.js';

const MAX_TEXT = 4000;
const MAX_NAME = 200;

// "<SENDER> said: <TEXT>. <Sent|Received> <when>. <tail>" with the text taken greedily so
// a text that itself contains ". Received on ..." is not cut short: the real timestamp is
// the last such sentence.
const RE_SAID = /^([\s\S]+?)\s+said:\s*([\s\S]*)\.\s*(Sent|Received)\b\s*([^.]*)\.?\s*([\s\S]*)$/i;
const RE_SAID_ONLY = /^([\s\S]+?)\s+said:\s*([\s\S]*?)\.?\s*$/i;
// "<SENDER> sent an image." and its kin for other attachments ("sent a video", "sent a
// file", "sent 2 photos"), optionally followed by the direction, time and tail.
const RE_SENT = /^([\s\S]+?)\s+sent\s+(?:an?\s+|\d+\s+)?([^.]{1,60}?)\.\s*(?:(Sent|Received)\b\s*([^.]*)\.)?\s*([\s\S]*)$/i;
const RE_BARE = /^(Sent|Received)\b\s*([^.]*)\.?\s*([\s\S]*)$/i;
const RE_REACTED = /\breacted with\s+/gi;

// Status sentences of a label ("SMS.", "Read.") that are never part of a person's name.
const STATUS_WORD = /^(?:sms|mms|rcs|read|sent|seen|sending|delivered|failed|edited)$/i;
// A word that a period may end inside a person's name: an initial ("J") or a short title
// or suffix ("Dr", "Mrs", "Jr", "St"). "Dr. Alice Chen" is one name, not two sentences.
const NAME_ABBREV = /^(?:[A-Z]|[A-Z][a-z]{1,3})$/;

// sentences splits label text at periods followed by white space, except after a word
// that abbreviates part of a name, so "Read. Dr. Alice Chen" is ["Read", "Dr. Alice Chen"].
// A period at the very end is dropped unless keepEnd (a reactor list ends right before
// "reacted with", so a final period there belongs to a name: "Bob Jr.").
function sentences(s, keepEnd) {
  const out = [];
  for (const raw of s.trim().split(/\.\s+/)) {
    const part = raw.trim();
    const prev = out.length ? out[out.length - 1] : null;
    const w = prev === null ? '' : (prev.match(/(\S+)$/) || ['', ''])[1];
    if (prev !== null && NAME_ABBREV.test(w) && !STATUS_WORD.test(w)) out[out.length - 1] = prev + '. ' + part;
    else out.push(part);
  }
  if (!keepEnd && out.length) out[out.length - 1] = out[out.length - 1].replace(/\.$/, '');
  return out.filter(Boolean);
}

// splitReactors reads the reactor list of one reaction sentence. The page writes "A",
// "A and B" or "A, B and C" (an Oxford comma is accepted too), so a list without "and"
// is one person whose name may contain commas. In a longer list, neighbours are joined
// back when together they form a name seen in this conversation ("Doe, Jane"), since a
// comma or "and" inside a name cannot be told from a separator otherwise.
function splitReactors(list, names) {
  const s = list.replace(/\s+/g, ' ').trim();
  if (!/ and /.test(s)) return s ? [s] : [];
  const toks = s.split(/( ?, ?and | ?, ?| and )/);
  const out = [];
  for (let i = 0; i < toks.length; i += 2) {
    let best = toks[i];
    let end = i;
    if (names && names.size) {
      for (let j = i + 2; j < toks.length; j += 2) {
        const cand = toks.slice(i, j + 1).join('').trim();
        if (names.has(cand)) { best = cand; end = j; }
      }
    }
    // "Ann and 2 others" names two people but only one of them.
    if (best.trim() && !/^\d+ (?:others?|more)$/i.test(best.trim())) out.push(best.trim());
    i = end;
  }
  return out;
}

// parseTail splits what follows the timestamp into status words and reactions by the
// reaction grammar ("<list> reacted with <kind>."), not by sentence breaks: a reactor's
// name may contain periods and commas.
function parseTail(text, out, names) {
  // The tail holds names and status words only: the marks a right-to-left name carries
  // would hide where a name's abbreviations end ("\u2068Dr. Alice Chen\u2069").
  const tail = stripInvisible(text);
  const addStatus = (s) => { if (out.status.length < 10) out.status.push(clean(s, 100)); };
  let pos = 0;
  RE_REACTED.lastIndex = 0;
  for (let m = RE_REACTED.exec(tail); m; m = RE_REACTED.exec(tail)) {
    const before = sentences(tail.slice(pos, m.index), true);
    const list = before.pop() || '';
    before.forEach(addStatus);
    const rest = tail.slice(m.index + m[0].length);
    const stop = rest.search(/\.(?:\s|$)/);
    const kind = stop < 0 ? rest : rest.slice(0, stop);
    pos = m.index + m[0].length + (stop < 0 ? rest.length : stop + 1);
    RE_REACTED.lastIndex = pos;
    // Names are compared and reported as a person reads them (no bidi marks).
    const by = splitReactors(cleanName(list, 4000), names).map((n) => cleanName(n, MAX_NAME)).filter(Boolean).slice(0, 50);
    if (clean(kind, 100) && out.reactions.length < 20) out.reactions.push({ reaction: clean(kind, 100), by });
  }
  sentences(tail.slice(pos)).forEach(addStatus);
}

// timestampKind tells a full "on <date> at <time>" from a time-only or odd stamp.
function setWhen(when, out) {
  const w = when.trim();
  out.timestamp = cleanName(w.replace(/^on\s+/i, ''), 200); // direction marks never help a date
  out.labelKind = /^on\s+\S/i.test(w) ? 'full' : 'time_only';
  out.at = timeOf(out.timestamp);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
// "February 3, 2026 at 6:41 PM" and "3 February 2026 at 18:41" (the comma, "at" and the
// period after a short month name are optional).
const RE_MDY = /^([A-Za-z]{3,})\.?\s+(\d{1,2}),?\s+(\d{4}),?\s+(?:at\s+)?(\d{1,2})[:.](\d{2})\s*([AaPp]\.?[Mm]\.?)?$/;
const RE_DMY = /^(\d{1,2})\s+([A-Za-z]{3,})\.?,?\s+(\d{4}),?\s+(?:at\s+)?(\d{1,2})[:.](\d{2})\s*([AaPp]\.?[Mm]\.?)?$/;

// timeOf reads a label's date and time as milliseconds since the epoch, in the page's own
// time zone (the one the page wrote it in), or 0 when the stamp has no date (time-only
// labels) or cannot be read. Labels say the minute, so times compare to the minute.
export function timeOf(stamp) {
  let m = stamp.match(RE_MDY);
  let mon;
  let day;
  if (m) { mon = m[1]; day = m[2]; } else {
    m = stamp.match(RE_DMY);
    if (!m) return 0;
    mon = m[2]; day = m[1];
  }
  const mi = MONTHS.indexOf(mon.slice(0, 3).toLowerCase());
  if (mi < 0) return 0;
  let h = +m[4];
  const pm = m[6] && /^p/i.test(m[6]);
  if (m[6]) {
    if (h < 1 || h > 12) return 0;
    h = (h % 12) + (pm ? 12 : 0);
  } else if (h > 23) return 0;
  const t = new Date(+m[3], mi, +day, h, +m[5]).getTime();
  return Number.isFinite(t) && t > 0 ? t : 0;
}

// parseTextLabel reads a text part's aria-label into out (sender, direction, text,
// timestamp, status, reactions, labelKind). names (a Set, optional) are the sender names
// seen in the conversation, used to keep a comma or "and" inside a reactor's name.
export function parseTextLabel(label, out, names) {
  let m = label.match(RE_SAID);
  if (m) {
    out.sender = cleanName(m[1], MAX_NAME);
    out.text = m[2].trim();
    out.direction = m[3].toLowerCase() === 'sent' ? 'out' : 'in';
    setWhen(m[4], out);
    parseTail(m[5], out, names);
    return true;
  }
  m = label.match(RE_SAID_ONLY);
  if (m) {
    out.sender = cleanName(m[1], MAX_NAME);
    out.text = m[2].trim();
    out.labelKind = 'partial';
    return true;
  }
  m = label.match(RE_BARE);
  if (m) {
    out.direction = m[1].toLowerCase() === 'sent' ? 'out' : 'in';
    setWhen(m[2], out);
    out.labelKind = 'partial';
    parseTail(m[3], out, names);
  }
  return false;
}

// parseSentLabel reads an image or attachment label ("Dad sent an image. Received on
// ...", "Dad sent a video. ..."). It returns false when the label is not of that form.
function parseSentLabel(label, out, names) {
  const m = label.match(RE_SENT);
  if (!m) {
    const b = label.match(RE_BARE);
    if (!b) return false;
    out.direction = b[1].toLowerCase() === 'sent' ? 'out' : 'in';
    setWhen(b[2], out);
    out.labelKind = 'partial';
    parseTail(b[3], out, names);
    return true;
  }
  out.sender = cleanName(m[1], MAX_NAME);
  if (m[3]) {
    out.direction = m[3].toLowerCase() === 'sent' ? 'out' : 'in';
    setWhen(m[4], out);
  } else {
    out.labelKind = 'partial';
  }
  parseTail(m[5], out, names);
  return true;
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
  for (const p of within(core, S.textPart)) {
    if (inQuote(p, core)) { if (!quoted) quoted = p; } else if (!own) own = p;
  }
  for (const p of within(core, S.imagePart)) {
    if (!inQuote(p, core)) images.push(p);
  }
  return { own, quoted, images };
}

// rowWrapper is the element around core that the page draws as one message (the
// message wrapper), or core itself when there is none.
function rowWrapper(core) {
  const w = core.parentElement && core.parentElement.closest(S.messageWrapper + ',' + S.messageWrapperTag);
  return w && !w.matches(S.messageCore) ? w : core;
}

// attachmentLabel finds the label of a row that has neither a text nor an image part
// (video, file, other attachments): the first aria-label on the core, its wrapper or
// anything inside the core (outside a quote) that the label grammar understands.
function attachmentLabel(core, names) {
  const cands = [core];
  const w = rowWrapper(core);
  if (w !== core) cands.push(w);
  for (const el of within(core, '[aria-label]')) if (!inQuote(el, core)) cands.push(el);
  for (const el of cands) {
    const label = el.getAttribute('aria-label');
    if (!label) continue;
    const out = { sender: '', text: '', direction: 'unknown', timestamp: '', labelKind: 'none', status: [], reactions: [] };
    const parse = /\ssaid:/i.test(label) ? parseTextLabel : parseSentLabel;
    if (parse(label, out, names) || out.labelKind !== 'none') return out;
  }
  return null;
}

// shownSender is the sender name the page draws beside a row (groups show it above
// incoming bubbles): inside the core, else inside its wrapper but not in another row.
function shownSender(core) {
  const w = rowWrapper(core);
  for (const c of within(w, S.senderName)) {
    const owner = c.closest(S.messageCore);
    if ((owner === core || (!owner && w !== core)) && !inQuote(c, core)) {
      const name = cleanName(c.textContent, MAX_NAME);
      if (name) return name;
    }
  }
  return '';
}

// isReady is true once the row's label has been filled in (Google fills aria-labels
// asynchronously after inserting the row).
export function isReady(core) {
  const p = parts(core);
  if (p.own) return !!p.own.getAttribute('aria-label');
  if (p.images.length) return !!p.images[0].getAttribute('aria-label');
  return !!attachmentLabel(core, null);
}

function visibleText(part) {
  return (part.textContent || '').trim();
}

// parseCore turns one message core element into the protocol's Message object. names
// (optional Set) are sender names seen in the conversation (see parseTextLabel).
export function parseCore(core, names) {
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
    at: 0,
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
    if (label && parseTextLabel(label, out, names)) {
      text = out.text;
      // The grammar eats one trailing period; the visible text says whether it was there.
      if (vis && (vis === text + '.' || vis.replace(/\s+/g, ' ') === text.replace(/\s+/g, ' ') + '.')) text = vis;
    } else {
      text = vis;
    }
  }
  if (p.images.length) {
    const label = p.images[0].getAttribute('aria-label') || '';
    if (!p.own && label) parseSentLabel(label, out, names);
    for (const part of p.images) {
      for (const img of within(part, 'img')) {
        if (out.images.length >= 10) break;
        // An image whose src has not been set yet is not reported: there is nothing to
        // fetch. The row is reported again (message_update) once the src arrives.
        if (!img.getAttribute('src')) continue;
        out.images.push({ src: capString(img.src || img.getAttribute('src') || '', 2048), alt: capString(img.getAttribute('alt') || '', 1000) });
      }
    }
  }
  if (!p.own && !p.images.length) {
    out.unsupported = true;
    const a = attachmentLabel(core, names);
    if (a) {
      out.sender = a.sender;
      out.direction = a.direction;
      out.timestamp = a.timestamp;
      out.at = a.at || 0;
      out.labelKind = a.labelKind;
      out.status = a.status;
      out.reactions = a.reactions;
    }
  }
  if (p.quoted) {
    const q = { sender: '', text: '', direction: 'unknown', timestamp: '', labelKind: 'none', status: [], reactions: [] };
    const label = p.quoted.getAttribute('aria-label') || '';
    if (!(label && parseTextLabel(label, q, names))) q.text = visibleText(p.quoted);
    out.quote = { sender: q.sender, text: capString(q.text, MAX_TEXT) };
  }
  if (out.direction === 'unknown') {
    const attr = core.getAttribute(S.outgoingAttr);
    if (attr === 'true') out.direction = 'out';
    else if (attr === 'false') out.direction = 'in';
    else if (out.sender === 'You') out.direction = 'out';
  }
  // Groups draw the sender's name beside incoming rows; use it when the label did not
  // name one (attachments, labels without a sender).
  if (!out.sender && out.direction !== 'out') out.sender = shownSender(core);
  out.textTruncated = codePoints(text) > MAX_TEXT;
  out.text = capString(text, MAX_TEXT);
  const clanker = out.text.startsWith('[clanker]');
  // Whose [clanker] text it is needs the label: without a sender or direction neither
  // flag is set, so an unlabelled row of our own never looks like another Clanker's.
  out.ownClanker = clanker && (out.sender === 'You' || out.direction === 'out');
  out.otherClanker = clanker && !out.ownClanker && out.sender !== '';
  return out;
}

// headerNames reads the participant names from the header of root (the conversation pane
// on screen), or of the document when the pane holds none; a header inside a hidden part
// of the page (a lingering old pane) is never read.
export function headerNames(root) {
  let h = null;
  for (const sel of root && root !== document ? [root, document] : [document]) {
    for (const el of sel === document ? document.querySelectorAll(S.headerTitle) : within(sel, S.headerTitle)) {
      if (!el.closest(S.hidden)) { h = el; break; }
    }
    if (h) break;
  }
  if (!h) return [];
  let names = within(h, 'h2').map((e) => cleanName(e.textContent, MAX_NAME));
  if (!names.length) names = (h.textContent || '').split(',').map((n) => cleanName(n, MAX_NAME));
  return names.filter((n) => n && n !== 'You').slice(0, 50);
}

// parseSidebarItem reads one sidebar anchor.
export function parseSidebarItem(a) {
  const id = conversationIdFrom(a.getAttribute('href') || '');
  if (!id) return null;
  const nameEl = a.querySelector(S.sidebarName);
  const snipEl = a.querySelector(S.sidebarSnippet);
  const name = cleanName(nameEl ? nameEl.textContent : '', MAX_NAME);
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
