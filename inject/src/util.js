// Small helpers shared by the bridge modules. Nothing here touches the page.

// capString cuts s to at most max UTF-16 units without splitting a surrogate pair.
export function capString(s, max) {
  if (typeof s !== 'string') return '';
  if (s.length <= max) return s;
  let cut = s.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return cut;
}

// clean trims and collapses the whitespace of text taken from the page.
export function clean(s, max) {
  return capString(String(s == null ? '' : s).replace(/\s+/g, ' ').trim(), max);
}

// conversationIdFrom reads the conversation id out of a URL or href
// (/conversations/<ID>, ID without / ? #).
export function conversationIdFrom(href) {
  if (typeof href !== 'string') return '';
  const m = href.match(/\/conversations\/([^/?#]+)/);
  if (!m) return '';
  let id = m[1];
  try { id = decodeURIComponent(id); } catch (e) { /* keep raw */ }
  return capString(id, 200);
}

// UI_LABELS matches compose text that is only send-button labels ("SMS", "RCS SMS").
export const UI_LABELS = /^(SMS|RCS)(\s+(SMS|RCS))*$/i;

// isAutomatedName is true for all-digit sender names (short codes, A2P senders).
export function isAutomatedName(name) {
  return /^\d{1,10}$/.test(name);
}
