package engine

import (
	"fmt"
	"testing"
	"time"
)

func numbered(n int) []Message {
	out := make([]Message, n)
	for i := range out {
		out[i] = Message{ID: fmt.Sprintf("m%d", i), Text: fmt.Sprint(i)}
	}
	return out
}

// The window keeps its first message for a block of requests, shows at least the history
// size, puts the memory after the messages it was laid out with, and is laid out afresh once
// the block is used up.
func TestHistoryWindowMovesInBlocks(t *testing.T) {
	const size = 10 // block of 2
	all := numbered(30)
	var anchor WindowAnchor
	type step struct{ start, settled int }
	var got []step
	for n := 1; n <= 16; n++ {
		var start, settled int
		start, settled, anchor = HistoryWindow(all[:n], size, anchor)
		if shown := n - start; shown < min(n, size) || shown > size+historyBlock(size)-1 {
			t.Fatalf("n=%d: %d messages shown, want %d to %d", n, shown, min(n, size), size+historyBlock(size)-1)
		}
		if settled < 1 || settled > n-start {
			t.Fatalf("n=%d: settled %d of %d shown", n, settled, n-start)
		}
		got = append(got, step{start, settled})
	}
	want := []step{
		{0, 1}, {0, 1}, {0, 3}, {0, 3}, {0, 5}, {0, 5}, {0, 7}, {0, 7}, {0, 9}, {0, 9}, // filling up
		{1, 10}, {1, 10}, {3, 10}, {3, 10}, {5, 10}, {5, 10}, // full: first message fixed for two requests
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("(start, settled) per request:\n got %v\nwant %v", got, want)
	}
}

// A window whose anchor message is gone (deleted, or dropped from the engine's bounded list)
// is laid out afresh rather than guessed.
func TestHistoryWindowStartsAfreshWhenItsAnchorIsGone(t *testing.T) {
	all := numbered(60)
	_, _, anchor := HistoryWindow(all[:50], 50, WindowAnchor{})
	msgs := append([]Message(nil), all[1:52]...) // m0, the first shown, was dropped
	start, settled, next := HistoryWindow(msgs, 50, anchor)
	if start != 1 || settled != 50 || next.First != "m2" || next.Last != "m51" {
		t.Fatalf("got start %d, settled %d, anchor %+v; want a fresh window of the newest 50", start, settled, next)
	}
	if s, st, _ := HistoryWindow(nil, 50, next); s != 0 || st != 0 {
		t.Fatalf("an empty conversation: start %d, settled %d", s, st)
	}
}

// Through the engine: the next request after a reply keeps the window's first message and
// puts the memory where it was, so the provider can reuse the previous request.
func TestConsecutiveRequestsKeepTheHistoryWindow(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *Settings) { s.HistorySize = 10 })
		h.store.setMode("c1", ModeActive)
		h.llm.set(0, func(LLMRequest) (Reply, error) { return Reply{}, nil }) // stays silent
		var msgs []Message
		for range 30 {
			msgs = append(msgs, in("Ann", "old"))
		}
		h.open("c1", msgs...)
		h.receive("c1", in("Ann", "first"))
		h.wait(10 * time.Second)
		h.receive("c1", in("Bob", "second"))
		h.wait(10 * time.Second)
		reqs := h.wantRequests(2, "one request per new message")
		a, b := reqs[0], reqs[1]
		if len(a.History) != 10 || a.Settled != 10 || a.OlderCount != 21 {
			t.Fatalf("first request: %d messages, settled %d, %d older; want a fresh window of 10", len(a.History), a.Settled, a.OlderCount)
		}
		if len(b.History) != 11 || b.Settled != 10 || b.OlderCount != 21 || b.History[0].ID != a.History[0].ID || b.History[10].Text != "second" {
			t.Fatalf("second request: %d messages, settled %d, %d older; want the same window of 10 plus the new message", len(b.History), b.Settled, b.OlderCount)
		}
	})
}
