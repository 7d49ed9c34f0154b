package chaostest

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/browser"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

var (
	seedsFlag   = flag.Int("bchaos.seeds", 5, "number of seeds of the end-to-end chaos run through the bridge")
	seedFlag    = flag.Uint64("bchaos.seed", 0, "run only this seed (0: seeds 1..-bchaos.seeds)")
	eventsFlag  = flag.Int("bchaos.events", 40, "events per seed")
	traceFlag   = flag.Bool("bchaos.trace", false, "log every step with how long it took")
	strictFlag  = flag.Bool("bchaos.strict", true, "fail when the engine visits the conversation already on screen (see knownSelfVisit; fixed, so on by default)")
	variantFlag = flag.String("bchaos.variants", "", "comma-separated simulator variants (app/demo/sim) the seeds run on, e.g. nest-2,late-src")
	nestedFlag  = flag.Uint64("bchaos.nestedseed", 2, "the seed of the run on a nested page (TestChaosThroughTheBridgeOnANestedPage)")
)

// variants parses a comma-separated variant list.
func variants(list string) []sim.Variant {
	var out []sim.Variant
	for _, v := range strings.Split(list, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, sim.Variant(v))
		}
	}
	return out
}

// sessionEvents is the event list of a seed; the same seed always gives the same list.
func sessionEvents(seed uint64, n int) []event {
	return generate(rand.New(rand.NewPCG(seed, 0xb7c4)), n)
}

// knownSelfVisit describes an engine bug this run found, now fixed in app/engine (regression
// test TestConversationTheUserOpensIsNoLongerQueuedForAVisit); the log watcher stays as a
// regression check and fails the run by default. A sidebar change queues a background conversation for a visit; when the user opens
// that conversation before the visit starts, it stays queued, and the engine later "visits"
// the conversation already on screen: the processing overlay covers the page, the
// navigation never reports a newly opened conversation, and after 10 s the visit counts as
// failed and is retried after 30 s, up to three times. Nothing is sent wrongly, but the user
// is locked out behind the overlay and the engine is busy for over a minute. A seed that hits
// it stops there (the rest of its events would only wait on the retries) and is reported, not
// failed, unless -bchaos.strict. It depends on timing (the user's click must land between
// the sidebar update and the visit); seed 2 hit it in two of four runs here:
// go test ./tests/browser/chaostest -bchaos.seed=2 -bchaos.strict -v
const knownSelfVisit = "engine visits the conversation already on screen (sbProgress does not drop a queued conversation that became the foreground)"

// seedResult is what one seed did, for the run's summary.
type seedResult struct {
	checkStats
	requests, enters, skipped, played int
	knownBug                          string
	took                              time.Duration
}

// TestChaosThroughTheBridgeKeepsEveryInvariant drives the headless app (real engine, store,
// LLM client and page link, the sealed bridge in Chromium on the simulator) with seeded
// random events and checks DESIGN.md's invariants against the simulator's send log after
// every step and once more when the app has gone quiet. One Chromium serves every seed; each
// seed gets a fresh tab, simulator, model server and database.
func TestChaosThroughTheBridgeKeepsEveryInvariant(t *testing.T) {
	seeds := testkit.Seeds(*seedFlag, *seedsFlag)
	b := browser.New(t)
	start := time.Now()
	var total seedResult
	knownHits := 0
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			vs := append(variants(*variantFlag), composeVariantFor(seed)...)
			r := runSeed(t, b, fmt.Sprintf("seed=%d", seed), seed, sessionEvents(seed, *eventsFlag), vs)
			total.clankerSends += r.clankerSends
			total.userSends += r.userSends
			total.farewells += r.farewells
			total.requests += r.requests
			total.enters += r.enters
			total.skipped += r.skipped
			if r.knownBug != "" {
				total.knownBug = "hit"
				knownHits++
			}
			t.Logf("seed %d: %d of %d events in %v; %d model requests, %d Clanker sends (%d farewells), %d user sends, %d trusted Enters by the app, %d actions the page did not allow",
				seed, r.played, *eventsFlag, r.took.Round(time.Millisecond), r.requests, r.clankerSends, r.farewells, r.userSends, r.enters, r.skipped)
		})
	}
	t.Logf("%d seeds x %d events in %v: %d model requests, %d Clanker sends, %d user sends",
		len(seeds), *eventsFlag, time.Since(start).Round(time.Millisecond), total.requests, total.clankerSends, total.userSends)
	if knownHits > 0 {
		t.Logf("known engine bug %q hit in %d of %d seeds (not failing; -bchaos.strict fails)", knownSelfVisit, knownHits, len(seeds))
	}
	if len(seeds) >= 3 && total.clankerSends == 0 {
		t.Errorf("no Clanker send in %d seeds: the run is not exercising the send path", len(seeds))
	}
}

