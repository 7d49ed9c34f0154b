package engine

// WindowAnchor remembers where the model's view of a conversation was last laid out: the ID of
// the first message it showed and of the newest message at that moment. The zero value means
// "never laid out".
type WindowAnchor struct {
	First, Last string
}

// HistoryWindow picks the messages a request shows the model and where the conversation's
// memory goes among them, so consecutive requests share a long byte-identical prefix that
// providers cache (issue 17).
//
// Sliding the window one message per request would change the first history message, and with
// it everything after the fixed rules, on every request. Instead the window moves in blocks:
// when it is laid out it holds the newest size messages and the memory is placed after them;
// for the next block-1 new messages its first message stays put and new messages are appended
// after the memory, so the model sees between size and size+block-1 messages, never fewer than
// the setting asks for. Then it is laid out afresh. It is laid out afresh too when an anchor
// message is gone (deleted, or dropped from the engine's own bounded list).
//
// start is the index in msgs of the first message shown, settled how many of the shown
// messages come before the memory, and next the anchor to pass on the next call.
func HistoryWindow(msgs []Message, size int, prev WindowAnchor) (start, settled int, next WindowAnchor) {
	if len(msgs) == 0 {
		return 0, 0, WindowAnchor{}
	}
	size = max(size, 1)
	block := historyBlock(size)
	start = max(0, len(msgs)-size)
	first, last := -1, -1
	if prev.First != "" && prev.Last != "" {
		for i, m := range msgs {
			if m.ID == prev.First && first < 0 {
				first = i
			}
			if m.ID == prev.Last {
				last = i
			}
		}
	}
	if first >= 0 && first <= start && last >= first && len(msgs)-1-last < block {
		return first, last + 1 - first, prev
	}
	return start, len(msgs) - start, WindowAnchor{First: msgs[start].ID, Last: msgs[len(msgs)-1].ID}
}

// historyBlock is how many requests a window layout lasts: a fifth of the history size, so the
// model sees at most a fifth more messages than the setting while about four in five requests
// reuse everything but the newest message.
func historyBlock(size int) int { return max(1, size/5) }
