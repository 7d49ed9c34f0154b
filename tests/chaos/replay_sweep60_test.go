package chaos

import (
	"testing"
	"time"
)

// Seeds found by the sweep of 2026-11-28 (bases 60000000 and up; see SWEEPS.md), kept as
// replays of their shortened event lists.

// Engine: the decided point named c0's Available notice by its pending id, which the page
// replaced while the user was in c2. Someone addressed Clanker in c0 meanwhile; on the
// user's return Clanker posted the Available notice again (the tray had changed the mode),
// and the decided point, matched by text, landed on that newer notice: the answer to the
// mention was dropped as answering nothing owed.
func TestChaosReplayDecidedPointOnARenamedNoticeKeepsTheMentionOwed(t *testing.T) {
	res := replay(t, 60000843, []event{
		{Kind: evMode, Conv: 4, Var: modeAvailableMenu},
		{Kind: evMode, Conv: 0, Var: modeActiveMenu},
		{Kind: evSwitch, Conv: 2, D: 377 * time.Millisecond},
		{Kind: evHop, Conv: 0, Var: 0},
		{Kind: evIDSwap},
		{Kind: evMode, Conv: 0, Var: 7}, // Available from the tray for c0
		{Kind: evWait, D: 2336 * time.Millisecond},
		{Kind: evRemote, Conv: numConvs, Var: 0}, // plain
		{Kind: evRemote, Conv: 0, Var: 13},       // a mention in c0, off screen
		{Kind: evSwitch, Conv: 0, D: 368 * time.Millisecond},
	})
	if res.stats.mentionsAnswered == 0 {
		t.Errorf("the mention in c0 was never answered; the replay no longer reaches the renamed notice")
	}
}

// Engine: the user left a draft in c4 and opened c2; hours later someone addressed Clanker in
// c4 and Clanker visited it. The page restored the draft there, and the engine took its report
// for the user typing during the visit: it cancelled the visit like the Cancel button, released
// the mention and stayed quiet in c4 after the user sent the draft. Only a key press (reported
// as a cancel) releases; a draft found in the box makes the answer wait for it.
func TestChaosReplayDraftFoundByAVisitKeepsTheMentionOwed(t *testing.T) {
	res := replay(t, 60000538, []event{
		{Kind: evSwitch, Conv: 4, Var: 1, D: 385 * time.Millisecond},
		{Kind: evWait, D: 2376 * time.Millisecond},
		{Kind: evMode, Conv: numConvs, Var: 7}, // Available from the tray for the foreground
		{Kind: evUserType},
		{Kind: evSwitch, Conv: 2, D: 114 * time.Millisecond},
		{Kind: evWait, D: 157 * time.Minute},
		{Kind: evRemote, Conv: 4, Var: 4}, // mention+image in c4: visited
		{Kind: evUserSend, Var: 2},        // the user, left in c4, sends the draft found there
		{Kind: evWait, D: 116 * time.Minute},
	})
	if res.stats.mentionsAnswered == 0 {
		t.Errorf("the mention in c4 was never answered; the replay no longer visits c4 with the draft")
	}
}

// Engine, on a page whose old pane lingers (seed%4 == 1): Clanker's half-typed reply stayed in
// c0's box when the user opened c4. Back in c0 the first reports carried c4's rows, and the
// engine, rightly doubting them, also left its own text in the box until a view it believed
// came three seconds later; the user was typing into the box by then. The text comes out as
// soon as the conversation is shown.
func TestChaosReplayPartialTextComesOutWhileALingeringViewIsDoubted(t *testing.T) {
	res := replay(t, 60000465, []event{
		{Kind: evMode, Conv: numConvs, Var: modeActiveMenu},
		{Kind: evLLM, Var: int(outJSON), D: 1424 * time.Millisecond},
		{Kind: evWait, D: 177 * time.Second},
		{Kind: evUserSend, Var: 2},
		{Kind: evWait, D: 3 * time.Second}, // Clanker is typing its answer
		{Kind: evSwitch, Conv: 4, D: 284 * time.Millisecond},
		{Kind: evRemote, Conv: numConvs, Var: 1}, // a mention in c4
		{Kind: evSwitch, Conv: 0, D: 344 * time.Millisecond},
		{Kind: evTypeDuringTyping, Var: 0},
	})
	// With the text taken out at once, the typing step finds no text of Clanker's to type
	// into; before, it found the leftover and the check above failed.
	if res.stats.mixedViews == 0 {
		t.Errorf("no report carried another conversation's rows; the replay no longer doubts c0's view")
	}
}

// Engine: c0 went from Active to Available behind the user's draft; someone named Clanker, the
// user named it too, the Available notice went out, and another Clanker answered the notice
// while Clanker typed its answer and the user typed over it. The held answer was stale, and the
// new request was dropped as a ping-pong, releasing the mention without a word. The answer is
// now asked with the conversation up to the newest human message.
func TestChaosReplayMentionBeforeAnotherClankerAnsweredOurNoticeIsAnswered(t *testing.T) {
	res := replay(t, 60001857, []event{
		{Kind: evMode, Conv: numConvs, Var: modeActiveMenu},
		{Kind: evVisitClick, Conv: 2, Var: 1}, // no visit comes: nothing to cancel
		{Kind: evUserType},
		{Kind: evMode, Conv: numConvs, Var: 1}, // Available from the pill
		{Kind: evWait, D: 7 * time.Second},
		{Kind: evTypeDuringTyping, Var: 0},
		{Kind: evRemote, Conv: numConvs, Var: 13}, // a mention
		{Kind: evWait, D: 945 * time.Millisecond},
		{Kind: evWait, D: 1225 * time.Millisecond},
		{Kind: evWait, D: 11 * time.Second},
		{Kind: evUserSend, Var: 0}, // naming clanker
		{Kind: evWait, D: 2213 * time.Millisecond},
		{Kind: evRemote, Conv: numConvs, Var: 17}, // another Clanker naming clanker
		{Kind: evTypeDuringTyping, Var: 0},
		{Kind: evWait, D: 173 * time.Minute},
	})
	if res.stats.mentionsAnswered == 0 {
		t.Errorf("the mention was never answered; the replay no longer reaches the other Clanker's answer to our notice")
	}
}

// Engine: c1 was switched from Active to Available from the tray while the user's switch to c3
// was unreported; a mention came in c1, Clanker visited it and posted the owed notice after
// the mention, and the engine restarted while the answer was computed. The new engine took the
// notice, which it had not posted itself, for an answer given elsewhere to what came before it.
func TestChaosReplayNoticeFromBeforeARestartAnswersNothing(t *testing.T) {
	res := replay(t, 4100001298, []event{
		{Kind: evSwitch, Conv: 1, Var: 1, D: 504 * time.Millisecond},
		{Kind: evMode, Conv: 5, Var: modeActiveMenu},
		{Kind: evWait, D: 9 * time.Second},
		{Kind: evSwitch, Conv: 3, Var: 1, D: 390 * time.Millisecond},
		{Kind: evMode, Conv: 1, Var: 7}, // Available from the tray for c1
		{Kind: evWait, D: 7 * time.Second},
		{Kind: evRemote, Conv: 1, Var: 10}, // mention+image in c1: visited
		{Kind: evRestart},
	})
	if res.stats.mentionsAnswered == 0 {
		t.Errorf("the mention in c1 was never answered; the replay no longer restarts during its visit")
	}
}
