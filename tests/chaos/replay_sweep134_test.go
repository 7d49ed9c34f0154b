package chaos

import (
	"testing"
	"time"
)

// Seeds found by sweeps from base 13400000002000 (see SWEEPS.md), kept as replays of their
// shortened event lists.

// Engine: c2 was Available and announced; the user chose Active for it from the menu while the
// page's switch to c2 was still unreported, so the notice was owed. When c2 settled, someone
// asked Clanker there and the user hopped through c3 and c4. Each time c2 was shown the
// engine asked the model for the Active greeting and superseded that request at once by
// scheduling the answer owed to the question; it posted the fixed notice instead, and the
// answer waited for the discarded greeting's request to come back. With a 17 s model the
// answer came 34 s after the user's return. With an answer owed, the fixed notice goes out at
// once and the answer's request is made straight away.
func TestChaosReplayAnswerOwedWhenTheActiveNoticeIsDueIsNotHeldBehindAGreeting(t *testing.T) {
	res := replay(t, 13400000002585, []event{
		{Kind: evRemote, Conv: 3, Var: 9}, // another Clanker, sender 1
		{Kind: evSwitch, Conv: 2},
		{Kind: evHop, Conv: 2, Var: 0}, // hops to c2 (already shown) and c3
		{Kind: evLLM, Var: int(outJSON), D: 17 * time.Second},
		{Kind: evMode, Conv: 2, Var: 7}, // Available from the tray for c2
		{Kind: evSwitch, Conv: 4},
		{Kind: evWait, D: 16 * time.Second},
		{Kind: evSwitch, Conv: 3, Var: 1, D: 472 * time.Millisecond},
		{Kind: evSwitch, Conv: 2, Var: 1, D: 603 * time.Millisecond},
		{Kind: evMode, Conv: numConvs, Var: modeActiveMenu}, // c2, its switch still unreported
		{Kind: evMode, Conv: 4, Var: 7},                     // Available from the tray for c4
		{Kind: evHop, Conv: 3, Var: 0},                      // asks in c2, hops to c3 and c4
	})
	if res.stats.hopsChecked < 2 {
		t.Errorf("%d hops checked, want 2: the replay no longer asks in c2 with the Active notice owed", res.stats.hopsChecked)
	}
}
