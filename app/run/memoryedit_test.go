package run

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/sqlite"
	"github.com/clanker-desktop/clanker/tests/enginefake"
)

// memoryApp is an App with a store, a running engine and, with watch, the store watcher:
// what a memory edit from the settings window meets.
func memoryApp(t *testing.T, watch bool) *App {
	t.Helper()
	a := &App{log: slog.New(slog.DiscardHandler)}
	a.ctx, a.cancel = context.WithCancel(context.Background())
	t.Cleanup(a.cancel)
	a.store = openTestStore(t)
	eng, err := engine.New(engine.Config{Page: enginefake.NewPage(), Store: a.store.Engine(), LLM: &enginefake.LLM{}, Logger: a.log})
	if err != nil {
		t.Fatal(err)
	}
	a.eng = eng
	done := make(chan struct{})
	go func() { _ = eng.Run(a.ctx); close(done) }()
	t.Cleanup(func() { a.cancel(); <-done })
	if err := a.reload(); err != nil {
		t.Fatal(err)
	}
	if !watch {
		return a
	}
	changes, err := a.store.Watch(a.ctx, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	go a.watch(changes)
	return a
}

// The settings window hands an edit to the running app through the store; the app's watcher
// carries it out through the engine and the window learns the outcome.
func TestMemoryEditFromTheSettingsWindowIsCarriedOutByTheRunningApp(t *testing.T) {
	a := memoryApp(t, true)
	ctx := context.Background()
	if err := a.store.SaveMemory(ctx, "c1", engine.Memory{Summary: "old", Customization: "pirate"}); err != nil {
		t.Fatal(err)
	}
	ed := sqlite.MemoryEditor{Store: a.store, AppRunning: func() bool { return true }, Poll: 10 * time.Millisecond, Wait: 30 * time.Second}
	if err := ed.EditMemory(ctx, "c1", engine.Memory{Summary: "new", Profiles: map[string]string{"Ann": "tea"}}); err != nil {
		t.Fatalf("edit: %v", err)
	}
	c, _, err := a.store.Conversation(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if c.Memory.Summary != "new" || c.Memory.Customization != "" || c.Memory.Profiles["Ann"] != "tea" {
		t.Fatalf("stored after the edit: %+v", c.Memory)
	}
	if err := ed.EditMemory(ctx, "c1", engine.Memory{}); err != nil {
		t.Fatalf("clear: %v", err)
	}
	if c, _, _ := a.store.Conversation(ctx, "c1"); c.Memory.Summary != "" || len(c.Memory.Profiles) != 0 {
		t.Fatalf("stored after the clear: %+v", c.Memory)
	}
	if p, _ := a.store.PendingMemoryEdits(ctx); len(p) != 0 {
		t.Fatalf("edits left pending: %+v", p)
	}
}

// A request older than memoryEditMaxAge (its window is gone) is not carried out; a fresh one
// next to it is.
func TestAStaleMemoryEditIsNotCarriedOut(t *testing.T) {
	a := memoryApp(t, false)
	ctx := context.Background()
	a.store.Now = func() time.Time { return time.Now().Add(-2 * memoryEditMaxAge) }
	stale, err := a.store.RequestMemoryEdit(ctx, "c1", engine.Memory{Summary: "late"})
	a.store.Now = time.Now
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := a.store.RequestMemoryEdit(ctx, "c2", engine.Memory{Summary: "now"})
	if err != nil {
		t.Fatal(err)
	}
	a.applyMemoryEdits()
	if state, reason, err := a.store.MemoryEditState(ctx, stale); err != nil || state != sqlite.EditFailed || reason == "" {
		t.Fatalf("the stale edit: state %q reason %q err %v; want it failed with a reason", state, reason, err)
	}
	if state, _, err := a.store.MemoryEditState(ctx, fresh); err != nil || state != sqlite.EditDone {
		t.Fatalf("the fresh edit: state %q err %v; want it done", state, err)
	}
	if c, _, _ := a.store.Conversation(ctx, "c2"); c.Memory.Summary != "now" {
		t.Fatalf("the fresh edit was not written: %q", c.Memory.Summary)
	}
	if c, _, _ := a.store.Conversation(ctx, "c1"); c.Memory.Summary != "" {
		t.Fatalf("the stale edit was written: %q", c.Memory.Summary)
	}
}
