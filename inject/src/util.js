// Small helpers shared by the bridge modules. Nothing here touches the page.

// capString cuts s to at most max Unicode code points, the unit PROTOCOL.md limits are
// written in (and Go counts with utf8.RuneCountInString), so astral-plane characters such
// as emoji count once and a surrogate pair is never split.
export function capString(s, max) {
  if (typeof s !== 'string') return '';
  if (s.length <= max) return s; // never more code points than UTF-16 units
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    if (n === max) return s.slice(0, i);
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return s;
}

// codePoints counts the Unicode code points of s (a lone surrogate counts as one).
export function codePoints(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

// utf8Bytes is the length of s in UTF-8, the unit of Go's event size cap (a lone
// surrogate becomes U+FFFD, three bytes, when Go decodes it).
export function utf8Bytes(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) { n += 4; i++; }
    else n += 3;
  }
  return n;
}

// clean trims and collapses the whitespace of text taken from the page.
export function clean(s, max) {
  return capString(String(s == null ? '' : s).replace(/\s+/g, ' ').trim(), max);
}

// INVISIBLE are the characters a person never sees in a name: bidi isolates and
// embeddings (U+2066-2069, U+202A-202E), direction marks (U+200E, U+200F, U+061C), and the
// zero-width space, word joiner and byte-order mark. Zero-width joiners (U+200D), non-joiners
// (U+200C) and variation selectors stay: emoji sequences and some scripts need them.
const INVISIBLE = /[\u2066-\u2069\u202a-\u202e\u200e\u200f\u061c\u200b\u2060\ufeff]/g;

// cleanName is a name as a person reads it: the invisible characters taken out, no-break
// and other spaces made plain (\s covers U+00A0, U+2007, U+202F and the rest), runs of space
// collapsed. Every name the bridge reads goes through it: senders, reactors, header names,
// participants and sidebar names.
export function cleanName(s, max) {
  return clean(stripInvisible(s), max);
}

// stripInvisible takes the INVISIBLE characters out of s (and nothing else).
export function stripInvisible(s) {
  return String(s == null ? '' : s).replace(INVISIBLE, '');
}

// NOT_CONVERSATIONS are path segments under /conversations/ that name a page of the app,
// not a conversation: /web/conversations/new is the new-chat page.
const NOT_CONVERSATIONS = /^(?:new|archive|archived|spam|blocked|settings|search)$/i;

// conversationIdFrom reads the conversation id out of a URL or href
// (/conversations/<ID>, ID without / ? #). App pages such as /conversations/new give ''.
export function conversationIdFrom(href) {
  if (typeof href !== 'string') return '';
  const m = href.match(/\/conversations\/([^/?#]+)/);
  if (!m) return '';
  let id = m[1];
  try { id = decodeURIComponent(id); } catch (e) { /* keep raw */ }
  if (NOT_CONVERSATIONS.test(id)) return '';
  return capString(id, 200);
}

// UI_LABELS matches compose text that is only send-button labels ("SMS", "RCS SMS").
export const UI_LABELS = /^(SMS|RCS)(\s+(SMS|RCS))*$/i;

// isAutomatedName is true for all-digit sender names (short codes, A2P senders).
export function isAutomatedName(name) {
  return /^\d{1,10}$/.test(name);
}
