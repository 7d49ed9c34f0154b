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

// Engine: Clanker was visiting c1 for a mention (Available), its answer being computed, when
// the user clicked c5 and typed there at once, before the page reported the switch. The
// bridge reports a key pressed in the compose box while the overlay is up as a cancel of the
// visit, and the engine took it for the user typing in c1: it released the mention there and
// threw the answer away, and when the user opened c1 the person who asked got nothing. The
// bridge now says in which conversation's box the key was; a key in another conversation than
// the visited one is the user having left it, which releases nothing there.
func TestChaosReplayKeyInAnotherConversationDuringAVisitKeepsTheMentionOwed(t *testing.T) {
	res := replay(t, 13400000005591, []event{
		{Kind: evMode, Var: modeActiveMenu}, // c0
		{Kind: evSwitch, Conv: 1, Var: 1, D: 47 * time.Millisecond},
		{Kind: evMode, Var: modeAvailableMenu}, // c1, its switch still unreported
		{Kind: evWait, D: 12 * time.Second},
		{Kind: evRemote, Conv: 0, Var: 8},  // image in c0, off screen: visited
		{Kind: evRemote, Conv: 1, Var: 13}, // mention in c1, off screen while c0 is visited
		{Kind: evWait, D: 1479 * time.Millisecond},
		{Kind: evWait, D: 2134 * time.Millisecond}, // c1 visited, its answer asked for
		{Kind: evSwitch, Conv: 5, Var: 1, D: 608 * time.Millisecond},
		{Kind: evUserType}, // in c5, the switch unreported
		{Kind: evSwitch, Conv: 1},
	})
	if res.stats.mentionsAnswered == 0 {
		t.Errorf("the mention in c1 was never answered; the replay no longer reaches the visit for it")
	}
}

// Page model (oracle side): someone addressed Clanker in c1 while Active was chosen there but
// not announced yet (Clanker acting as Available); the user sent a draft, clicked c5 and,
// before the page reported the switch, picked Available from the pill. A pick that names no
// conversation is for the conversation the engine shows as on screen, c1 (the pill and the app
// menu show its mode), and the engine changed c1's mode, which releases what was owed there;
// the model counted the release for c5, the conversation the page showed, and so expected an
// answer in c1 that the user's own mode change had released.
func TestChaosReplayModePickDuringAnUnreportedSwitchReleasesWhereTheEngineAppliedIt(t *testing.T) {
	res := replay(t, 13400000005384, []event{
		{Kind: evMode, Conv: 1, Var: 7}, // Available from the tray for c1
		{Kind: evRemote, Conv: 1, Var: 1},
		{Kind: evUserType},
		{Kind: evMode, Conv: numConvs, Var: 8}, // Active from the tray for c1, held by the draft
		{Kind: evTypeDuringTyping, Var: 0},
		{Kind: evRemote, Conv: numConvs, Var: 1}, // a mention in c1
		{Kind: evUserSend, Var: 0},
		{Kind: evSwitch, Conv: 5, Var: 1, D: 560 * time.Millisecond},
		{Kind: evMode, Var: 1}, // Available from the pill, the switch to c5 unreported
		{Kind: evSwitch, Conv: 1, Var: 1, D: 304 * time.Millisecond},
		{Kind: evWait, D: 173 * time.Minute},
	})
	if res.stats.mentionsReleased == 0 {
		t.Errorf("no mention was released; the replay no longer changes c1's mode with the mention owed")
	}
}
