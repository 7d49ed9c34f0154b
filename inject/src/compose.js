// The compose box: reading its state and the text actions Go asks for. Text goes in with
// document.execCommand('insertText'), which produces the trusted beforeinput/input events
// the page expects from a real user. The final Enter is not sent from here: the page
// ignores script-made key presses, so the desktop shell delivers it as native input.

import { S } from './selectors.js';
import { UI_LABELS } from './util.js';

// What Clanker put into the box, remembered so it is never mistaken for the user's draft
// and so clear_inserted removes exactly it, even after the user typed into it:
//   el    the box element it went into;
//   typed Clanker's text as it typed it (the box holds exactly this while the user has not
//         touched it, and typing goes on only then);
//   text  the box's text when last seen, and
//   mask  one flag per UTF-16 unit of text: true where the unit is one Clanker inserted.
// Every change of the box that was not Clanker's (the user's keys, a paste, the page's own
// script) is followed: the edited range is found from where the selection was before the
// edit and what the text is after it, Clanker's units inside that range are gone, and the
// units put there are not Clanker's. So at any moment the record says which characters of
// the box are Clanker's, wherever the user's characters went.
let mine = null; // { el, typed, text, mask }

function record(c, typed, text) {
  mine = { el: c.el, typed, text, mask: new Array(text.length).fill(true) };
}

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
  return !!mine && mine.el === c.el && text === mine.typed;
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
// synchronously inside execCommand, before `mine` is updated; the observer must not
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
    if (now) record(c, now, now); else mine = null;
    return fail('insert_failed', 'the page did not accept the inserted text');
  }
  record(c, text, text);
  return { ok: true, data: { length: text.length } };
}

// typeStep appends one step, but only if the box still holds exactly what Clanker typed.
export function typeStep(c, step) {
  const now = textOf(c);
  const expected = mine && mine.el === c.el ? mine.typed : '';
  const empty = now.trim() === '' || UI_LABELS.test(now.trim());
  if (expected === '' && !empty) return fail('user_typing', 'the compose box holds the user\'s text; nothing was typed');
  if (expected !== '' && now !== expected) {
    return fail(userText(c) ? 'user_typing' : 'compose_changed', 'the compose box changed since Clanker typed into it; nothing was typed');
  }
  if (expected === '') selectAll(c); else caretToEnd(c);
  const want = expected + step;
  // The box holds exactly Clanker's text (or nothing), so all of it is Clanker's again,
  // even characters the user deleted and typed back the same.
  if (!execInsert(step) || textOf(c) !== want) {
    const got = textOf(c);
    record(c, got, got);
    return fail('insert_failed', 'the page did not accept the typed text');
  }
  record(c, want, want);
  return { ok: true, data: { length: want.length } };
}

// clearInserted takes Clanker's text out of the box and leaves exactly the user's
// characters, in their order, with the user's caret where it was among them. data.how says
// what it did, so Go can tell the user:
//   whole        Clanker's text was in one piece and was deleted;
//   by_position  the user had typed into or around it: exactly the characters Clanker
//                inserted were deleted, found by position (see mine);
//   restored     which characters are Clanker's was not known by position (no record of
//                this box: the page was loaded again, or the box is another element since
//                a switch), or the page did not take the deletions: the box was set to the
//                user's characters alone;
//   nothing      nothing of Clanker's was in the box.
// Go may name the text (named). Without a record of this box, the named text is Clanker's
// only where it can be: at the start of the box, where Clanker's typing always begins (it
// only types into an empty box); or, when it carries Clanker's "[clanker]" mark, anywhere
// in the box, in one piece or with the user's characters typed in between.
export function clearInserted(c, named) {
  track(c);
  if (mine && mine.el === c.el && mine.typed !== '') return removeMine(c);
  mine = null;
  if (typeof named !== 'string' || named === '') return done(0, 'nothing');
  const now = textOf(c);
  const marked = named.startsWith('[clanker]');
  const at = now.startsWith(named) ? 0 : marked ? now.indexOf(named) : -1;
  if (at >= 0) {
    record(c, named, now);
    mine.mask = mine.mask.map((_, i) => i >= at && i < at + named.length);
    return removeMine(c);
  }
  const user = marked ? withoutSubsequence(now, named) : null;
  if (user === null) return fail('not_found', 'Clanker\'s text is not in the compose box; nothing was removed');
  return restore(c, user, named.length);
}

function done(removed, how) { return { ok: true, data: { removed, how } }; }

// removeMine deletes the units the record marks as Clanker's, last run first, so the
// positions of the runs before it stay as they are.
function removeMine(c) {
  const now = mine.text;
  const runs = [];
  for (let i = 0; i < mine.mask.length; i++) {
    if (!mine.mask[i]) continue;
    if (runs.length && runs[runs.length - 1][1] === i) runs[runs.length - 1][1] = i + 1;
    else runs.push([i, i + 1]);
  }
  let user = '';
  for (let i = 0; i < now.length; i++) if (!mine.mask[i]) user += now[i];
  const removed = now.length - user.length;
  if (!runs.length) { mine = null; return done(0, 'nothing'); }
  const whole = runs.length === 1 && now.slice(runs[0][0], runs[0][1]) === mine.typed;
  // The user may be typing right now (that is usually why Clanker's text goes): their caret
  // is put back where it was among their own characters, so the next key they press lands
  // where they expect.
  const caret = caretOf(c);
  const mask = mine.mask;
  for (let k = runs.length - 1; k >= 0; k--) {
    if (!selectRange(c, runs[k][0], runs[k][1])) break;
    ownExec('delete');
  }
  if (textOf(c) !== user) return restore(c, user, removed);
  mine = null;
  if (caret) {
    const at = (p) => { let n = 0; for (let i = 0; i < p && i < mask.length; i++) if (!mask[i]) n++; return n; };
    selectRange(c, at(caret[0]), at(caret[1]));
  }
  return done(removed, whole ? 'whole' : 'by_position');
}

