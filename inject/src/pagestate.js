// What kind of page is showing (loading, signed out, the conversation list, a conversation,
// or something unrecognised), reported as page_state on every change of state or
// conversation id. It keeps its own timers: a quick poll while the page loads, a debounced
// check after structural changes, and a re-check with backoff while the page is
// unrecognised, which is never final.
//
// It knows nothing of rows. When the page stops being usable (unrecognised or signed out)
// it calls hooks.lose(); when it is usable again, hooks.regain(); after any change of the
// reported state, hooks.changed(). hooks.conversationId() is the conversation the settling
// part is following.

import { S } from './selectors.js';
import { conversationIdFrom, capString } from './util.js';

const STATE_CHECK_MS = 250;
const RECHECK_FIRST_MS = 1000;
const RECHECK_MAX_MS = 30000;
// While the page is loading, a structural change is checked in the next task (the check is a
// few selector lookups, and loading ends within seconds), and without changes the state is
// re-checked this often until the unrecognised grace ends (then once a second).
const LOADING_CHECK_MS = 0;
const LOADING_POLL_MS = 200;

const has = (sel) => !!document.querySelector(sel);

// hasThread says whether any part of a conversation pane is on the page. Each kind of
// page is recognised by any one of several independent signals, so a redesign that
// renames some selectors (the self-test reports which) leaves the page usable wherever
// the others still match instead of declaring it unrecognised.
export function hasThread() {
  return has(S.conversationContainer) || has(S.messagesList) || has(S.messageCore) || has(S.inputBox) || has(S.inputWrapper);
}

// createPageState returns the page-state part. cfg.unrecognisedGraceMs is read on every
// check, so `configure` takes effect at once.
export function createPageState(emit, cfg, hooks) {
  const startedAt = performance.now();
  const st = {
    pageState: '',
    pageStateKey: '',
    stateTimer: 0,
    stateDue: 0,
    // recheckTimer re-checks an unrecognised page; recheckMs is the next delay (backoff).
    recheckTimer: 0,
    recheckMs: RECHECK_FIRST_MS,
    // lost is set while the page is unrecognised or signed out: nothing is tracked then,
    // and the conversation settles afresh once the page is usable again (the engine
    // dropped it when told the page was not usable).
    lost: false,
  };

  function compute() {
    const id = conversationIdFrom(location.href);
    if (/\/authentication\b/.test(location.pathname)) return 'signed_out';
    const hasSidebar = has(S.sidebarList) || has(S.sidebarItem) || has(S.sidebarLink);
    const thread = hasThread();
    // A pairing element counts only on a page without conversations (a signed-in page
    // may carry one in a dialog).
    if (!hasSidebar && !thread && has(S.signedOut)) return 'signed_out';
    if (id && thread) return 'conversation';
    if (!id && (hasSidebar || thread)) return 'no_conversation';
    if (performance.now() - startedAt < cfg.unrecognisedGraceMs) return 'loading';
    if (id && hasSidebar) return 'loading';
    return 'unrecognised';
  }

  function check() {
    st.stateTimer = 0;
    const s = compute();
    const unusable = s === 'unrecognised' || s === 'signed_out';
    if (unusable && !st.lost) {
      st.lost = true;
      hooks.lose();
    } else if (!unusable && st.lost) {
      st.lost = false;
      hooks.regain();
    }
    // A new conversation id is reported at once (the switch has started), even though
    // its messages only come with the settled conversation event.
    const convId = hooks.conversationId();
    const key = s + '|' + convId;
    if (key !== st.pageStateKey) {
      const stateChanged = s !== st.pageState;
      st.pageStateKey = key;
      st.pageState = s;
      emit('page_state', { state: s, url: capString(location.href, 2048), conversationId: convId });
      if (stateChanged) hooks.changed();
    }
    // While loading, keep checking so the page is reported usable soon after it renders and
    // "unrecognised" when the grace ends (and, after it, once a second until the page decides).
    if (s === 'loading') {
      const left = cfg.unrecognisedGraceMs - (performance.now() - startedAt);
      schedule(left > 0 ? Math.min(LOADING_POLL_MS, Math.max(50, left + 10)) : 1000);
    }
    // "Unrecognised" is never final: a slow machine may draw the app long after the grace,
    // or change it in ways the observer does not see (an attribute outside its filter).
    // Structural changes re-check at once; this timer re-checks anyway, less often the
    // longer the page stays unrecognised.
    if (s === 'unrecognised') {
      if (!st.recheckTimer) {
        st.recheckTimer = setTimeout(() => { st.recheckTimer = 0; check(); }, st.recheckMs);
        st.recheckMs = Math.min(RECHECK_MAX_MS, st.recheckMs * 2);
      }
    } else {
      clearTimeout(st.recheckTimer);
      st.recheckTimer = 0;
      st.recheckMs = RECHECK_FIRST_MS;
    }
  }

  // schedule checks the state in ms (STATE_CHECK_MS by default). A check already due
  // sooner stands; one due later is brought forward, so a change seen while a slow poll is
  // pending is not left waiting for it.
  function schedule(ms) {
    const wait = ms === undefined ? STATE_CHECK_MS : ms;
    const due = performance.now() + wait;
    if (st.stateTimer) {
      if (st.stateDue <= due) return;
      clearTimeout(st.stateTimer);
    }
    st.stateDue = due;
    st.stateTimer = setTimeout(check, wait);
  }

  // afterStructureChange re-checks the state, debounced: any structural change may have
  // taken the page's known parts away (Google re-renders without a reload). While the page
  // has not decided yet, the check comes at once.
  function afterStructureChange() {
    schedule(st.pageState === 'loading' || !st.pageState ? LOADING_CHECK_MS : undefined);
  }

  // report forgets what was last reported, so the next check sends page_state again.
  function report() {
    st.pageStateKey = '';
    check();
  }

  return { compute, check, schedule, afterStructureChange, report, lost: () => st.lost };
}
