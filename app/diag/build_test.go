package diag

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

func TestBuildCombinesStoredConversationsWithTheEngineSnapshot(t *testing.T) {
	const key = "sk-proj-DIAGNOSTICSsecretKEY1234567890"
	st := engine.DefaultSettings()
	st.UserName, st.Model = "Dana Whitfield", "grok-4"
	in := Input{
		Now:      time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC),
		Settings: st,
		Conversations: []engine.Conversation{{
			ID: "stored", Mode: engine.ModeActive,
			Memory:        engine.Memory{Summary: "Ann plans a trip", Profiles: map[string]string{"Ann Lee": "likes tea"}},
			LastProcessed: engine.MessageRef{ID: "m1", Sender: "Ann Lee", Text: "hi clanker"},
		}},
		Engine: engine.Snapshot{
			PageState: engine.PageReady, Configured: true, Generation: 7, QueuedSends: 1,
			InFlight:   &engine.InFlightSnapshot{Conversation: "stored", Kind: engine.RequestReply, Generation: 7},
			Foreground: &engine.ForegroundSnapshot{ID: "on-screen", Mode: engine.ModeDeactivated, StoredMode: engine.ModeDeactivated, Messages: 12, Pending: true, PendingFiresIn: 1500 * time.Millisecond},
		},
		Migrations: []string{"0001_base.sql", "0003_engine_times.sql"},
		Notes:      []string{"database recovered"},
	}
	got := Build(in)
	if got.UserName != "Dana Whitfield" || got.Settings["model"] != "grok-4" || got.Settings["historySize"] != "20" {
		t.Errorf("user %q, settings %v; want the user name and the settings by their JSON names", got.UserName, got.Settings)
	}
	if got.Fields["inFlight"] != "reply request for stored (generation 7)" || got.Fields["queuedSends"] != "1" || got.Fields["pageState"] != "ready" {
		t.Errorf("engine fields = %v; want in-flight, queued sends and page state", got.Fields)
	}
	if !strings.Contains(got.Fields["migrations"], "0003_engine_times.sql") || len(got.Notes) != 1 {
		t.Errorf("migrations field = %q, notes %q; want the applied list and the note", got.Fields["migrations"], got.Notes)
	}
	if len(got.Conversations) != 2 || got.Conversations[0].ID != "on-screen" || got.Conversations[0].Fields["onScreen"] != "true" ||
		got.Conversations[0].Fields["stored"] != "false" || got.Conversations[0].Fields["replyPendingIn"] != "1.5s" {
		t.Fatalf("conversations = %+v; want the unstored foreground first, marked on screen with its pending reply, then the stored one", got.Conversations)
	}
	c := got.Conversations[1]
	if c.ID != "stored" || c.Mode != "active" || c.Summary != "Ann plans a trip" || c.LastMessage == nil || c.LastMessage.Sender != "Ann Lee" || c.LastMessage.IsClanker {
		t.Errorf("stored conversation = %+v; want mode, summary and last message", c)
	}
	shared, _ := JSON(Sanitize(got, key))
	for _, private := range []string{"Dana Whitfield", "Ann Lee", "hi clanker"} {
		if strings.Contains(string(shared), private) {
			t.Errorf("sanitised diagnostics still contain %q", private)
		}
	}
	raw, _ := json.Marshal(got)
	if !strings.Contains(string(raw), "Dana Whitfield") {
		t.Errorf("the raw report lost the user name, which the unsanitised view shows: %s", raw)
	}
}
