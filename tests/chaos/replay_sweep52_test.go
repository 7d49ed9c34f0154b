package chaos

import (
	"testing"
	"time"
)

// Seeds found by the sweep of bases 5200000000 and up (see SWEEPS.md), kept as replays of their
// shortened event lists.

// Engine, on a page whose old pane lingers (seed%4 == 1): someone addressed Clanker in c1, off
// screen, and Clanker visited it. The first view of c1 still carried c2's rows, so the engine
// doubted it and asked the page for c1 again; that second report, of the conversation being
// visited, was taken for the user opening another conversation. The visit ended with the
// overlay while the user had touched nothing, the queue was dropped, and the user was left in
// c1. Here the mention was still answered (c1 had been processed before, so it counted as
// new), but late, and a conversation never processed before lost it for good. The visit now
// goes on, so the user's click during it (step 8) finds it and takes it over.
//
// Oracle: the same seed also showed the owed-answer check counting the whole length of a
// compound step as free time when the state at its end was free: the hop (step 9) spent a
// minute in c0 and c3, which was counted as a minute of c1's mention waiting on screen.
func TestChaosReplayVisitWhoseFirstViewIsDoubtedIsNotTakenForTheUserLeaving(t *testing.T) {
	res := replay(t, 5200002849, []event{
		{Kind: evMode, Conv: 1, Var: 8},    // Active from the tray for c1
		{Kind: evRemote, Conv: 1, Var: 11}, // another Clanker in c1, off screen: visited
		{Kind: evMode, Conv: numConvs, Var: 1},
		{Kind: evLLM, Var: int(outImage), D: 27 * time.Second},
		{Kind: evSwitch, Conv: 2, Var: 1, D: 403 * time.Millisecond},
		{Kind: evRemote, Conv: numConvs, Var: 8},
		{Kind: evHop, Conv: 0, Var: 0},
		{Kind: evRemote, Conv: 1, Var: 4}, // mention+image in c1, off screen: visited
		{Kind: evVisitClick, Conv: 1, Var: 0},
		{Kind: evHop, Conv: 0, Var: 2},
	})
	if res.stats.takeovers != 1 {
		t.Errorf("the user's click found no visit to take over (%d): the visit to c1 ended before it, with the user doing nothing", res.stats.takeovers)
	}
	if res.stats.mentionsAnswered == 0 {
		t.Errorf("the mention in c1 was never answered; the replay no longer reaches the visit for it")
	}
}
