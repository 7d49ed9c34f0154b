package run

import (
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// memoryEditMaxAge is how old a memory edit request the app still carries out: older
// ones were withdrawn by the settings window or belong to a window that is gone.
const memoryEditMaxAge = time.Minute

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
