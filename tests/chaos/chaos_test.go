package chaos

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	seedsFlag  = flag.Int("seeds", 100, "number of chaos seeds to run (make chaos uses 1000)")
	baseFlag   = flag.Uint64("base", 0, "seed offset: run seeds base+1..base+seeds (wrapping past 2^64-1)")
	seedFlag   = flag.Uint64("seed", 0, "run only this seed (0: run seeds base+1..base+seeds)")
	eventsFlag = flag.Int("events", 300, "events per chaos session")
	shrinkFlag = flag.Int("shrink", 400, "at most this many replays to shorten a failing event list (0: no shrinking)")
	strictFlag = flag.Bool("strict", false, "fail on known engine bugs too")
)

// knownBug is an engine bug the chaos run found and reported (the engine is not this
// package's to fix). Hits are counted and logged rather than failing the run, so the rest of
// the invariants stay checked; -strict fails on them, and the run says when one is no longer
// seen so its entry can be deleted.
type knownBug struct {
	id    string
	match *regexp.Regexp
	repro string
}

// knownBugs is empty: every engine bug this simulation found is fixed in app/engine, and its
// shortened event list is a replay test in replay_test.go (among them a held mode
// announcement sent after the mode changed again, the text of an image-requesting answer
// posted by the news and deferred paths, and partial text a switch left in a box that stayed
// there after a restart).
var knownBugs []knownBug

// sessionEvents is the event list of a seed; the same seed always gives the same list.
func sessionEvents(seed uint64, n int) []event {
	return generate(rand.New(rand.NewPCG(seed, 0x5eed)), n)
}

var digits = regexp.MustCompile(`[0-9]+`)

// signature is what makes two failures "the same" while shrinking: the first violation with
// its step number, ids and counters blanked.
func signature(v []string) string {
	if len(v) == 0 {
		return ""
	}
	s := v[0]
	if i := strings.Index(s, ": "); i >= 0 {
		s = s[i+2:]
	}
	return digits.ReplaceAllString(s, "N")
}

// shrink drops events (halves, then quarters, ..., then single ones) as long as the session
// still fails with the same signature, and returns the shortest list found and its result.
func shrink(t *testing.T, base string, seed uint64, evs []event, first result, budget int) ([]event, result) {
	want := signature(first.violations)
	best, bestRes := evs[:first.events], first // nothing after the failing step matters
	runs := 0
	for chunk := len(best) / 2; chunk >= 1 && runs < budget; {
		removed := false
		for start := 0; start+chunk <= len(best) && runs < budget; {
			cand := append(append([]event(nil), best[:start]...), best[start+chunk:]...)
			runs++
			r := play(t, base, seed, cand)
			if len(r.violations) > 0 && signature(r.violations) == want {
				best, bestRes, removed = cand[:r.events], r, true
				continue // try the same position again on the shorter list
			}
			start += chunk
		}
		if !removed {
			chunk /= 2
		}
		chunk = min(chunk, len(best)/2+1)
		if len(best) <= 1 {
			break
		}
	}
	return best, bestRes
}

func report(seed uint64, total int, evs []event, res result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "chaos seed %d broke an invariant:\n  %s\n", seed, strings.Join(res.violations, "\n  "))
	repro := fmt.Sprintf("-seed=%d", seed)
	if seed == 0 { // -seed=0 means "no single seed"; reach seed 0 as the one after the last base
		repro = fmt.Sprintf("-base=%d -seeds=1", uint64(math.MaxUint64))
	}
	fmt.Fprintf(&b, "reproduce: go test ./tests/chaos -run TestChaosSeeds %s -v\n", repro)
	fmt.Fprintf(&b, "shortened event list (%d of %d events; the last one is where it broke):\n", len(evs), total)
	for i, e := range evs {
		fmt.Fprintf(&b, "  %3d  %s\n", i, e)
	}
	return b.String()
}