// restore sets the whole box to the user's characters, when Clanker's could not be taken
// out one by one. The caret goes after the user's text.
function restore(c, user, removed) {
  selectAll(c);
  if (user === '') ownExec('delete'); else ownExec('insertText', user);
  if (textOf(c) !== user) {
    mine = null;
    return fail('clear_failed', 'the page did not take Clanker\'s text out of the compose box');
  }
  mine = null;
  caretToEnd(c);
  return done(removed, 'restored');
}

// withoutSubsequence returns s without the characters of sub, taken as the earliest
// characters of s that spell sub in order, or null when s does not hold sub that way.
export function withoutSubsequence(s, sub) {
  let j = 0;
  let rest = '';
  for (let i = 0; i < s.length; i++) {
    if (j < sub.length && s[i] === sub[j]) j++;
    else rest += s[i];
  }
  return j === sub.length ? rest : null;
}

// ---- following the user's edits -------------------------------------------------------

// before is the selection in the box when the page announced an edit (beforeinput), with
// the kind of edit: together with the text after it, it tells exactly which range changed.
let before = null; // { el, start, end, type }

// watchEdits follows every edit of the box that is not Clanker's, while Clanker has text in
// it. Capture listeners, so the page cannot hide an edit from them.
export function watchEdits() {
  document.addEventListener('beforeinput', (ev) => {
    if (ownEdit || !mine) return;
    const c = findCompose();
    if (!c || c.el !== mine.el || !(ev.target === c.el || c.el.contains(ev.target))) return;
    track(c);
    const sel = caretOf(c);
    before = sel ? { el: c.el, start: sel[0], end: sel[1], type: ev.inputType || '' } : null;
  }, true);
  document.addEventListener('input', (ev) => {
    if (ownEdit || !mine) return;
    const c = findCompose();
    if (!c || c.el !== mine.el) return;
    const hint = before && before.el === c.el ? before : null;
    before = null;
    track(c, hint);
  }, true);
}

// track brings the record up to date with the box's text. hint (optional) is the
// selection before the edit; without it (a change the page made without events, seen only
// now) the caret after the edit stands in for it.
export function track(c, hint) {
  if (!mine || !c || mine.el !== c.el) return;
  const now = textOf(c);
  const old = mine.text;
  if (now === old) return;
  const e = editBetween(old, now, hint, caretOf(c));
  const mask = mine.mask.slice(0, e.at).concat(new Array(e.added).fill(false), mine.mask.slice(e.at + e.removed));
  mine.text = now;
  mine.mask = mask;
}

// editBetween finds one edit that turns old into now: the `removed` units of old starting
// at `at` were replaced by the `added` units of now starting there. Several edits may fit
// (a key typed next to the same character, a repeated word pasted): the selection before
// the edit decides, else the caret after it (typing and pasting leave the caret after what
// they put in, deleting where the text went), else the edit as far right as it goes.
export function editBetween(old, now, hint, caretAfter) {
  const fits = (at, removed, added) => at >= 0 && removed >= 0 && added >= 0 && at + removed <= old.length &&
    at + added <= now.length && old.length - removed + added === now.length &&
    now.slice(0, at) === old.slice(0, at) && now.slice(at + added) === old.slice(at + removed);
  const grow = now.length - old.length;
  if (hint) {
    const s = Math.min(hint.start, hint.end);
    const e = Math.max(hint.start, hint.end);
    const cands = [];
    if (e > s || /^insert/.test(hint.type)) cands.push([s, e - s]); // the selection was replaced
    if (e === s && grow < 0) {
      const k = -grow;
      if (/Forward$/.test(hint.type)) cands.push([s, k]); else cands.push([s - k, k], [s, k]);
    }
    for (const [at, removed] of cands) if (fits(at, removed, removed + grow)) return { at, removed, added: removed + grow };
  }
  // The shortest edit: what lies between the common beginning and the common end.
  let p = 0;
  const max = Math.min(old.length, now.length);
  while (p < max && old[p] === now[p]) p++;
  let q = 0;
  while (q < max - p && old[old.length - 1 - q] === now[now.length - 1 - q]) q++;
  const removed = old.length - p - q;
  const added = now.length - p - q;
  // The same edit moved left, within a run of text it could equally be: prefer the place
  // that ends where the caret now is.
  if (caretAfter) {
    const at = caretAfter[1] - added;
    if (at < p && fits(at, removed, added)) return { at, removed, added };
  }
  return { at: p, removed, added };
}

// focusCompose readies the box for the native Enter. It refuses when the user typed into
// the box since Clanker's text went in: the Enter would send their text with Clanker's.
export function focusCompose(c) {
  if (userText(c)) return fail('user_typing', 'the compose box holds the user\'s text besides Clanker\'s; Enter was not pressed');
  c.el.focus();
  return { ok: true, data: { focused: document.activeElement === c.el || c.el.contains(document.activeElement) } };
}
