package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

func TestMemoryEditRequestsAreAppliedOnceAndCanBeWithdrawn(t *testing.T) {
	s := openAt(t, t.TempDir())
	ctx := context.Background()
	if err := s.SetMode(ctx, "c1", engine.ModeActive); err != nil {
		t.Fatal(err)
	}
	if err := s.SetModelOverride(ctx, "c1", "special"); err != nil {
		t.Fatal(err)
	}
	watchCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	changes, err := s.Watch(watchCtx, 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	id, err := s.RequestMemoryEdit(ctx, "c1", engine.Memory{Summary: "new", Profiles: map[string]string{"Ann": "tea"}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case ch := <-changes:
		if !ch.MemoryEdits {
			t.Fatalf("watch reported %+v, want a memory edit", ch)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the watcher did not report the memory edit request")
	}
	pending, err := s.PendingMemoryEdits(ctx)
	if err != nil || len(pending) != 1 || pending[0].ID != id || pending[0].Memory.Profiles["Ann"] != "tea" {
		t.Fatalf("pending: %+v, %v", pending, err)
	}
	if c, _, _ := s.Conversation(ctx, "c1"); c.Memory.Summary != "" {
		t.Fatal("a request alone must not change the memory")
	}
	if ok, err := s.ApplyMemoryEdit(ctx, id); !ok || err != nil {
		t.Fatalf("apply: %v %v", ok, err)
	}
	c, _, _ := s.Conversation(ctx, "c1")
	if c.Memory.Summary != "new" || c.Memory.Profiles["Ann"] != "tea" || c.Mode != engine.ModeActive || c.ModelOverride != "special" {
		t.Fatalf("after the edit: %+v; want the memory replaced, mode and model kept", c)
	}
	if ok, _ := s.ApplyMemoryEdit(ctx, id); ok {
		t.Fatal("an edit was applied twice")
	}
	if withdrawn, _ := s.CancelMemoryEdit(ctx, id); withdrawn {
		t.Fatal("an applied edit was withdrawn")
	}
	if state, _, _ := s.MemoryEditState(ctx, id); state != EditDone {
		t.Fatalf("state %q, want done", state)
	}

	// A withdrawn request is never applied.
	id2, err := s.RequestMemoryEdit(ctx, "c1", engine.Memory{})
	if err != nil {
		t.Fatal(err)
	}
	if withdrawn, err := s.CancelMemoryEdit(ctx, id2); !withdrawn || err != nil {
		t.Fatalf("withdraw: %v %v", withdrawn, err)
	}
	if ok, _ := s.ApplyMemoryEdit(ctx, id2); ok {
		t.Fatal("a withdrawn edit was applied")
	}
	if c, _, _ := s.Conversation(ctx, "c1"); c.Memory.Summary != "new" {
		t.Fatalf("the withdrawn clear changed the memory to %+v", c.Memory)
	}
	// Finished requests are removed when the next one is made.
	id3, _ := s.RequestMemoryEdit(ctx, "c1", engine.Memory{Summary: "x"})
	if err := s.FailMemoryEdit(ctx, id3, "disk full"); err != nil {
		t.Fatal(err)
	}
	if state, reason, _ := s.MemoryEditState(ctx, id3); state != EditFailed || reason != "disk full" {
		t.Fatalf("failed edit: %q %q", state, reason)
	}
	if _, err := s.RequestMemoryEdit(ctx, "c1", engine.Memory{Summary: "y"}); err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := s.db.QueryRow(`SELECT count(*) FROM memory_edits`).Scan(&rows); err != nil || rows != 1 {
		t.Fatalf("memory_edits holds %d rows (%v); want only the pending one", rows, err)
	}
}

func TestMemoryEditRequestsRefuseOversizedText(t *testing.T) {
	s := openAt(t, t.TempDir())
	if _, err := s.RequestMemoryEdit(context.Background(), "c1", engine.Memory{Summary: strings.Repeat("a", MaxTextBytes+1)}); err == nil {
		t.Fatal("an oversized summary was accepted")
	}
	if _, err := s.RequestMemoryEdit(context.Background(), "", engine.Memory{}); err == nil {
		t.Fatal("an empty conversation id was accepted")
	}
}

// With no app running the editor writes the store itself; with one running it waits for
// the app, and withdraws the request when the app does not take it in time.
func TestMemoryEditorWritesDirectlyOrWaitsForTheApp(t *testing.T) {
	s := openAt(t, t.TempDir())
	ctx := context.Background()
	direct := MemoryEditor{Store: s}
	if err := direct.EditMemory(ctx, "c1", engine.Memory{Summary: "direct"}); err != nil {
		t.Fatal(err)
	}
	if c, _, _ := s.Conversation(ctx, "c1"); c.Memory.Summary != "direct" {
		t.Fatalf("direct edit stored %q", c.Memory.Summary)
	}
	noAnswer := MemoryEditor{Store: s, AppRunning: func() bool { return true }, Poll: 5 * time.Millisecond, Wait: 50 * time.Millisecond}
	err := noAnswer.EditMemory(ctx, "c1", engine.Memory{Summary: "never"})
	var p engine.Problem
	if !errors.As(err, &p) || !strings.Contains(err.Error(), "did not take the change") || !strings.Contains(err.Error(), "Nothing was changed") {
		t.Fatalf("an app that never answers: got %v; want a sentence that nothing was changed", err)
	}
	if pending, _ := s.PendingMemoryEdits(ctx); len(pending) != 0 {
		t.Fatalf("the withdrawn request is still pending: %+v", pending)
	}
	if c, _, _ := s.Conversation(ctx, "c1"); c.Memory.Summary != "direct" {
		t.Fatalf("the withdrawn edit was written: %q", c.Memory.Summary)
	}
}

func TestOpenReadOnlyRefusesWritesAndSaysWhere(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckCanWrite(); err != nil {
		t.Fatalf("a writable store: %v", err)
	}
	if err := s.SaveMemory(context.Background(), "c1", engine.Memory{Summary: "kept"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	ro, err := openReadOnlyAt(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	var nw *NotWritableError
	if err := ro.CheckCanWrite(); !errors.As(err, &nw) || nw.Path != filepath.Join(dir, FileName) {
		t.Fatalf("CheckCanWrite on a read-only store: %v", err)
	}
	if err := ro.SaveMemory(context.Background(), "c1", engine.Memory{Summary: "new"}); err == nil {
		t.Fatal("a write on a read-only store succeeded")
	}
	if c, _, _ := ro.Conversation(context.Background(), "c1"); c.Memory.Summary != "kept" {
		t.Fatalf("read back %q", c.Memory.Summary)
	}
	if _, err := openReadOnlyAt(t.TempDir()); err == nil {
		t.Fatal("openReadOnlyAt on a folder without a database must fail, not create one")
	}
}

func TestUsageListsTheRecordsInTheRange(t *testing.T) {
	s := openAt(t, t.TempDir())
	ctx := context.Background()
	base := time.Date(2026, 11, 10, 12, 0, 0, 0, time.UTC)
	for i, conv := range []string{"a", "b", "c"} {
		if err := s.RecordUsage(ctx, engine.Usage{Conversation: engine.ConversationID(conv), Model: "m",
			Tokens: engine.Tokens{Prompt: int64(i + 1)}, At: base.AddDate(0, 0, i)}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Usage(ctx, base, base.AddDate(0, 0, 2))
	if err != nil || len(got) != 2 || got[0].Conversation != "a" || got[1].Conversation != "b" {
		t.Fatalf("usage in range: %+v, %v", got, err)
	}
}
