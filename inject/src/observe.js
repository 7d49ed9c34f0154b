// Watching the page: this module starts the observer and hands each change to the part that
// owns it. The parts, each with its own state:
//   pagestate.js    what kind of page is showing (page_state)
//   conversation.js which conversation is in the foreground and when it settled (conversation)
//   rows.js         new rows, history, id changes and updates (message, history, message_id)
//   labels.js       what the rows say, and rows still waiting for their label
//   pane.js         which pane and rows a person sees, and whether the view is at the live end
//   sidebar.js      the conversation list (sidebar)
//   composewatch.js the compose box (compose)
// One MutationObserver over the document does the row work; its cost per batch depends on
// the nodes that changed, never on how many rows are rendered (no whole-list scans on the
// hot path).
//
// Rules the parts keep (each has a browser test):
// * The foreground conversation is reported only after the DOM settled for it; those rows
//   are the baseline, never "new" (conversation.js).
// * After that, novelty is decided by message identity and time (rows.js): an id seen once
//   is never new again; an element that changes its id is one message leaving and another
//   arriving; a row is new only after the live anchor (the newest message known at the
//   live end) with no known row after it, while the view is at the live end; a row
//   labelled older than the newest message is history. Only the pane a person sees counts
//   (pane.js). New rows are reported in document order, whatever order their labels come in.
// * tmp_ -> permanent id changes, in place or by replacing the row, are id updates, and
//   only those.
// * A page that takes longer to appear than the unrecognised grace is declared
//   unrecognised, and re-checked from then on (pagestate.js).
// * Rows whose label is not there yet wait for the label, with a grace period after which
//   they are reported with what could be read (labels.js).
// * A known row that changes afterwards (its label arrives late, an image's src is set,
//   a reaction is added) is reported again as message_update when what it says changed.

import { S } from './selectors.js';
import { createPageState } from './pagestate.js';
import { createLabels } from './labels.js';
import { createRows, coresIn } from './rows.js';
import { createConversation } from './conversation.js';
import { createSidebar, SIDEBAR_ANY } from './sidebar.js';
import { createComposeWatch } from './composewatch.js';

// PANE_ANY matches any part of the conversation pane (changes there may come with the page
// emptying the compose box).
const PANE_ANY = S.conversationContainer + ',' + S.messagesList + ',' + S.messageCore;
// A scroll is looked at this long after it began (only while the live end is not known).
const SCROLL_CHECK_MS = 250;

