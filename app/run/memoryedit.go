package run

import (
	"context"
	"fmt"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/sqlite"
)

// memoryEditWait is how long the settings window waits for the running app to carry out a
// memory edit before it withdraws it; memoryEditMaxAge is how old a request the app still
// carries out (older ones were withdrawn or belong to a window that is gone).
const (
	memoryEditWait   = 15 * time.Second
	memoryEditMaxAge = time.Minute
)

// memoryEditor is the settings window's MemoryEditor. When an app runs on the same data
// folder, the edit is handed to it through the store (a memory_edits row the app's watcher
// picks up) and carried out by its engine, so an answer in flight cannot write over it; the
// window waits for the outcome. With no app running there is no engine and nothing in
// flight, so the window writes the store itself.
type memoryEditor struct {
	store      *sqlite.Store
	appRunning func() bool
	poll       time.Duration
	wait       time.Duration
}

func (m memoryEditor) EditMemory(ctx context.Context, id engine.ConversationID, mem engine.Memory) error {
	if m.appRunning == nil || !m.appRunning() {
		if err := m.store.SaveMemory(ctx, string(id), mem); err != nil {
			return engine.Problem(fmt.Sprintf("Clanker could not save the memory (%v). Nothing was changed.", err))
		}
		return nil
	}
	editID, err := m.store.RequestMemoryEdit(ctx, string(id), mem)
	if err != nil {
		return engine.Problem(fmt.Sprintf("Clanker could not pass the change to the running app (%v). Nothing was changed.", err))
	}
	poll, wait := m.poll, m.wait
	if poll <= 0 {
		poll = 100 * time.Millisecond
	}
	if wait <= 0 {
		wait = memoryEditWait
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		select {
		case <-tick.C:
		case <-deadline.C:
			if withdrawn, err := m.store.CancelMemoryEdit(context.Background(), editID); err == nil && withdrawn {
				return engine.Problem(fmt.Sprintf("The running Clanker did not take the change within %d seconds, so nothing was changed. Try again.", int(wait.Seconds())))
			}
		case <-ctx.Done():
			if withdrawn, err := m.store.CancelMemoryEdit(context.Background(), editID); err == nil && withdrawn {
				return engine.Problem("The change was withdrawn before the running Clanker took it. Nothing was changed.")
			}
		}
		state, reason, err := m.store.MemoryEditState(context.Background(), editID)
		switch {
		case err != nil:
			return engine.Problem(fmt.Sprintf("Clanker could not tell whether the change was saved (%v). Reopen the settings window to see the stored memory.", err))
		case state == sqlite.EditDone:
			return nil
		case state == sqlite.EditFailed:
			return engine.Problem(fmt.Sprintf("Clanker could not save the memory (%s). Nothing was changed.", reason))
		case state == sqlite.EditCancelled:
			return engine.Problem("The change was withdrawn before the running Clanker took it. Nothing was changed.")
		}
	}
}

// applyMemoryEdits carries out the memory edits the settings window asked for, each through
// the engine (engine.EditMemory), and records the outcome for the window.
func (a *App) applyMemoryEdits() {
	edits, err := a.store.PendingMemoryEdits(a.ctx)
	if err != nil {
		a.log.Error("read the memory edits asked for", "err", err)
		return
	}
	for _, ed := range edits {
		if time.Since(ed.At) > memoryEditMaxAge {
			_ = a.store.FailMemoryEdit(a.ctx, ed.ID, "the request was too old when Clanker saw it")
			continue
		}
		editID := ed.ID
		done := make(chan error, 1)
		ev := engine.EditMemory{Conversation: ed.Conversation, Done: done, Apply: func() error {
			_, err := a.store.ApplyMemoryEdit(a.ctx, editID)
			return err
		}}
		if err := a.eng.Send(ev); err != nil {
			_ = a.store.FailMemoryEdit(a.ctx, editID, err.Error())
			continue
		}
		select {
		case err := <-done:
			if err != nil {
				a.log.Error("memory edit failed", "err", err)
				_ = a.store.FailMemoryEdit(a.ctx, editID, err.Error())
			}
		case <-time.After(purgeTimeout):
			a.log.Warn("the engine did not carry out a memory edit in time; the settings window withdraws it")
		case <-a.ctx.Done():
			return
		}
	}
}
