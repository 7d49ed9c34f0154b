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

// Selector drift reported by the self-test is logged with the failing selectors and
// changes nothing else: no banner, no page-state change for the engine.
func TestFailingSelfTestIsOnlyLogged(t *testing.T) {
	l, f := newTestLink(t)
	l.HandleRaw(event(1, "page_state", PageState{State: "conversation", ConversationID: "c1"}))
	testkit.Until(t, waitLimit, "page state", func() bool { return l.Current() == "c1" })
	before := len(f.engineEvents())
	l.HandleRaw(event(2, "self_test", SelfTest{Checked: "2026-02", State: "conversation", Results: []SelectorResult{
		{Key: "messagesList", Selector: "mws-messages-list", Count: 0, Expect: "one"},
		{Key: "sidebarList", Selector: "mws-conversations-list", Count: 0, Expect: "one"},
		{Key: "messageCore", Selector: "[data-e2e-message-wrapper-core]", Count: 12, Expect: "some", OK: true},
	}}))
	if got := l.BannerText(); got != "" {
		t.Errorf("banner after a failing self-test = %q, want none", got)
	}
	if got := l.PageState(); got != "conversation" {
		t.Errorf("page state after a failing self-test = %q, want conversation", got)
	}
	if evs := f.engineEvents(); len(evs) != before {
		t.Errorf("a failing self-test sent the engine %#v", evs[before:])
	}
	for _, c := range f.commands() {
		if c.Type == "show_banner" {
			t.Errorf("a failing self-test showed a banner: %s", c.Args)
		}
	}
	f.mu.Lock()
	logText := f.log.String()
	f.mu.Unlock()
	if !strings.Contains(logText, "self-test") || !strings.Contains(logText, "messagesList=0") || !strings.Contains(logText, "sidebarList=0") {
		t.Errorf("want a log line naming the failing selectors, log was:\n%s", logText)
	}
}
