// Every selector the bridge uses, in one table, with the date it was last checked against
// the live Google Messages web app (observations from January and February 2026). The
// project's build machines cannot reach the live page, so re-check the selectors and update
// the date when someone looks at the real page. When Google changes the page, this file and the
// self-test event (which reports per key selector whether it matched the expected number
// of elements) are where to look first.

export const SELECTORS_CHECKED = '2026-02';

export const S = {
  conversationContainer: '[data-e2e-conversation-container]',
  messagesList: 'mws-messages-list',
  messageWrapper: '[data-e2e-message-wrapper]',
  messageWrapperTag: 'mws-message-wrapper',
  messageCore: '[data-e2e-message-wrapper-core]',
  messageIdAttr: 'data-e2e-message-id',
  outgoingAttr: 'data-e2e-message-outgoing',
  textPart: 'mws-text-message-part',
  imagePart: 'mws-image-message-part',
  // Quoted parent inside a reply bubble (third-party traces; unchecked on the live page).
  quoteContainer: '.embed-msg-part-container, [data-e2e-embedded-message], mws-reply-message-part',
  tombstone: '[data-e2e-message-tombstone]',
  // The sender's name drawn beside incoming rows in groups (third-party traces and common
  // names; unchecked on the live page). Only read when a row's label names no sender.
  senderName: '[data-e2e-sender-name], [data-e2e-message-sender], mws-message-sender, .sender-name, .message-sender, .sender',
  headerTitle: '[data-e2e-header-title]',
  inputWrapper: '[data-e2e-message-input]',
  inputBox: '[data-e2e-message-input-box]',
  sendButton: '[data-e2e-send-text-button]',
  sidebarList: 'mws-conversations-list',
  sidebarItem: 'mws-conversation-list-item',
  sidebarLink: 'a[data-e2e-conversation]',
  sidebarName: '[data-e2e-conversation-name]',
  sidebarSnippet: 'mws-conversation-snippet span',
  // Search results, which may be drawn with the conversation list's or the message rows'
  // markup, and dialogs (message details, pickers): never the conversation or its list.
  // Unchecked on the live page: the names are the likely ones.
  searchResults: 'mws-search-results, mws-search-result, [data-e2e-search-results], .search-results',
  dialog: '[role="dialog"], [role="alertdialog"], dialog',
  // What hides a part of the page from the person: a pane or list the page keeps around but
  // does not show (a lingering old pane, the list under search results).
  hidden: '[aria-hidden="true"], [hidden], [inert]',
  // A control that offers to bring the view to the newest message: while one shows, the
  // view is not at the conversation's live end. Matched by its label (JUMP_LABEL).
  jumpControl: 'button[aria-label], [role="button"][aria-label]',
  // Pairing / sign-in page (QR code). Never checked on the live page, so it accepts several
  // likely element names on purpose.
  signedOut: 'mw-authentication-container, mws-authentication-container, mw-qr-code',
};

// JUMP_LABEL matches the label of a control that scrolls to the newest message
// ("Jump to newest message", "Scroll to bottom", "Go to latest").
export const JUMP_LABEL = /\b(?:jump|scroll|go|skip)\b.*\b(?:newest|latest|bottom|recent|new messages?|end)\b/i;

// SELF_TEST lists the key selectors and how many matches a healthy page has:
// one = exactly one, some = at least one, optional = any number.
// `when` restricts a check to a page state. `sel` replaces S[key] for checks of a
// combination. `onlyIf` (a selector) leaves the check out while nothing on the page
// matches it: an empty conversation has no rows to find, so it cannot tell drift.
// `critical` marks the selectors that decide who said what or which rows are new: the
// message rows and their ids (novelty is decided by id), the labels that name the sender
// (and give direction and time), and the pane the rows must be in (hidden panes and search
// results are told apart by it). When one of them fails, the bridge may tell Go a wrong
// sender or call an old row new, so Go stops acting until it passes again. The others
// (the list, the header, the compose box, the outgoing mark, which only stands in when a
// label gives no direction and is unchecked on the live page) are diagnostics.
const ROWS_DRAWN = S.messageWrapper + ',' + S.messageWrapperTag + ',' + S.messageCore + ',' + S.textPart + ',' + S.imagePart;
export const SELF_TEST = [
  { key: 'sidebarList', expect: 'one', when: ['no_conversation', 'conversation'] },
  { key: 'sidebarLink', expect: 'some', when: ['no_conversation', 'conversation'] },
  { key: 'sidebarName', expect: 'some', when: ['no_conversation', 'conversation'] },
  { key: 'sidebarSnippet', expect: 'some', when: ['no_conversation', 'conversation'] },
  { key: 'conversationContainer', expect: 'one', when: ['conversation'] },
  { key: 'messagesList', expect: 'one', when: ['conversation'] },
  { key: 'messagePane', sel: S.conversationContainer + ',' + S.messagesList, expect: 'some', when: ['conversation'], critical: true },
  { key: 'headerTitle', expect: 'one', when: ['conversation'] },
  { key: 'messageCore', expect: 'some', when: ['conversation'], onlyIf: ROWS_DRAWN, critical: true },
  { key: 'messageId', sel: S.messageCore + '[' + S.messageIdAttr + ']', expect: 'some', when: ['conversation'], onlyIf: S.messageCore, critical: true },
  { key: 'textPart', expect: 'some', when: ['conversation'], onlyIf: ROWS_DRAWN },
  { key: 'senderLabel', sel: S.textPart + '[aria-label],' + S.imagePart + '[aria-label]', expect: 'some', when: ['conversation'], onlyIf: S.textPart + ',' + S.imagePart, critical: true },
  { key: 'outgoingMark', sel: S.messageCore + '[' + S.outgoingAttr + ']', expect: 'optional', when: ['conversation'] },
  { key: 'inputBox', expect: 'one', when: ['conversation'] },
  { key: 'sendButton', expect: 'optional', when: ['conversation'] },
  { key: 'signedOut', expect: 'one', when: ['signed_out'] },
];

function count(sel) {
  try { return document.querySelectorAll(sel).length; } catch (e) { return 0; }
}

// runSelfTest counts each key selector's matches in the document.
export function runSelfTest(state) {
  const results = [];
  for (const c of SELF_TEST) {
    if (c.when.indexOf(state) < 0) continue;
    if (c.onlyIf && count(c.onlyIf) === 0) continue;
    const sel = c.sel || S[c.key];
    const n = count(sel);
    const ok = c.expect === 'one' ? n === 1 : c.expect === 'some' ? n > 0 : true;
    results.push({ key: c.key, selector: sel, count: n, expect: c.expect, ok, critical: !!c.critical });
  }
  return { checked: SELECTORS_CHECKED, state, results };
}
