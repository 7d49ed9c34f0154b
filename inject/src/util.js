// Small helpers shared by the bridge modules. Nothing here changes the page.

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

// within lists the elements inside root (root itself excluded) that match selector, in
// document order: what root.querySelectorAll(selector) finds, found by walking the children
// instead. The bridge never calls an element's querySelectorAll, because WebKitGTK (2.50)
// caches its result per document when the selector is a lone tag or class name ('img',
// 'mws-image-message-part'): the cache holds the elements found, keyed by the element
// searched, and drops an entry only when an element is added or removed under that key
// while it is in the page, when a later query happens to sweep out entries whose key is
// gone, or under memory pressure. A row the page removes is never changed again, so the
// bridge's reads of it kept its parts and <img> alive, the <img> kept the picture in use,
// and WebKit never let go of its decoded pixels (48 MB for a 12 MP photo) until some later
// query swept the cache. The walk leaves nothing behind. The document's own
// querySelectorAll is safe: every element the page adds or removes drops the document's
// entries.
export function within(root, selector) {
  const out = [];
  let el = root.firstElementChild;
  while (el) {
    if (el.matches(selector)) out.push(el);
    if (el.firstElementChild) {
      el = el.firstElementChild;
      continue;
    }
    while (el && el !== root && !el.nextElementSibling) el = el.parentElement;
    if (!el || el === root) break;
    el = el.nextElementSibling;
  }
  return out;
}

// lastWithin is the last element inside root (root excluded), in document order, that matches
// selector and that accept (when given) takes: within read from the end, stopping at the first
// hit, so finding the newest row of a long pane does not walk all of it.
export function lastWithin(root, selector, accept) {
  const deepestLast = (el) => {
    while (el && el.lastElementChild) el = el.lastElementChild;
    return el;
  };
  let el = deepestLast(root.lastElementChild);
  while (el && el !== root) {
    if (el.matches(selector) && (!accept || accept(el))) return el;
    if (el.previousElementSibling) el = deepestLast(el.previousElementSibling);
    else el = el.parentElement;
  }
  return null;
}
