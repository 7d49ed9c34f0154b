// The selector self-test, kept current: it runs after the first conversation settles, on
// a slow timer, after every change of page state and, while it fails, after structural
// changes of the page (debounced), so Go learns both that the page drifted and that it
// came back. A self_test event is sent whenever the outcome changes (which lines fail,
// and for which page state) and whenever Go asks. A run is a couple of dozen selector
// counts over the document.

import { runSelfTest } from './selectors.js';

// The self-test runs this often whatever happens.
const SELF_TEST_EVERY_MS = 15000;
// While it fails, structural changes run it again this long after the last one.
const FAILING_RECHECK_MS = 1000;

// createSelfWatch returns the watcher; pageState() is the current page state.
export function createSelfWatch(emit, pageState) {
  const st = {
    last: null, // the outcome last sent (state and failing keys), null before the first
    failing: false,
    timer: 0, // the slow timer
    every: SELF_TEST_EVERY_MS,
    recheck: 0, // the debounced re-run after changes while failing
    runs: 0,
  };

  function outcome(r) {
    return r.state + '|' + r.results.filter((x) => !x.ok).map((x) => x.key).join(',');
  }

  // run tests the selectors and sends the result if its outcome changed, or always when
  // force is set.
  function run(force) {
    st.runs++;
    const r = runSelfTest(pageState());
    const o = outcome(r);
    st.failing = r.results.some((x) => !x.ok);
    if (force || o !== st.last) {
      st.last = o;
      emit('self_test', r);
    }
  }

  // start begins the slow timer. The first run comes after the first conversation settled,
  // or from the timer once the page is no longer loading (a page that only shows the
  // conversation list).
  function start() {
    if (st.timer) return;
    st.timer = setInterval(() => { if (pageState() !== 'loading') run(false); }, st.every);
  }

  // every changes how often the slow timer runs (configure).
  function every(ms) {
    st.every = ms;
    clearInterval(st.timer);
    st.timer = 0;
    start();
  }

  // structureChanged is told about structural changes: while the test fails, it runs again
  // once the page has been quiet a moment, so a page that comes back is seen soon.
  function structureChanged() {
    if (!st.failing) return;
    clearTimeout(st.recheck);
    st.recheck = setTimeout(() => { st.recheck = 0; run(false); }, FAILING_RECHECK_MS);
  }

  // stateChanged is told about a new page state: the lines that apply differ.
  function stateChanged() {
    if (st.last !== null) run(false);
  }

  return {
    now: () => run(true),
    start,
    every,
    structureChanged,
    stateChanged,
    stats: () => ({ selfTestRuns: st.runs, selfTestFailing: st.failing }),
  };
}
