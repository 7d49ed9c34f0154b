//go:build (linux || darwin) && cgo

package native

import (
	"context"
	"fmt"
	"sync"
)

// The toolkits (GTK, AppKit) only accept calls on their main thread. Go hands a job over by
// number: schedule (one per platform) asks the toolkit to call goRunJob with that number on
// the main thread, and the caller waits for the job or for its context.

var (
	jobsMu  sync.Mutex
	jobs    = map[uint64]func(){}
	nextJob uint64
)

// onMainThread runs fn on the toolkit's main thread and waits for it, or for ctx.
func onMainThread(ctx context.Context, fn func()) error {
	done := make(chan struct{})
	jobsMu.Lock()
	nextJob++
	id := nextJob
	jobs[id] = func() { fn(); close(done) }
	jobsMu.Unlock()
	schedule(id)
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		// The job may still run later; it only touches toolkit objects that outlive the shell.
		return fmt.Errorf("the main thread did not run the job: %w", ctx.Err())
	}
}

// runJob runs (once) the job with this number; the platform's goRunJob export calls it on the
// main thread.
func runJob(id uint64) {
	jobsMu.Lock()
	fn := jobs[id]
	delete(jobs, id)
	jobsMu.Unlock()
	if fn != nil {
		fn()
	}
}
