package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// memoryEditWait is how long the settings window waits for the running app to carry out a
// memory edit before it withdraws it.
const memoryEditWait = 15 * time.Second

// MemoryEditor is the settings window's memory editor. When an app runs on the same data
// folder, the edit is handed to it through the store (a memory_edits row the app's watcher
// picks up) and carried out by its engine, so an answer in flight cannot write over it; the
// window waits for the outcome. With no app running there is no engine and nothing in
// flight, so the window writes the store itself.
type MemoryEditor struct {
	Store *Store
	// AppRunning reports whether an app runs on this data folder (nil: none does).
	AppRunning func() bool
	// Poll and Wait are how often the outcome is read and how long it is waited for
	// (defaults 100 ms and 15 s).
	Poll, Wait time.Duration
}

// EditMemory replaces (an empty mem clears) the memory of conversation id; see
// MemoryEditor. Its errors are sentences for the user.
func (m MemoryEditor) EditMemory(ctx context.Context, id engine.ConversationID, mem engine.Memory) error {
	if m.AppRunning == nil || !m.AppRunning() {
		if err := m.Store.SaveMemory(ctx, string(id), mem); err != nil {
			return engine.Problem(fmt.Sprintf("Clanker could not save the memory (%v). Nothing was changed.", err))
		}
		return nil
	}
	editID, err := m.Store.RequestMemoryEdit(ctx, string(id), mem)
	if err != nil {
		return engine.Problem(fmt.Sprintf("Clanker could not pass the change to the running app (%v). Nothing was changed.", err))
	}
	poll, wait := m.Poll, m.Wait
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
			if withdrawn, err := m.Store.CancelMemoryEdit(context.Background(), editID); err == nil && withdrawn {
				return engine.Problem(fmt.Sprintf("The running Clanker did not take the change within %d seconds. Nothing was changed; try again.", max(1, int(wait.Seconds()))))
			}
		case <-ctx.Done():
			if withdrawn, err := m.Store.CancelMemoryEdit(context.Background(), editID); err == nil && withdrawn {
				return engine.Problem("The change was withdrawn before the running Clanker took it. Nothing was changed.")
			}
		}
		state, reason, err := m.Store.MemoryEditState(context.Background(), editID)
		switch {
		case err != nil:
			return engine.Problem(fmt.Sprintf("Clanker could not tell whether the change was saved (%v). Reopen the settings window to see the stored memory.", err))
		case state == EditDone:
			return nil
		case state == EditFailed:
			return engine.Problem(fmt.Sprintf("Clanker could not save the memory (%s). Nothing was changed.", reason))
		case state == EditCancelled:
			return engine.Problem("The change was withdrawn before the running Clanker took it. Nothing was changed.")
		}
	}
}
