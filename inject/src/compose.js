// The compose box: reading its state and the text actions Go asks for. Text goes in with
// document.execCommand('insertText'), which produces the trusted beforeinput/input events
// the page expects from a real user. The final Enter is not sent from here: the page
// ignores script-made key presses, so the desktop shell delivers it as native input.

import { S } from './selectors.js';
import { UI_LABELS } from './util.js';

// Clanker's own inserted text, remembered so it is never mistaken for the user's draft
// and so clear_inserted removes exactly it.
let inserted = null; // { el, text }

// findCompose locates the compose box: the textarea (real page) or a contenteditable.
export function findCompose() {
  const box = document.querySelector(S.inputBox);
  if (box) {
    if (box instanceof HTMLTextAreaElement || box instanceof HTMLInputElement) return { el: box, kind: 'textarea' };
    if (box.isContentEditable) return { el: box, kind: 'contenteditable' };
    const ce = box.querySelector('[contenteditable="true"],[contenteditable=""],[contenteditable="plaintext-only"]');
    if (ce) return { el: ce, kind: 'contenteditable' };
  }
  const wrap = document.querySelector(S.inputWrapper);
  if (wrap) {
    const ta = wrap.querySelector('textarea');
    if (ta) return { el: ta, kind: 'textarea' };
    const ce = wrap.isContentEditable ? wrap : wrap.querySelector('[contenteditable="true"],[contenteditable=""],[contenteditable="plaintext-only"]');
    if (ce) return { el: ce, kind: 'contenteditable' };
  }
  return null;
}

// textOf reads the box's text: .value for a textarea, text content for a contenteditable
// (non-breaking spaces that editing inserts read as spaces).
export function textOf(c) {
  if (c.kind === 'textarea') return c.el.value || '';
  return (c.el.innerText !== undefined && c.el.isConnected ? c.el.innerText : c.el.textContent || '').replace(/\u00a0/g, ' ').replace(/\n$/, '');
}

function clankerText(c, text) {
  return !!inserted && inserted.el === c.el && text === inserted.text;
}

// userText is true when the box holds text that is neither empty, nor only send-button
// labels, nor exactly what Clanker inserted.
export function userText(c) {
  const t = textOf(c);
  const trimmed = t.trim();
  if (!trimmed || UI_LABELS.test(trimmed)) return false;
  return !clankerText(c, t);
}

export function composeState(conversationId) {
  const c = findCompose();
  if (!c) return { conversationId, present: false, kind: 'none', hasUserText: false, hasClankerText: false, focused: false };
  const t = textOf(c);
  return {
    conversationId,
    present: true,
    kind: c.kind,
    hasUserText: userText(c),
    hasClankerText: clankerText(c, t) && t !== '',
    focused: document.activeElement === c.el || c.el.contains(document.activeElement),
  };
}

function fail(code, error) { return { ok: false, code, error }; }

function selectAll(c) {
  c.el.focus();
  if (c.kind === 'textarea') {
    c.el.select();
  } else {
    const r = document.createRange();
    r.selectNodeContents(c.el);
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(r);
  }
}

function caretToEnd(c) {
  c.el.focus();
  if (c.kind === 'textarea') {
    const n = c.el.value.length;
    c.el.setSelectionRange(n, n);
  } else {
    const r = document.createRange();
    r.selectNodeContents(c.el);
    r.collapse(false);
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(r);
  }
}

// selectRange selects characters [start, end) of the box's text.
function selectRange(c, start, end) {
  c.el.focus();
  if (c.kind === 'textarea') {
    c.el.setSelectionRange(start, end);
    return true;
  }
  const walker = document.createTreeWalker(c.el, NodeFilter.SHOW_TEXT);
  let pos = 0;
  let sNode = null, sOff = 0, eNode = null, eOff = 0;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const len = n.data.length;
    if (!sNode && start <= pos + len) { sNode = n; sOff = start - pos; }
    if (sNode && end <= pos + len) { eNode = n; eOff = end - pos; break; }
    pos += len;
  }
  if (!sNode || !eNode) return false;
  const r = document.createRange();
  r.setStart(sNode, sOff);
  r.setEnd(eNode, eOff);
  const sel = window.getSelection();
  sel.removeAllRanges();
  sel.addRange(r);
  return true;
}

// ownEdit is true while one of Clanker's own edits runs. The page fires input events
// synchronously inside execCommand, before `inserted` is updated; the observer must not
// report that half-done state as the user's text, or Go would stop typing for nothing.
let ownEdit = false;

export function ownEditInProgress() { return ownEdit; }

function ownExec(command, text) {
  ownEdit = true;
  try { return document.execCommand(command, false, text); } catch (e) { return false; } finally { ownEdit = false; }
}

function execInsert(text) { return ownExec('insertText', text); }

// lastUserInput is when the user last used the page with trusted input: a key (other than
// Enter, the key the shell presses to send Clanker's own reply), a pointer press, or an edit
// of the page that was not one of Clanker's. Script-made events are not the user's.
let lastUserInput = -Infinity;

export function watchUserInput() {
  const note = (ev) => { if (ev.isTrusted) lastUserInput = performance.now(); };
  document.addEventListener('keydown', (ev) => { if (ev.key !== 'Enter') note(ev); }, true);
  document.addEventListener('pointerdown', note, true);
  document.addEventListener('input', (ev) => { if (!ownEdit) note(ev); }, true);
}