// seedRange is the list of seeds a run covers: -seed alone, else -seeds seeds after -base. The
// base lets a long sweep start anywhere in the 64-bit seed space, so seeds the default run never
// reaches get played too; uint64 arithmetic wraps, which keeps every base valid.
func seedRange(seed, base uint64, n int) []uint64 {
	if seed != 0 {
		return []uint64{seed}
	}
	seeds := make([]uint64, 0, max(n, 0))
	for i := 1; i <= n; i++ {
		seeds = append(seeds, base+uint64(i))
	}
	return seeds
}

// TestChaosSeedsKeepEveryInvariant runs -seeds sessions of -events random events over the real
// engine and a real database file, checking DESIGN.md's invariants after every step. A failing
// seed reports its seed and a shortened event list that still fails the same way.
func TestChaosSeedsKeepEveryInvariant(t *testing.T) {
	seeds := seedRange(*seedFlag, *baseFlag, *seedsFlag)
	if len(seeds) == 0 {
		t.Fatalf("no seeds to run: -seeds is %d; give a positive count or -seed", *seedsFlag)
	}
	var mu sync.Mutex
	var total stats
	var events, failed int
	known := map[string]int{}
	start := time.Now()
	t.Run("seeds", func(t *testing.T) {
		for _, seed := range seeds {
			t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
				t.Parallel()
				base := t.TempDir()
				evs := sessionEvents(seed, *eventsFlag)
				res := play(t, base, seed, evs)
				mu.Lock()
				events += res.events
				total.replies += res.stats.replies
				total.announcements += res.stats.announcements
				total.refusedDraft += res.stats.refusedDraft
				total.wrongConv += res.stats.wrongConv
				total.fetches += res.stats.fetches
				total.requests += res.stats.requests
				total.interrupts += res.stats.interrupts
				total.hopsChecked += res.stats.hopsChecked
				total.takeovers += res.stats.takeovers
				total.userActive += res.stats.userActive
				total.mentionsAnswered += res.stats.mentionsAnswered
				total.mentionsReleased += res.stats.mentionsReleased
				total.mixedViews += res.stats.mixedViews
				if len(res.violations) > 0 {
					failed++
				}
				for id, n := range res.known {
					if n > 0 {
						known[id]++
					}
				}
				mu.Unlock()
				if len(res.violations) == 0 {
					return
				}
				short, sres := evs[:res.events], res
				if *shrinkFlag > 0 {
					short, sres = shrink(t, base, seed, evs, res, *shrinkFlag)
				}
				t.Error(report(seed, len(evs), short, sres))
			})
		}
	})
	t.Logf("seeds %d..%d (base %d): %d seeds, %d events in %v: %d failed; %d model requests, %d replies and %d announcements sent, "+
		"%d inserts refused for a user draft, %d text commands refused as wrong conversation, %d image fetches",
		seeds[0], seeds[len(seeds)-1], *baseFlag, len(seeds), events, time.Since(start).Round(time.Millisecond), failed, total.requests, total.replies,
		total.announcements, total.refusedDraft, total.wrongConv, total.fetches)
	t.Logf("loop events: %d typing interruptions, %d hops checked for a lost answer, %d visits taken over by the user, %d visits refused while the user used the window",
		total.interrupts, total.hopsChecked, total.takeovers, total.userActive)
	t.Logf("owed answers: %d messages naming Clanker in Available conversations answered, %d released for a reason the user saw",
		total.mentionsAnswered, total.mentionsReleased)
	t.Logf("lingering panes: %d reports of a conversation carried another one's rows", total.mixedViews)
	for _, k := range knownBugs {
		if known[k.id] > 0 {
			t.Logf("known engine bug %q hit in %d of %d seeds (not failing; -strict fails): %s", k.id, known[k.id], len(seeds), k.repro)
		} else if len(seeds) >= 100 {
			t.Logf("known engine bug %q was not seen in %d seeds: if it was fixed, delete its knownBugs entry", k.id, len(seeds))
		}
	}
	if total.replies == 0 && len(seeds) >= 10 {
		t.Errorf("no reply was sent in %d seeds: the simulation is not exercising the send path", len(seeds))
	}
}
