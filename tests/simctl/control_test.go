package simctl

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/app/demo/sim"
)

func startTest(t *testing.T, o sim.Options) *Control {
	t.Helper()
	o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := Start(o)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s.Control()
}

func TestBadControlInputGetsAClearErrorAndChangesNothing(t *testing.T) {
	ctl := startTest(t, sim.Options{Empty: true})
	conv, _ := ctl.CreateConversation(sim.NewConversation{Participants: []string{"Bob"}})
	cases := []struct {
		name string
		call func() error
		want string
	}{
		{"no participants", func() error { _, err := ctl.CreateConversation(sim.NewConversation{}); return err }, "at least one participant"},
		{"unknown conversation", func() error { _, err := ctl.Deliver("nope", sim.Message{From: "x", Text: "y"}); return err }, `404 Not Found: deliver: no conversation "nope"`},
		{"no sender", func() error { _, err := ctl.Deliver(conv.ID, sim.Message{Text: "y"}); return err }, "needs a sender"},
		{"sender You", func() error { _, err := ctl.Deliver(conv.ID, sim.Message{From: "You", Text: "y"}); return err }, "local user"},
		{"empty", func() error { _, err := ctl.Deliver(conv.ID, sim.Message{From: "Bob"}); return err }, "needs text"},
		{"unknown image", func() error { _, err := ctl.Deliver(conv.ID, sim.Message{From: "Bob", Image: "x.bmp"}); return err }, "unknown image"},
		{"reaction to nothing", func() error {
			_, err := ctl.Deliver(conv.ID, sim.Message{Reaction: &sim.Reaction{Target: "zz", From: "Bob", Kind: "love"}})
			return err
		}, `no message "zz"`},
		{"bad swap mode", func() error { _, err := ctl.SwapPendingIDs("sideways"); return err }, "unknown mode"},
		{"bad variant", func() error { return ctl.SetVariant("purple") }, "unknown variant"},
		{"draft without page", func() error { return ctl.UserTypesDraft("x") }, "409 Conflict: draft: no page is connected"},
		{"load older zero", func() error { return ctl.LoadOlder(0) }, "400 Bad Request: load older: count 0 must be 1..1000"},
		{"click nothing", func() error { return ctl.ClickConversation("nope") }, `404 Not Found: click: no conversation "nope"`},
	}
	for _, c := range cases {
		err := c.call()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error = %v, want one containing %q", c.name, err, c.want)
		}
	}
	ms, _ := ctl.Messages(conv.ID)
	if len(ms) != 0 {
		t.Errorf("messages after bad input = %d, want 0", len(ms))
	}
	resp, err := http.Post(ctl.base+"/__sim/deliver", "application/json", strings.NewReader(`{"conversation":"x","bogus":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("unknown JSON field: status %d, want 400", resp.StatusCode)
	}
}

func TestControlCallsReachTheSimulatorAndReportItsState(t *testing.T) {
	ctl := startTest(t, sim.Options{Empty: true})
	conv, err := ctl.CreateConversation(sim.NewConversation{Participants: []string{"Dad", "Mom"}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := ctl.Deliver(conv.ID, sim.Message{From: "Mom", Text: "hi clank"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Mom said: hi clank. Received on February 3, 2026 at 6:41 PM."; m.TextLabel() != want {
		t.Errorf("delivered label = %q, want %q", m.TextLabel(), want)
	}
	byName, err := ctl.ConversationByName("Dad, Mom")
	if err != nil || byName.ID != conv.ID || byName.Snippet != "Mom: hi clank" {
		t.Errorf("ConversationByName = %+v, %v; want %s with snippet %q", byName, err, conv.ID, "Mom: hi clank")
	}
	if err := ctl.SetVariant(sim.VariantSignedOut, sim.VariantSlow); err != nil {
		t.Fatal(err)
	}
	st, err := ctl.Status()
	if err != nil {
		t.Fatal(err)
	}
	if st.SignedIn || len(st.Variants) != 2 || st.Pages != 0 {
		t.Errorf("status after SetVariant = %+v, want signed out with two variants and no page", st)
	}
	if err := ctl.Reset(); err != nil {
		t.Fatal(err)
	}
	cs, err := ctl.Conversations()
	if err != nil || len(cs) != 0 {
		t.Errorf("conversations after reset of an empty simulator = %v, %v; want none", cs, err)
	}
	if sent, err := ctl.Sent(); err != nil || len(sent) != 0 {
		t.Errorf("sent log = %v, %v; want empty", sent, err)
	}
}