// userActiveWithin reports whether the user used the page in the last ms milliseconds.
export function userActiveWithin(ms) { return performance.now() - lastUserInput < ms; }

// caretOf returns the selection in the box as text offsets [start, end], or null when the
// box does not hold the focus (then there is no caret of the user's to keep).
function caretOf(c) {
  const active = document.activeElement === c.el || c.el.contains(document.activeElement);
  if (!active) return null;
  if (c.kind === 'textarea') return [c.el.selectionStart, c.el.selectionEnd];
  const sel = window.getSelection();
  if (!sel || sel.rangeCount === 0) return null;
  const r = sel.getRangeAt(0);
  if (!c.el.contains(r.startContainer) || !c.el.contains(r.endContainer)) return null;
  const off = (node, o) => {
    const pre = document.createRange();
    pre.selectNodeContents(c.el);
    pre.setEnd(node, o);
    return pre.toString().length;
  };
  return [off(r.startContainer, r.startOffset), off(r.endContainer, r.endOffset)];
}

// insertText replaces an empty (or Clanker-filled) box with text.
export function insertText(c, text) {
  if (userText(c)) return fail('user_typing', 'the compose box holds the user\'s text; nothing was changed');
  selectAll(c);
  const accepted = execInsert(text);
  const now = textOf(c);
  if (!accepted || now !== text) {
    // Whatever landed is Clanker's, so clear_inserted can still take it out.
    inserted = now ? { el: c.el, text: now } : null;
    return fail('insert_failed', 'the page did not accept the inserted text');
  }
  inserted = { el: c.el, text };
  return { ok: true, data: { length: text.length } };
}

// typeStep appends one step, but only if the box still holds exactly what Clanker typed.
export function typeStep(c, step) {
  const now = textOf(c);
  const expected = inserted && inserted.el === c.el ? inserted.text : '';
  const empty = now.trim() === '' || UI_LABELS.test(now.trim());
  if (expected === '' && !empty) return fail('user_typing', 'the compose box holds the user\'s text; nothing was typed');
  if (expected !== '' && now !== expected) {
    return fail(userText(c) ? 'user_typing' : 'compose_changed', 'the compose box changed since Clanker typed into it; nothing was typed');
  }
  if (expected === '') selectAll(c); else caretToEnd(c);
  const want = expected + step;
  if (!execInsert(step) || textOf(c) !== want) {
    inserted = { el: c.el, text: textOf(c) };
    return fail('insert_failed', 'the page did not accept the typed text');
  }
  inserted = { el: c.el, text: want };
  return { ok: true, data: { length: want.length } };
}

// clearInserted removes exactly the text Clanker inserted and nothing else. Go may name the
// text (named): then, when this page load holds no record of it in this box (the page was
// loaded again, or the box is another element since the user switched conversations and came
// back), the named text is removed if the box starts with it, which is where Clanker's typing
// always begins (it only types into an empty box). Without a name and without a record there
// is nothing to remove.
export function clearInserted(c, named) {
  const mine = !!inserted && !!c && inserted.el === c.el && inserted.text !== '';
  if (!mine && c && typeof named === 'string' && named !== '') {
    inserted = null;
    if (!textOf(c).startsWith(named)) {
      return fail('not_found', 'Clanker\'s text is not in the compose box; nothing was removed');
    }
    inserted = { el: c.el, text: named };
    return removeText(c, 0);
  }
  if (!mine) {
    inserted = null;
    return { ok: true, data: { removed: 0 } };
  }
  const now = textOf(c);
  const idx = now.lastIndexOf(inserted.text);
  if (idx < 0) {
    inserted = null;
    return fail('not_found', 'Clanker\'s text is no longer in the compose box; nothing was removed');
  }
  return removeText(c, idx);
}

// removeText deletes the recorded text (inserted.text), which starts at idx in the box.
function removeText(c, idx) {
  const now = textOf(c);
  const n = inserted.text.length;
  const want = now.slice(0, idx) + now.slice(idx + n);
  // The user may be typing right now (that is usually why Clanker's text goes): their caret
  // is put back where it was relative to their own text, so the next key they press lands
  // where they expect and their characters stay exactly as typed.
  const caret = caretOf(c);
  if (!selectRange(c, idx, idx + n)) return fail('clear_failed', 'could not select Clanker\'s text');
  ownExec('delete');
  if (textOf(c) !== want) return fail('clear_failed', 'the page did not remove the text');
  inserted = null;
  if (caret) {
    const shift = (p) => (p <= idx ? p : Math.max(idx, p - n));
    selectRange(c, shift(caret[0]), shift(caret[1]));
  }
  return { ok: true, data: { removed: n } };
}

// focusCompose readies the box for the native Enter. It refuses when the user typed into
// the box since Clanker's text went in: the Enter would send their text with Clanker's.
export function focusCompose(c) {
  if (userText(c)) return fail('user_typing', 'the compose box holds the user\'s text besides Clanker\'s; Enter was not pressed');
  c.el.focus();
  return { ok: true, data: { focused: document.activeElement === c.el || c.el.contains(document.activeElement) } };
}
