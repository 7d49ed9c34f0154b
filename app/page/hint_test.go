package page

import (
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// hintCommands lists the pill and hint commands the page got, as "type arg" strings.
func (f *fakePage) hintCommands() []string {
	var out []string
	for _, c := range f.commands() {
		switch c.Type {
		case "show_hint":
			var a ShowHint
			_ = json.Unmarshal(c.Args, &a)
			out = append(out, "show_hint "+a.Text)
		case "hide_hint":
			out = append(out, "hide_hint")
		}
	}
	return out
}

// waitPill waits until the n-th pill command (counting from 1) has reached the page.
func waitPill(t *testing.T, f *fakePage, n int) {
	t.Helper()
	testkit.Until(t, waitLimit, "the pill command", func() bool { return len(f.statusCommands()) >= n })
}

func lastHint(f *fakePage) string {
	c := f.hintCommands()
	if len(c) == 0 {
		return ""
	}
	return c[len(c)-1]
}

// The hint shows only beside a pill whose menu can change the mode, right after that
// pill, and follows the pill across conversations and reloads until the user dismisses it.
func TestTheHintShowsBesideAnUnlockedPillUntilDismissed(t *testing.T) {
	l, f := newTestLink(t)
	var done atomic.Int32
	l.cfg.OnHintDone = func() { done.Add(1) }
	l.SetHint("Switch Clanker on here")
	if got := f.hintCommands(); len(got) != 0 {
		t.Fatalf("with no pill on the page the hint was sent: %q", got)
	}

	// Settings unfinished: the pill is locked, so no hint.
	l.HandleRaw(event(1, "conversation", Conversation{ConversationID: "c1", Participants: []string{"Bob"}}))
	l.Do(engine.Command{ID: 1, Kind: engine.CmdStatus, Text: "uninitialized"})
	waitPill(t, f, 2)
	if l.HintShown() || lastHint(f) == "show_hint Switch Clanker on here" {
		t.Fatalf("hint shown beside a locked pill: %q", f.hintCommands())
	}

	l.Do(engine.Command{ID: 2, Kind: engine.CmdStatus, Text: "deactivated"})
	testkit.Until(t, waitLimit, "the hint", func() bool { return lastHint(f) == "show_hint Switch Clanker on here" })
	if !l.HintShown() {
		t.Fatal("HintShown is false while the page shows the hint")
	}
	// The hint comes right after the pill it points at.
	cmds := f.commands()
	for i, c := range cmds {
		if c.Type == "show_hint" && (i == 0 || cmds[i-1].Type != "set_status") {
			t.Fatalf("show_hint at %d follows %q, want set_status", i, cmds[i-1].Type)
		}
	}

	// An automated conversation locks the pill: the hint goes, and comes back after.
	l.Do(engine.Command{ID: 3, Kind: engine.CmdSetAutomated, Text: "true"})
	f.resultFor(t, 3)
	if lastHint(f) != "hide_hint" || l.HintShown() {
		t.Fatalf("automated conversation: hint commands %q, want it hidden", f.hintCommands())
	}
	l.Do(engine.Command{ID: 4, Kind: engine.CmdSetAutomated, Text: "false"})
	f.resultFor(t, 4)
	if lastHint(f) != "show_hint Switch Clanker on here" {
		t.Fatalf("back in a normal conversation: hint commands %q, want it shown again", f.hintCommands())
	}

	// A reload brings the pill and the hint back.
	n := len(f.hintCommands())
	l.HandleRaw(event(1, "hello", Hello{Bridge: "clanker-bridge/1", Transport: "test", URL: "https://messages.google.com/web", ReadyState: "complete", SelectorsChecked: "2026-02-15"}))
	testkit.Until(t, waitLimit, "the hint after a reload", func() bool { return len(f.hintCommands()) > n })
	if lastHint(f) != "show_hint Switch Clanker on here" {
		t.Fatalf("after a reload: hint commands %q", f.hintCommands())
	}

	l.HandleRaw(event(2, "hint_dismissed", struct{}{}))
	testkit.Until(t, waitLimit, "the app to be told the hint is done", func() bool { return done.Load() == 1 })
	if l.HintShown() || lastHint(f) != "hide_hint" {
		t.Fatalf("after the dismissal: shown %v, commands %q", l.HintShown(), f.hintCommands())
	}
	// Later pills come without it.
	n = len(f.hintCommands())
	p := len(f.statusCommands())
	l.Do(engine.Command{ID: 5, Kind: engine.CmdStatus, Text: "available"})
	waitPill(t, f, p+1)
	if len(f.hintCommands()) != n {
		t.Fatalf("hint commands after the dismissal: %q", f.hintCommands()[n:])
	}
	// A second dismissal (a stale page) does not call the app again.
	l.HandleRaw(event(3, "hint_dismissed", struct{}{}))
	l.HandleRaw(event(4, "page_state", PageState{State: "conversation", ConversationID: "c1"}))
	if done.Load() != 1 {
		t.Fatalf("OnHintDone called %d times, want once", done.Load())
	}
}

// Choosing a mode in the pill's menu is what the hint asks for: it is done with.
func TestChoosingAModeInThePillEndsTheHint(t *testing.T) {
	l, f := newTestLink(t)
	done := make(chan struct{}, 1)
	l.cfg.OnHintDone = func() { done <- struct{}{} }
	l.SetHint("Switch Clanker on here")
	l.HandleRaw(event(1, "conversation", Conversation{ConversationID: "c1", Participants: []string{"Bob"}}))
	l.Do(engine.Command{ID: 1, Kind: engine.CmdStatus, Text: "deactivated"})
	testkit.Until(t, waitLimit, "the hint", func() bool { return l.HintShown() })
	l.HandleRaw(event(2, "mode_menu", ModeMenu{ConversationID: "c1", Choice: "available"}))
	<-done
	if l.HintShown() || lastHint(f) != "hide_hint" {
		t.Fatalf("after a mode choice: shown %v, commands %q", l.HintShown(), f.hintCommands())
	}
	var asked bool
	for _, ev := range f.engineEvents() {
		if sm, ok := ev.(engine.SetMode); ok && sm.Mode == engine.ModeAvailable {
			asked = true
		}
	}
	if !asked {
		t.Fatal("the mode choice did not reach the engine")
	}
	// SetHint("") (the app saw a mode change elsewhere) on an already ended hint is quiet.
	n := len(f.commands())
	l.SetHint("")
	if len(f.commands()) != n {
		t.Fatalf("SetHint(\"\") with no hint sent %v", f.commands()[n:])
	}
}
