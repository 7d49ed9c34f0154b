package ipc

import (
	"sync"
	"time"
)

// Throttle lets a log line through at most once per interval for each key, and counts
// what it held back in between. The guards use it: a hostile page can post thousands of
// refused messages, and the log should say so without drowning.
type Throttle struct {
	every time.Duration

	mu   sync.Mutex
	last map[string]time.Time
	held map[string]int
}

// NewThrottle lets each key through once per every.
func NewThrottle(every time.Duration) *Throttle {
	return &Throttle{every: every, last: map[string]time.Time{}, held: map[string]int{}}
}

// Allow reports whether the line for key may be logged at now, and how many were held
// back since the last one that was.
func (t *Throttle) Allow(key string, now time.Time) (ok bool, heldBack int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if last, seen := t.last[key]; seen && now.Sub(last) < t.every {
		t.held[key]++
		return false, 0
	}
	heldBack = t.held[key]
	t.last[key] = now
	delete(t.held, key)
	return true, heldBack
}
