package engine

// Window is where the model's view of one conversation stands between requests. The LLM side
// keeps one per conversation and hands it back to HistoryWindow with the next request; the zero
// value means "never laid out".
type Window struct {
	// First is the ID of the first message shown: the base of the layout. The memory shown
	// before it was taken when the window was laid out and stands for everything earlier.
	First string
	// Layout counts the layouts: it changes whenever the window is laid out afresh or
	// compacted, and only then. The caller takes the memory it shows at the base again when it
	// changes, and keeps showing the same memory while it does not.
	Layout uint64
	// Mark is the ID of the newest message of the last request that told the model the
	// messages shown so far are about to leave its view; "" when no such notice is pending.
	Mark string
	// Answered is set by the caller once the model has answered the request that gave that
	// notice and whatever memory it wrote with the answer was saved. Only then may the window
	// move past Mark.
	Answered bool
	// Seen is the ID of the newest message the last request showed.
	Seen string
	// GapAfter and GapThrough bound messages the model never saw that are left out of the
	// window because too many arrived at once: the ones after GapAfter up to and including
	// GapThrough. Both are "" when nothing is left out.
	GapAfter, GapThrough string
	// MemoryChanged is set by the caller before each call: whether the memory stored now differs
	// from the memory shown at the base. Compacting the window then shows the new memory, which
	// the provider has not cached.
	MemoryChanged bool
	// Requests counts the requests this layout has served.
	Requests int
}

// View is what one request shows: msgs[Start:] except msgs[GapFrom:GapTo], which the model never
// saw and is not shown (GapFrom == GapTo when nothing is left out). Notice asks the caller to
// tell the model that the messages shown may leave its view after this request, so that it keeps
// in its summary whatever it needs from them.
type View struct {
	Start          int
	GapFrom, GapTo int
	Notice         bool
}

// Shown is how many messages the view shows out of n.
func (v View) Shown(n int) int { return n - v.Start - (v.GapTo - v.GapFrom) }

// HistoryWindow picks the messages a request shows the model, so that consecutive requests share
// a byte-identical prefix that providers cache however far apart they come (issue 32), and so that
// no message the model has seen leaves its view before the model was told and could keep what it
// needed in its summary.
//
// The prompt is laid out as the rules, the conversation's memory as it stood when the window was
// laid out, then every message since the window's first one, oldest first. New messages are only
// ever appended, so the prefix stays put between requests whatever happens in between. The window
// is compacted only once it shows four thirds of the history size: that request carries a notice
// (View.Notice), and once the model has answered it (Window.Answered) the next request starts
// after the noticed messages, keeping at least the newest third of the size. The model thus sees
// between a third and four thirds of the size (about four fifths of it on average when it is
// asked at every message), and the layout moves at most once per size messages.
//
// Compacting shows the memory anew. While the stored memory differs from the one shown
// (Window.MemoryChanged), that costs what the provider has not cached, and a layout that served
// only a request or two (requests far apart) would not have paid for it: the window then grows to
// twice the size before it is compacted, unless it has served three requests.
//
// A fresh window (nothing laid out yet, or its first message gone from msgs) shows the newest
// size messages, and those the model already saw if they are still there (up to twice the size).
// When more messages than the limit arrived since the last request, the newest size of them are
// shown after the ones the model has seen and the others, which it never saw, are left out
// (View.GapFrom, GapTo), so a burst costs about what the setting allows.
func HistoryWindow(msgs []Message, size int, prev Window) (View, Window) {
	n := len(msgs)
	if n == 0 {
		return View{}, Window{}
	}
	size = max(size, 1)
	keep := historyKeep(size)
	limit := max(size*4/3, keep+1)
	if prev.MemoryChanged && prev.Requests < 2 {
		limit = max(limit, 2*size)
	}
	first := indexOfMessage(msgs, prev.First)
	next := prev
	if first >= 0 && prev.Mark != "" && prev.Answered {
		// The model was told and answered: the noticed messages may leave its view.
		if mark := indexOfMessage(msgs, prev.Mark); mark >= first && min(mark+1, n-keep) > first {
			first = min(mark+1, n-keep)
			next = Window{First: msgs[first].ID, Layout: prev.Layout + 1, Seen: prev.Seen}
		}
		next.Mark, next.Answered = "", false
	}
	if first < 0 {
		first = max(0, n-size)
		if seen := indexOfMessage(msgs, prev.Seen); seen >= 0 {
			// The first message is gone but the model saw the ones up to seen: its first message
			// was dropped from the front of the list (or deleted). Those it saw stay in view, up
			// to what a window holds.
			first = max(0, min(first, seen+1-2*size))
		}
		next = Window{First: msgs[first].ID, Layout: prev.Layout + 1}
	}
	v := View{Start: first, GapFrom: first, GapTo: first}
	if from, to := indexOfMessage(msgs, next.GapAfter)+1, indexOfMessage(msgs, next.GapThrough)+1; next.GapAfter != "" && from > first && to > from {
		v.GapFrom, v.GapTo = from, to
	} else {
		next.GapAfter, next.GapThrough = "", ""
	}
	// Messages the model never saw beyond what the setting allows are left out, once, between
	// the ones it has seen and the newest size.
	if seen := indexOfMessage(msgs, next.Seen); next.GapAfter == "" && seen >= v.Start && v.Shown(n) > limit && n-1-seen > size {
		v.GapFrom, v.GapTo = seen+1, n-size
		next.GapAfter, next.GapThrough = msgs[seen].ID, msgs[n-size-1].ID
	}
	next.Requests++
	if v.Shown(n) >= limit {
		v.Notice = true
		next.Mark, next.Answered = msgs[n-1].ID, false
	}
	next.Seen = msgs[n-1].ID
	return v, next
}

// historyKeep is how many of the newest messages a compacted window keeps at least: a third of
// the history size, rounded up.
func historyKeep(size int) int { return max(1, (size+2)/3) }

func indexOfMessage(msgs []Message, id string) int {
	if id == "" {
		return -1
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].ID == id {
			return i
		}
	}
	return -1
}
