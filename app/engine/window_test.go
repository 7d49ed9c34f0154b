package engine

import (
	"fmt"
	"testing"
)

func numbered(n int) []Message {
	out := make([]Message, n)
	for i := range out {
		out[i] = Message{ID: fmt.Sprintf("m%d", i), Text: fmt.Sprint(i)}
	}
	return out
}

// windowCaller plays the LLM side: it calls HistoryWindow for each request and, when told to,
// reports the notice as answered.
type windowCaller struct {
	win     Window
	answers bool // the model answers every request
}

func (c *windowCaller) request(msgs []Message, size int) View {
	v, next := HistoryWindow(msgs, size, c.win)
	c.win = next
	if v.Notice && c.answers {
		c.win.Answered = true
	}
	return v
}

// A first request shows the newest size messages; later ones append to the same window, whose
// first message and layout stay put until it shows four thirds of the size.
func TestHistoryWindowAppendsUntilItsLimit(t *testing.T) {
	all := numbered(100)
	c := &windowCaller{}
	v := c.request(all[:50], 20)
	if v.Start != 30 || v.Shown(50) != 20 || v.Notice || c.win.First != "m30" || c.win.Layout != 1 {
		t.Fatalf("first request: %+v, window %+v; want the newest 20 (from m30), layout 1", v, c.win)
	}
	for n := 51; n <= 55; n++ {
		v = c.request(all[:n], 20)
		if v.Start != 30 || v.Notice || c.win.Layout != 1 {
			t.Fatalf("n=%d: %+v, window %+v; want the same window, growing, without a notice", n, v, c.win)
		}
	}
	v = c.request(all[:56], 20)
	if v.Start != 30 || !v.Notice || c.win.Mark != "m55" || c.win.Answered {
		t.Fatalf("at 26 shown: %+v, window %+v; want a notice marked at the newest message", v, c.win)
	}
}

// Nothing leaves the view before the model answered the request that gave the notice; then the
// window starts after the noticed messages, keeping at least a third of the size, and is a new
// layout.
func TestHistoryWindowCompactsOnlyAfterTheNoticeWasAnswered(t *testing.T) {
	all := numbered(100)
	c := &windowCaller{}
	c.request(all[:50], 20) // m30..m49
	if v := c.request(all[:56], 20); !v.Notice {
		t.Fatal("want a notice at 26 messages shown")
	}
	// The request failed or its answer was not saved: the next one still shows everything and
	// gives the notice again.
	v := c.request(all[:57], 20)
	if v.Start != 30 || !v.Notice || c.win.Mark != "m56" || c.win.Layout != 1 {
		t.Fatalf("unanswered notice: %+v, window %+v; want the same window and the notice again", v, c.win)
	}
	c.win.Answered = true
	v = c.request(all[:58], 20)
	if v.Start != 51 || v.Notice || c.win.First != "m51" || c.win.Layout != 2 || c.win.Mark != "" {
		t.Fatalf("after the answer: %+v, window %+v; want the newest 7 (m51 on) as layout 2", v, c.win)
	}
	// Asked rarely, the window starts right after what the model was told about.
	c = &windowCaller{answers: true}
	c.request(all[:20], 20)
	if v := c.request(all[:32], 20); !v.Notice {
		t.Fatalf("32 shown of size 20: want a notice, got %+v", v)
	}
	if v := c.request(all[:45], 20); v.Start != 32 || v.Shown(45) != 13 {
		t.Fatalf("sparse: %+v; want the 13 messages after the noticed ones", v)
	}
}

// While the stored memory differs from the one shown, compacting would show memory the provider
// has not cached: a layout that served fewer than three requests grows to twice the size first.
func TestHistoryWindowWaitsLongerWhenTheMemoryChanged(t *testing.T) {
	all := numbered(200)
	for _, changed := range []bool{false, true} {
		c := &windowCaller{}
		c.request(all[:20], 20)
		c.win.MemoryChanged = changed
		if v := c.request(all[:34], 20); v.Notice == changed {
			t.Fatalf("memory changed %v, second request of the layout at 34 shown: notice %v", changed, v.Notice)
		}
		c.win.MemoryChanged = changed
		if v := c.request(all[:36], 20); !v.Notice {
			t.Fatalf("memory changed %v, third request: want the notice", changed)
		}
	}
	c := &windowCaller{}
	c.request(all[:20], 20)
	c.win.MemoryChanged = true
	if v := c.request(all[:60], 20); !v.Notice {
		t.Fatal("want the notice at twice the size even on the second request")
	}
}

