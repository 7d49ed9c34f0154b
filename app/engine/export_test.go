package engine

import "time"

// This file lends the engine's external tests (package engine_test, which share the fakes in
// tests/enginefake with the other suites) the few internals they check directly. It is compiled
// only into the engine's own test binary.

// Limits and timings the tests measure against.
const (
	ImageFetchTimeout  = imageFetchTimeout
	KeepMessages       = keepMessages
	NavigationTimeout  = navigationTimeout
	NoticeRepeat       = noticeRepeat
	ProcessingTimeout  = processingTimeout
	ReadingCap         = readingCap
	SenderWait         = senderWait
	TypingCap          = typingCap
	VisitRetryPause    = visitRetryPause
	VisitUserPause     = visitUserPause
	VisitTakeoverPause = visitTakeoverPause
	DoubtSteady        = doubtSteady
)

// Pure functions the tests call directly.
var (
	AddressesClanker = addressesClanker
	MentionsClanker  = mentionsClanker
	SameName         = sameName
	GuardText        = guardText
)

// Normalized is the mode as the engine reads a stored one.
func (m Mode) Normalized() Mode { return m.normalized() }

// ValidateEvent is the check Send makes of an event before queueing it.
func ValidateEvent(ev Event) error { return ev.validate() }

// OnEngine is an event that runs fn on the engine goroutine when handled, as a timer's
// function runs.
func OnEngine(fn func()) Event { return timerFired{&timer{fn: fn}} }

// Toast and Banner tell the user something as the engine's own code does; call them on the
// engine goroutine (OnEngine).
func (e *Engine) Toast(level, text string) { e.toast(level, text) }
func (e *Engine) Banner(key, text string)  { e.banner(key, text) }

// TypingPlan is the per-character delays for typing n characters.
func (e *Engine) TypingPlan(n int) []time.Duration { return e.typingPlan(n) }

// EnqueueText puts text for conv on the send queue as an answer would and returns how many
// texts the queue holds then.
func (e *Engine) EnqueueText(conv ConversationID, text string) int {
	e.enqueue(&sendJob{conv: conv, text: text})
	return len(e.sends.queue)
}

// Handle handles one event on the caller's goroutine, as Run does, for benchmarks that drive
// the engine without Run.
func (e *Engine) Handle(ev Event) { e.handle(ev) }

// StopReplyTimer stops the pending reply's timer, so a benchmark leaves nothing behind, and
// reports whether one was armed.
func (e *Engine) StopReplyTimer() bool {
	if e.replies.pending == nil {
		return false
	}
	e.replies.pending.tm.stop()
	return true
}

// ServeInboxUntilMark hands what Send queues to Handle on the caller's goroutine, as Run's loop
// does, until the event MarkInbox queued comes out.
func (e *Engine) ServeInboxUntilMark() {
	for range e.inbox.notify {
		for _, ev := range e.inbox.drain() {
			if _, ok := ev.(snapshotReq); ok {
				return
			}
			e.handle(ev)
		}
	}
}

// MarkInbox queues the mark ServeInboxUntilMark stops at.
func (e *Engine) MarkInbox() { e.inbox.push(snapshotReq{}) }

// Matches is the hybrid match of a decided point against a message.
func (r MessageRef) Matches(m Message) bool { return r.matches(m) }