export function createObserver(emit, ui, maxEventBytes) {
  const cfg = { unrecognisedGraceMs: 10000 };
  const stats = { observerMs: 0, observerCalls: 0, newMessages: 0, historyMessages: 0, idChanges: 0, maxBatchMs: 0 };

  // selfWatch keeps the selector self-test current (selfwatch.js); main.js hands it over
  // at start.
  let selfWatch = null;
  let selfTested = false;

  // The parts refer to each other only through these late-bound names, set just below.
  let conv = null;
  const pageState = createPageState(emit, cfg, {
    conversationId: () => conv.id(),
    lose: () => conv.lose(),
    regain: () => conv.regain(),
    changed: () => { if (selfWatch) selfWatch.stateChanged(); },
  });
  const labels = createLabels({
    onDue: (core, history) => rows.report(core, history),
    afterDue: () => rows.flushHistory(),
  });
  const compose = createComposeWatch(emit, () => conv.id());
  const rows = createRows(emit, stats, labels, () => conv.id(), {
    onOwnRow: () => compose.ownRowAppeared(),
    uiHost: () => ui.host(),
  });
  const sidebar = createSidebar(emit);
  conv = createConversation(emit, maxEventBytes, {
    rows,
    labels,
    pageState,
    ui,
    onSwitch: () => {
      sidebar.schedule();
      compose.switched();
    },
    onSettled: () => {
      compose.report(true);
      compose.switched();
      if (!selfTested && selfWatch) {
        selfTested = true;
        selfWatch.now();
      }
    },
  });

  function ownRow(core) {
    const id = core.getAttribute(S.messageIdAttr) || '';
    return core.getAttribute(S.outgoingAttr) === 'true' || id.startsWith('tmp_');
  }

  function inOwnUI(node) {
    const h = ui.host();
    return !!h && (node === h);
  }

  function onMutations(records) {
    const t0 = performance.now();
    conv.check();
    let addedCores = [];
    const removedCores = [];
    const changedIds = []; // [core, oldId]: an element that shows another message now
    // touched: rows something changed inside (a part or image added, a label or src set,
    // text edited): a waiting row may be ready now, a known one may need an update.
    const touched = new Set();
    let sidebarTouched = false;
    let composeTouched = false;
    let paneTouched = false;
    let structure = false;
    for (const r of records) {
      const target = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (!target || inOwnUI(target)) continue;
      if (r.type === 'childList') {
        for (const n of r.removedNodes) {
          if (n.nodeType !== 1) continue;
          structure = true;
          coresIn(n, removedCores);
        }
        for (const n of r.addedNodes) {
          if (n.nodeType !== 1 || inOwnUI(n)) continue;
          structure = true;
          coresIn(n, addedCores);
        }
        const owner = target.closest(S.messageCore);
        if (owner) touched.add(owner);
      } else if (r.type === 'attributes') {
        if (r.attributeName === S.messageIdAttr) {
          if (target.matches(S.messageCore)) changedIds.push([target, r.oldValue]);
          continue;
        }
        if (r.attributeName === 'aria-hidden' || r.attributeName === 'hidden') {
          // A part of the page shown or hidden (a lingering pane, the list under search
          // results): its rows are looked at again; only the pane on screen counts.
          structure = true;
          coresIn(target, addedCores);
          sidebarTouched = true;
          continue;
        }
        if (r.attributeName === 'aria-label' || r.attributeName === 'src') {
          const owner = target.closest(S.messageCore);
          if (owner) touched.add(owner);
        }
      } else if (r.type === 'characterData') {
        const owner = target.closest(S.messageCore);
        if (owner) touched.add(owner);
      }
      if (!sidebarTouched && target.closest(SIDEBAR_ANY)) sidebarTouched = true;
      if (!composeTouched && compose.touches(target)) composeTouched = true;
      if (!paneTouched && target.closest(PANE_ANY)) paneTouched = true;
    }
    if (conv.phase() === 'settling') {
      if (paneTouched || sidebarTouched || structure) conv.watchHeader();
      if (addedCores.length || changedIds.length || structure) conv.changed();
    } else if (conv.phase() === 'ready') {
      rows.batch({ removed: removedCores, changed: changedIds, added: addedCores, touched, hold: conv.hold });
      conv.headerBack();
    }
    // A row of the user's own (before its label came, the outgoing mark or the temporary id
    // of a message being sent tells it): the page empties the box when it sends.
    if (addedCores.some(ownRow)) compose.ownRowAppeared();
    if (sidebarTouched) sidebar.schedule();
    if (composeTouched) compose.report(false);
    else if (paneTouched || addedCores.length || touched.size) compose.paneChanged();
    // Any structural change may have taken the page's known parts away (Google re-renders
    // without a reload), so the state is re-checked, debounced, after every one.
    if (structure) pageState.afterStructureChange();
    if (structure) ui.keepAttached();
    if (structure && selfWatch) selfWatch.structureChanged();
    const dt = performance.now() - t0;
    stats.observerMs += dt;
    stats.observerCalls++;
    if (dt > stats.maxBatchMs) stats.maxBatchMs = dt;
  }

  let mo = null;
  let scrollTimer = 0;

  function onScroll() {
    if (scrollTimer || conv.phase() !== 'ready' || rows.hasAnchor()) return;
    scrollTimer = setTimeout(() => {
      scrollTimer = 0;
      if (conv.phase() === 'ready') rows.viewMoved();
    }, SCROLL_CHECK_MS);
  }

  function start(watch) {
    selfWatch = watch;
    selfWatch.start();
    mo = new MutationObserver(onMutations);
    mo.observe(document, {
      childList: true, subtree: true, characterData: true, attributes: true, attributeOldValue: true,
      attributeFilter: [S.messageIdAttr, 'aria-label', 'src', 'href', 'aria-selected', 'data-e2e-is-unread', 'data-e2e-is-pinned', 'data-e2e-is-muted',
        'aria-hidden', 'hidden'],
    });
    // SPA navigation: the page changes the URL with the history API; a mutation follows,
    // but the hooks make the switch visible at once.
    for (const name of ['pushState', 'replaceState']) {
      const orig = history[name];
      if (typeof orig !== 'function') continue;
      const push = name === 'pushState';
      history[name] = function () {
        const r = orig.apply(this, arguments);
        try { conv.check(push); } catch (e) { /* never break the page */ }
        return r;
      };
    }
    window.addEventListener('popstate', () => conv.check(), true);
    window.addEventListener('hashchange', () => conv.check(), true);
    // A view that scrolls to the live end (no row need change for that) gets its anchor.
    document.addEventListener('scroll', onScroll, { capture: true, passive: true });
    compose.start();
    conv.check();
    pageState.schedule(0);
    sidebar.schedule();
  }

  function snapshot() {
    pageState.report();
    conv.snapshot();
    sidebar.report(true);
    compose.report(true);
  }

  return {
    start,
    snapshot,
    stats,
    cfg,
    pageState: () => pageState.compute(),
    conversationId: () => conv.id(),
    reportCompose: compose.report,
    extraStats: () => Object.assign(compose.stats(), selfWatch ? selfWatch.stats() : {}),
    scheduleState: pageState.schedule,
  };
}
