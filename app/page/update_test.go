package page

import (
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// A message reported before its label is marked LabelPending for the engine, and the label's
// later message_update reaches the engine as MessageUpdated with the sender.
func TestLateLabelReachesTheEngineAsAnUpdateOfThePendingMessage(t *testing.T) {
	l, f := newTestLink(t)
	l.HandleRaw(event(1, "page_state", PageState{State: "conversation", ConversationID: "c1"}))
	bare := Message{ID: "m1", Direction: "in", Text: "lunch?", LabelKind: "none"}
	l.HandleRaw(event(2, "message", NewMessage{ConversationID: "c1", Message: bare}))
	full := bare
	full.Sender, full.LabelKind, full.Timestamp = "Ann", "full", "February 3, 2026 at 6:41 PM"
	l.HandleRaw(event(3, "message_update", MessageUpdate{ConversationID: "c1", Message: full}))
	own := Message{ID: "m2", Direction: "out", Text: "[clanker] hi", LabelKind: "none"}
	l.HandleRaw(event(4, "message", NewMessage{ConversationID: "c1", Message: own}))
	var added []engine.MessageAdded
	var updated []engine.MessageUpdated
	testkit.Until(t, waitLimit, "two messages and one update", func() bool {
		added, updated = nil, nil
		for _, ev := range f.engineEvents() {
			switch e := ev.(type) {
			case engine.MessageAdded:
				added = append(added, e)
			case engine.MessageUpdated:
				updated = append(updated, e)
			}
		}
		return len(added) == 2 && len(updated) == 1
	})
	if !added[0].Message.LabelPending || added[0].Message.Sender != "" {
		t.Errorf("unlabelled incoming message reached the engine as %+v, want LabelPending", added[0].Message)
	}
	if added[1].Message.LabelPending {
		t.Errorf("our own outgoing row is never waited for: %+v", added[1].Message)
	}
	if u := updated[0]; u.Conversation != "c1" || u.Message.ID != "m1" || u.Message.Sender != "Ann" || u.Message.LabelPending {
		t.Errorf("update reached the engine as %+v, want m1 from Ann, labelled", u)
	}
}

// drifts lists the PageDrift events the engine got after the first `from` events.
func drifts(f *fakePage, from int) []engine.PageDrift {
	var out []engine.PageDrift
	for _, ev := range f.engineEvents()[from:] {
		if d, ok := ev.(engine.PageDrift); ok {
			out = append(out, d)
		}
	}
	return out
}

// Issue 27.7 on the link: a failing self-test line that decides who said what or which rows
// are new (critical) pauses Clanker (the engine's PageDrift, whose banner and stillness the
// engine's tests hold), and a later self-test that passes those lines resumes it. A self-test
// that did not check them (a page without a conversation) changes nothing. Every failure is
// logged with the failing selectors; the link shows no banner of its own and changes no page
// state.
func TestAFailingCriticalSelfTestPausesClankerUntilItPasses(t *testing.T) {
	l, f := newTestLink(t)
	l.HandleRaw(event(1, "page_state", PageState{State: "conversation", ConversationID: "c1"}))
	testkit.Until(t, waitLimit, "page state", func() bool { return l.Current() == "c1" })
	before := len(f.engineEvents())
	l.HandleRaw(event(2, "self_test", SelfTest{Checked: "2026-02", State: "conversation", Results: []SelectorResult{
		{Key: "messagePane", Selector: "mws-messages-list", Count: 1, Expect: "some", OK: true, Critical: true},
		{Key: "messageCore", Selector: "[data-e2e-message-wrapper-core]", Count: 0, Expect: "some", Critical: true},
		{Key: "senderLabel", Selector: "mws-text-message-part[aria-label]", Count: 0, Expect: "some", Critical: true},
		{Key: "sidebarList", Selector: "mws-conversations-list", Count: 0, Expect: "one"},
	}}))
	got := drifts(f, before)
	if len(got) != 1 || strings.Join(got[0].Failing, ",") != "messageCore,senderLabel" {
		t.Fatalf("after a failing critical self-test the engine got %+v, want one PageDrift naming messageCore,senderLabel", got)
	}
	if got := l.PageState(); got != "conversation" {
		t.Errorf("page state after a failing self-test = %q, want conversation", got)
	}
	f.mu.Lock()
	logText := f.log.String()
	f.mu.Unlock()
	if !strings.Contains(logText, "messageCore=0(want some, critical)") || !strings.Contains(logText, "sidebarList=0(want one)") {
		t.Errorf("want a log line naming the failing selectors, log was:\n%s", logText)
	}
	// On a page without a conversation the critical lines do not apply: no news either way.
	mid := len(f.engineEvents())
	l.HandleRaw(event(3, "self_test", SelfTest{Checked: "2026-02", State: "no_conversation", Results: []SelectorResult{
		{Key: "sidebarList", Selector: "mws-conversations-list", Count: 1, Expect: "one", OK: true},
	}}))
	if got := drifts(f, mid); len(got) != 0 {
		t.Errorf("a self-test that checked no critical line told the engine %+v", got)
	}
	mid = len(f.engineEvents())
	l.HandleRaw(event(4, "self_test", SelfTest{Checked: "2026-02", State: "conversation", Results: []SelectorResult{
		{Key: "messagePane", Selector: "mws-messages-list", Count: 1, Expect: "some", OK: true, Critical: true},
		{Key: "messageCore", Selector: "[data-e2e-message-wrapper-core]", Count: 12, Expect: "some", OK: true, Critical: true},
		{Key: "senderLabel", Selector: "mws-text-message-part[aria-label]", Count: 12, Expect: "some", OK: true, Critical: true},
		{Key: "sidebarList", Selector: "mws-conversations-list", Count: 0, Expect: "one"},
	}}))
	if got := drifts(f, mid); len(got) != 1 || len(got[0].Failing) != 0 {
		t.Fatalf("after the critical lines passed again the engine got %+v, want one PageDrift with none failing (resume)", got)
	}
	for _, c := range f.commands() {
		if c.Type == "show_banner" {
			t.Errorf("the link showed a banner of its own for a self-test: %s", c.Args)
		}
	}
}

// A failing self-test line that decides neither who said what nor which rows are new is
// logged with the failing selectors and changes nothing else: the engine is told no drift,
// no banner is shown, the page state stays.
func TestAFailingNonCriticalSelfTestIsOnlyLogged(t *testing.T) {
	l, f := newTestLink(t)
	l.HandleRaw(event(1, "page_state", PageState{State: "conversation", ConversationID: "c1"}))
	testkit.Until(t, waitLimit, "page state", func() bool { return l.Current() == "c1" })
	before := len(f.engineEvents())
	l.HandleRaw(event(2, "self_test", SelfTest{Checked: "2026-02", State: "conversation", Results: []SelectorResult{
		{Key: "headerTitle", Selector: "[data-e2e-header-title]", Count: 0, Expect: "one"},
		{Key: "sidebarList", Selector: "mws-conversations-list", Count: 0, Expect: "one"},
		{Key: "messageCore", Selector: "[data-e2e-message-wrapper-core]", Count: 12, Expect: "some", OK: true, Critical: true},
	}}))
	if got := l.BannerText(); got != "" {
		t.Errorf("banner after a failing self-test = %q, want none", got)
	}
	if got := l.PageState(); got != "conversation" {
		t.Errorf("page state after a failing self-test = %q, want conversation", got)
	}
	for _, ev := range f.engineEvents()[before:] {
		if d, ok := ev.(engine.PageDrift); !ok || len(d.Failing) != 0 {
			t.Errorf("a non-critical failing self-test sent the engine %#v", ev)
		}
	}
	for _, c := range f.commands() {
		if c.Type == "show_banner" {
			t.Errorf("a failing self-test showed a banner: %s", c.Args)
		}
	}
	f.mu.Lock()
	logText := f.log.String()
	f.mu.Unlock()
	if !strings.Contains(logText, "self-test") || !strings.Contains(logText, "headerTitle=0") || !strings.Contains(logText, "sidebarList=0") {
		t.Errorf("want a log line naming the failing selectors, log was:\n%s", logText)
	}
}