// Whatever the spacing of the requests and the history size, the layout changes at most once per
// size messages, and the model sees at least a third of the size, and at most twice it besides
// what arrived since it was last asked.
func TestHistoryWindowMovesAtMostOncePerSizeMessages(t *testing.T) {
	all := numbered(2000)
	for size := 1; size <= 60; size++ {
		for _, every := range []int{1, 3, 7, 15, 40} {
			for _, changed := range []bool{false, true} {
				c := &windowCaller{answers: true}
				lastLayout, lastAt := uint64(0), -1
				for n := every; n <= len(all); n += every {
					c.win.MemoryChanged = changed
					v := c.request(all[:n], size)
					shown := v.Shown(n)
					if shown < min(n, historyKeep(size)) || shown > every+2*size {
						t.Fatalf("size %d, every %d: %d shown at n=%d", size, every, shown, n)
					}
					if c.win.Layout != lastLayout {
						if lastAt >= 0 && n-lastAt < size {
							t.Fatalf("size %d, every %d, memory changed %v: laid out at %d and again at %d", size, every, changed, lastAt, n)
						}
						lastLayout, lastAt = c.win.Layout, n
					}
				}
			}
		}
	}
}

// A window whose first message is gone is laid out afresh rather than guessed; the messages
// the model saw stay in view when they are still there.
func TestHistoryWindowStartsAfreshWhenItsFirstMessageIsGone(t *testing.T) {
	all := numbered(200)
	c := &windowCaller{}
	c.request(all[:50], 20) // m30..m49
	// The list was cut at the front past m30 (a bounded list, a reload showing less).
	v := c.request(all[40:55], 20)
	if v.Start != 0 || c.win.First != "m40" || c.win.Layout != 2 {
		t.Fatalf("front cut: %+v, window %+v; want every message still held, as layout 2", v, c.win)
	}
	// Nothing known: the newest size.
	v, next := HistoryWindow(all[100:150], 20, Window{First: "gone", Layout: 7})
	if v.Start != 30 || next.First != "m130" || next.Layout != 8 {
		t.Fatalf("unknown window: %+v, %+v; want the newest 20 as layout 8", v, next)
	}
	if v, next := HistoryWindow(nil, 20, next); v.Shown(0) != 0 || next != (Window{}) {
		t.Fatalf("an empty conversation: %+v, %+v", v, next)
	}
}

// When more messages arrive at once than a window holds, the newest size of the ones the model
// never saw are shown after those it saw; the rest are left out, and stay out (the prefix holds)
// until the window is compacted past them.
func TestHistoryWindowLeavesOutABurstTheModelNeverSaw(t *testing.T) {
	all := numbered(300)
	c := &windowCaller{}
	c.request(all[:20], 10) // m10..m19
	v := c.request(all[:100], 10)
	if v.Start != 10 || v.GapFrom != 20 || v.GapTo != 90 || v.Shown(100) != 20 || !v.Notice {
		t.Fatalf("burst: %+v; want m10..m19, then m90..m99, and a notice", v)
	}
	v = c.request(all[:101], 10)
	if v.Start != 10 || v.GapFrom != 20 || v.GapTo != 90 || c.win.Layout != 1 {
		t.Fatalf("after the burst: %+v, window %+v; want the same gap in the same layout", v, c.win)
	}
	c.win.Answered = true
	v = c.request(all[:102], 10)
	if v.Start != 98 || v.GapFrom != v.GapTo || c.win.GapAfter != "" {
		t.Fatalf("compacted: %+v, window %+v; want a plain window after the notice", v, c.win)
	}
}
