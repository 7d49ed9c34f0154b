package run

import (
	"sync"
	"sync/atomic"
	"testing"
)

// A slow delivery that read the state before it changed must not be the last one the
// listener sees (the tray kept "Clanker: Available" without its unread count: a status read
// before the count changed was handed over after the one that had it).
func TestTheLastDeliveryReadsTheLatestState(t *testing.T) {
	var l latestFirst
	var state atomic.Int64
	var mu sync.Mutex
	var got []int64
	release := make(chan struct{})
	started := make(chan struct{})
	first := true
	deliver := func() {
		v := state.Load()
		mu.Lock()
		slow := first
		first = false
		mu.Unlock()
		if slow {
			close(started)
			<-release
		}
		mu.Lock()
		got = append(got, v)
		mu.Unlock()
	}
	done := make(chan struct{})
	go func() { l.run(deliver); close(done) }()
	<-started
	state.Store(1)
	l.run(deliver) // returns at once: the running delivery takes the request over
	close(release)
	<-done
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 || got[len(got)-1] != 1 {
		t.Fatalf("deliveries saw %v; the last must see the latest state (1)", got)
	}
}

// Without concurrency every request is a delivery of its own.
func TestEachRequestAloneIsDelivered(t *testing.T) {
	var l latestFirst
	n := 0
	for range 3 {
		l.run(func() { n++ })
	}
	if n != 3 {
		t.Fatalf("want 3 deliveries, got %d", n)
	}
}
