package run

import (
	"sync"
	"sync/atomic"
)

// latestFirst runs a delivery so that, however many goroutines ask at once, the last delivery
// begins after the last request: a delivery that reads state (the menus' status) can never be
// overtaken by an older one that read it earlier. Nobody waits for another's delivery: a
// request made while one runs is carried out by that one, again, once it ends.
type latestFirst struct {
	asked atomic.Uint64
	mu    sync.Mutex
}

// run asks for a delivery and carries it out unless one is running already.
func (l *latestFirst) run(deliver func()) {
	l.asked.Add(1)
	for l.mu.TryLock() {
		seen := l.asked.Load()
		deliver()
		l.mu.Unlock()
		if l.asked.Load() == seen {
			return
		}
	}
}
