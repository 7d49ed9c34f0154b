package run

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/sqlite"
)

// The stored history is repaired once per data folder, at start-up, and the log says what was
// done; later starts leave it alone.
func TestHistoryRepairRunsOnceAndSaysSoInTheLog(t *testing.T) {
	s, err := sqlite.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	es := s.Engine()
	if err := es.SaveConversation(engine.Conversation{ID: "mom", LastProcessed: engine.MessageRef{ID: "j1", Text: "hey"}}); err != nil {
		t.Fatal(err)
	}
	if err := es.RecordMessages("jane", []string{"j1"}); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	repairHistoryOnce(s, log)
	if !strings.Contains(logs.String(), "stored message history checked") || !strings.Contains(logs.String(), "pointers_cleared=1") {
		t.Fatalf("want the repair logged with what it did, got %q", logs.String())
	}
	if done, err := s.Seen(context.Background(), historyRepairName); err != nil || !done {
		t.Fatalf("want the repair recorded as done, got %v (%v)", done, err)
	}
	logs.Reset()
	repairHistoryOnce(s, log)
	if logs.Len() != 0 {
		t.Fatalf("the repair ran again: %q", logs.String())
	}
}