// TestChaosThroughTheBridgeOnANestedPage plays one seed on the simulator's nest-mixed page,
// where each message row sits 0, 1 or 2 elements below the message list (as the real page's
// mws-bottom-anchored suggests it may), with images whose src comes late: every invariant
// must hold there too, with new rows, conversation switches and pictures among the events.
func TestChaosThroughTheBridgeOnANestedPage(t *testing.T) {
	b := browser.New(t)
	seed := *nestedFlag
	vs := append([]sim.Variant{sim.VariantNestMixed, sim.VariantLateSrc}, composeVariantFor(seed)...)
	r := runSeed(t, b, fmt.Sprintf("nested=%d", seed), seed, sessionEvents(seed, *eventsFlag), vs)
	t.Logf("seed %d on %v: %d of %d events in %v; %d model requests, %d Clanker sends, %d user sends",
		seed, vs, r.played, *eventsFlag, r.took.Round(time.Millisecond), r.requests, r.clankerSends, r.userSends)
	if r.requests == 0 {
		t.Errorf("seed %d on the nested page asked the model nothing: the run did not exercise new messages", seed)
	}
}

// runSeed plays one seed on a page with the given simulator variants and fails the test
// with the seed and the event list when an invariant breaks.
func runSeed(t *testing.T, b *browser.Browser, key string, seed uint64, evs []event, vs []sim.Variant) seedResult {
	t0 := time.Now()
	tab := b.NewTab(t)
	browser.Run(t, tab, "bring the tab to the front", chromedp.ActionFunc(func(ctx context.Context) error {
		return cdppage.BringToFront().Do(ctx)
	}))
	w := newWorld()
	w.restore = slices.Contains(vs, sim.VariantRestoreDraft)
	h := startHeadless(t, tab, seed, w, vs)
	if *traceFlag {
		t.Logf("seed %d started in %v", seed, time.Since(t0).Round(time.Millisecond))
	}
	defer h.close()
	s := &session{h: h, w: w}
	fail := func(step int, why []string) {
		shot := browser.SaveScreenshot(t, tab, fmt.Sprintf("bchaos-seed-%d", seed))
		t.Fatal(s.report(seed, evs, step, why) + "screenshot: " + shot)
	}
	played := 0
	for i, e := range evs {
		s.step = i
		ts := time.Now()
		if err := s.apply(e); err != nil {
			fail(i, []string{"the harness could not play the event: " + err.Error()})
		}
		tc := time.Now()
		v, _ := s.check()
		if *traceFlag {
			t.Logf("step %2d %-60s apply %v, check %v", i, e, tc.Sub(ts).Round(time.Millisecond), time.Since(tc).Round(time.Millisecond))
		}
		if len(v) > 0 {
			fail(i, v)
		}
		played = i + 1
		if h.knownBug() != "" {
			break
		}
	}
	// Let every reply under way finish (or give up), then check once more. A visit the user
	// took over leaves what is still owed queued for the engine's takeover pause (2 minutes),
	// so the wait covers that pause too: the owed answer must still come.
	if ok, why := testkit.Poll(3*time.Minute+45*time.Second, func() (bool, string) {
		if h.knownBug() != "" {
			return true, ""
		}
		return h.quiet()
	}); !ok {
		fail(played, []string{"the app never went quiet after the last event: " + why})
	}
	v, st := s.check()
	if len(v) > 0 {
		fail(played, v)
	}
	s.settleDraftBelief()
	s.checkLiveness(h.sentLog())
	judgeLiveness(t, key, s.live, s.report(seed, evs, played-1, nil))
	res := seedResult{checkStats: st, requests: len(h.llm.Requests()), skipped: len(w.skipped), played: played,
		knownBug: h.knownBug(), took: time.Since(t0)}
	h.mu.Lock()
	res.enters = h.enters
	h.mu.Unlock()
	if res.knownBug != "" {
		msg := fmt.Sprintf("known engine bug %q hit after step %d (%s); the seed stops here", knownSelfVisit, played-1, res.knownBug)
		if *strictFlag {
			fail(played-1, []string{msg})
		}
		t.Log(msg + "\n" + s.report(seed, evs, played-1, nil))
	}
	return res
}

// report says which seed broke what, and lists the events up to the failing step so the
// run can be reproduced and read.
func (s *session) report(seed uint64, evs []event, step int, why []string) string {
	var b strings.Builder
	if len(why) > 0 {
		fmt.Fprintf(&b, "bridge chaos seed %d broke an invariant at step %d:\n  %s\n", seed, step, strings.Join(why, "\n  "))
	}
	fmt.Fprintf(&b, "reproduce: go test ./tests/browser/chaostest -run TestChaosThroughTheBridgeKeepsEveryInvariant -bchaos.seed=%d -bchaos.events=%d -v\n", seed, len(evs))
	fmt.Fprintf(&b, "events (the last one is where it broke):\n")
	for i, e := range evs[:min(step+1, len(evs))] {
		fmt.Fprintf(&b, "  %3d  %s\n", i, e)
	}
	if len(s.w.skipped) > 0 {
		fmt.Fprintf(&b, "actions the page did not allow:\n  %s\n", strings.Join(s.w.skipped, "\n  "))
	}
	if sent, err := s.h.ctl.Sent(); err == nil {
		fmt.Fprintf(&b, "send log:\n")
		for i, e := range sent {
			fmt.Fprintf(&b, "  %3d  %-10s trusted=%v via=%s %q\n", i, s.name(e.Conversation), e.Trusted, e.Via, engine.Clip(e.Text, 80))
		}
	}
	fmt.Fprintf(&b, "recent app log:\n%s\n", s.h.log.String())
	return b.String()
}
