package sqlite

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/diag"
	"github.com/clanker-desktop/clanker/app/engine"
)

func TestDiagnosticsCombineStoredDataWithTheEngineSnapshotAndNeverTheKey(t *testing.T) {
	s, _ := openTest(t)
	s.Secrets = nil // keep the key in the database, the place a careless dump would find it
	ctx := context.Background()
	const key = "sk-proj-DIAGNOSTICSsecretKEY1234567890"
	if _, err := s.SetAPIKey(ctx, key); err != nil {
		t.Fatal(err)
	}
	st := engine.DefaultSettings()
	st.UserName, st.Model = "Dana Whitfield", "grok-4"
	if _, err := s.SaveSettings(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMode(ctx, "stored", engine.ModeActive); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveMemory(ctx, "stored", engine.Memory{Summary: "Ann plans a trip", Profiles: map[string]string{"Ann Lee": "likes tea"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetLastMessage(ctx, "stored", engine.MessageRef{ID: "m1", Sender: "Ann Lee", Text: "hi clanker"}); err != nil {
		t.Fatal(err)
	}
	snap := engine.Snapshot{
		PageState: engine.PageReady, Configured: true, Generation: 7, QueuedSends: 1,
		InFlight:   &engine.InFlightSnapshot{Conversation: "stored", Kind: engine.RequestReply, Generation: 7},
		Foreground: &engine.ForegroundSnapshot{ID: "on-screen", Mode: engine.ModeDeactivated, StoredMode: engine.ModeDeactivated, Messages: 12, Pending: true, PendingFiresIn: 1500 * time.Millisecond},
	}
	got, err := s.Diagnostics(ctx, snap)
	if err != nil {
		t.Fatalf("Diagnostics: %v", err)
	}
	if got.UserName != "Dana Whitfield" || got.Settings["model"] != "grok-4" {
		t.Errorf("user %q, settings %v; want the stored user name and model", got.UserName, got.Settings)
	}
	if got.Fields["inFlight"] != "reply request for stored (generation 7)" || got.Fields["queuedSends"] != "1" || got.Fields["pageState"] != "ready" {
		t.Errorf("engine fields = %v; want in-flight, queued sends and page state", got.Fields)
	}
	if !strings.Contains(got.Fields["migrations"], "0003_engine_times.sql") {
		t.Errorf("migrations field = %q, want the applied list", got.Fields["migrations"])
	}
	if len(got.Conversations) != 2 || got.Conversations[0].ID != "on-screen" || got.Conversations[0].Fields["onScreen"] != "true" ||
		got.Conversations[0].Fields["stored"] != "false" || got.Conversations[0].Fields["replyPendingIn"] != "1.5s" {
		t.Fatalf("conversations = %+v; want the unstored foreground first, marked on screen with its pending reply, then the stored one", got.Conversations)
	}
	c := got.Conversations[1]
	if c.ID != "stored" || c.Mode != "active" || c.Summary != "Ann plans a trip" || c.LastMessage == nil || c.LastMessage.Sender != "Ann Lee" {
		t.Errorf("stored conversation = %+v; want mode, summary and last message", c)
	}
	raw, _ := json.Marshal(got)
	if strings.Contains(string(raw), key) || strings.Contains(string(raw), "DIAGNOSTICSsecret") {
		t.Errorf("raw diagnostics contain the API key: %s", raw)
	}
	shared, _ := diag.JSON(diag.Sanitize(got, key))
	for _, private := range []string{"Dana Whitfield", "Ann Lee", "hi clanker", key} {
		if strings.Contains(string(shared), private) {
			t.Errorf("sanitised diagnostics still contain %q", private)
		}
	}
}
