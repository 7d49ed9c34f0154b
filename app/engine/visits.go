package engine

import (
	"slices"
	"time"
)

// visitTakeoverPause is how long the conversations queued wait after the user took a visit
// over (opened another conversation, pressed Cancel or a key in the compose box, or the visit
// found their draft): what is still owed there is visited then, not while the user is busy at
// the window. News in one of them is visited as usual.
const visitTakeoverPause = 2 * time.Minute

type visitPhase string

const (
	visitNavigating visitPhase = "navigating"
	visitProcessing visitPhase = "processing"
	visitReturning  visitPhase = "returning"
)

// visits is the pipeline that takes Clanker to inactive conversations whose sidebar row
// showed news for it: the queue of conversations to visit, the visit in progress, and the
// pauses between visits.
type visits struct {
	queue  []ConversationID
	run    *visit
	idleTm *timer
	idleAt time.Time
	// After a visit whose navigation failed, no visit starts before pauseUntil (30 s later),
	// so a conversation that will not open cannot make Clanker flick between
	// conversations. failures counts consecutive failed navigations per conversation.
	pauseUntil time.Time
	pauseTm    *timer
	failures   map[ConversationID]int
	// later holds, for a conversation queued again after a visit that did not get to the end
	// (or left queued when the user took a visit over), the time before which it is not
	// visited; news in that conversation clears it. laterTm wakes the queue at laterAt.
	later   map[ConversationID]time.Time
	laterTm *timer
	laterAt time.Time
}

// visit is one visit in progress: where it goes, where it returns to, and how far it got.
type visit struct {
	returnTo ConversationID
	target   ConversationID
	phase    visitPhase
	process  bool
	tm       *timer // navigation or processing timeout
	settle   *timer
}

func (v *visits) stopTimers() {
	v.idleTm.stop()
	v.pauseTm.stop()
	v.laterTm.stop()
	if v.run != nil {
		v.run.tm.stop()
		v.run.settle.stop()
	}
}

// foregroundAvailable is the gate for leaving the foreground: no draft, nothing in flight, no
// timer, nothing being sent and no switch in progress.
func (e *Engine) foregroundAvailable() bool {
	return !e.screen.draft && e.replies.inflight == nil && e.replies.pending == nil && e.sends.cur == nil && len(e.sends.queue) == 0 && !e.screen.switching
}

// visitsAllowed reports whether visits may run at all now, whatever the user is doing: the
// user wants them, a conversation is open to return to, the page is usable and Clanker acts.
func (e *Engine) visitsAllowed() bool {
	return e.settings.InactiveMode != InactiveIgnore && e.screen.fg != nil && e.pageState == PageReady &&
		e.configured() && !e.paused()
}

// pipelineIdle is the gate for leaving a visited conversation; the user's draft there is not
// Clanker's concern.
func (e *Engine) pipelineIdle() bool {
	return e.replies.inflight == nil && e.replies.pending == nil && e.sends.cur == nil && len(e.sends.queue) == 0 && !e.screen.switching
}

func (e *Engine) processMode(conv ConversationID) bool {
	r := e.visits.run
	return r != nil && r.process && r.phase == visitProcessing && r.target == conv
}

// visitProgress starts a visit when the foreground allows it and finishes a visit once the
// pipeline is idle. It runs after every event instead of polling.
func (e *Engine) visitProgress() {
	if r := e.visits.run; r != nil {
		if r.phase != visitProcessing || !e.screen.holds(r.target) {
			return
		}
		if !e.pipelineIdle() {
			r.settle.stop()
			r.settle = nil
			return
		}
		if r.settle == nil {
			r.settle = e.after(processingSettle, func() { e.visitNext() })
		}
		return
	}
	// The conversation on screen is the foreground pipeline's business (its messages are
	// caught up when it opens): a queued visit to it would cover it with the overlay and wait
	// for a navigation that never comes. A conversation being left is not on screen any more:
	// what a visit left undone there stays queued.
	if e.screen.fg != nil && !e.screen.switching {
		e.visits.queue = slices.DeleteFunc(e.visits.queue, func(id ConversationID) bool { return id == e.screen.fg.id })
	}
	if len(e.visits.queue) == 0 || !e.visitsAllowed() || !e.foregroundAvailable() {
		return
	}
	if now := time.Now(); now.Before(e.visits.pauseUntil) {
		if e.visits.pauseTm == nil {
			e.visits.pauseTm = e.after(e.visits.pauseUntil.Sub(now), func() { e.visits.pauseTm = nil })
		}
		return
	}
	if e.settings.InactiveMode == InactiveIdle && !e.hidden {
		at := e.lastActivity.Add(idleThreshold)
		if time.Now().Before(at) {
			if e.visits.idleTm == nil || !e.visits.idleAt.Equal(at) {
				e.visits.idleTm.stop()
				e.visits.idleAt = at
				e.visits.idleTm = e.after(time.Until(at), func() { e.visits.idleTm = nil })
			}
			return
		}
	}
	target, ok := e.nextVisit()
	if !ok {
		return
	}
	e.visits.run = &visit{returnTo: e.screen.fg.id, process: e.settings.InactiveMode == InactiveProcess}
	e.do(Command{Kind: CmdOverlay, Text: OverlayText}, nil)
	e.visitGo(target, true)
}

// nextVisit takes the first queued conversation that may be visited now out of the queue. When
// every one of them waits (later), it arms a timer for the first that stops waiting.
func (e *Engine) nextVisit() (ConversationID, bool) {
	now := time.Now()
	var first time.Time
	for i, id := range e.visits.queue {
		at := e.visits.later[id]
		if !now.Before(at) {
			e.visits.queue = slices.Delete(e.visits.queue, i, i+1)
			delete(e.visits.later, id)
			return id, true
		}
		if first.IsZero() || at.Before(first) {
			first = at
		}
	}
	if e.visits.laterTm == nil || !e.visits.laterAt.Equal(first) {
		e.visits.laterTm.stop()
		e.visits.laterAt = first
		e.visits.laterTm = e.after(first.Sub(now), func() { e.visits.laterTm = nil })
	}
	return "", false
}

// visitLater keeps conv from being visited before at (see visits.later).
func (e *Engine) visitLater(conv ConversationID, at time.Time) {
	if e.visits.later == nil {
		e.visits.later = map[ConversationID]time.Time{}
	}
	if at.After(e.visits.later[conv]) {
		e.visits.later[conv] = at
	}
}

// visitGo navigates to target. leaving is true for the visit's first step, which takes the
// window away from the user's conversation: the page refuses it while the user is using the
// window (the engine's view of the compose box lags the page's by an event), and then the
// visit waits (visitUserActive).
func (e *Engine) visitGo(target ConversationID, leaving bool) {
	r := e.visits.run
	r.target, r.phase = target, visitNavigating
	r.settle.stop()
	r.settle = nil
	r.tm.stop()
	r.tm = e.after(navigationTimeout, func() { e.visitNavigationFailed(target) })
	e.log.Info("engine: visiting inactive conversation", "conversation", target)
	var cb func(CommandResult)
	if leaving {
		cb = func(res CommandResult) {
			if res.Err == ResultUserActive {
				e.visitUserActive(r, target)
			}
		}
	}
	e.do(Command{Kind: CmdNavigate, Conversation: target, Visit: leaving}, cb)
}

// visitUserActive handles a visit the page refused because the user was using the window:
// nothing changed on screen, so Clanker stays, hides the overlay and tries again once the
// user has been quiet for a while. The conversation keeps its place at the head of the queue,
// and this is not a failed navigation.
func (e *Engine) visitUserActive(r *visit, target ConversationID) {
	if e.visits.run != r || r.phase != visitNavigating || r.target != target {
		return // the visit already ended or moved on
	}
	e.log.Info("engine: visit waits, the user is using the window", "conversation", target, "pause", visitUserPause)
	e.visits.queue = append([]ConversationID{target}, slices.DeleteFunc(e.visits.queue, func(id ConversationID) bool { return id == target })...)
	if until := time.Now().Add(visitUserPause); until.After(e.visits.pauseUntil) {
		e.visits.pauseUntil = until
		e.visits.pauseTm.stop()
		e.visits.pauseTm = nil
	}
	e.visitReturn()
}

// visitStillLeaving reports whether conv is the conversation visit r is leaving, still on
// screen while the visit's first navigation is under way: a draft or a key there is the user
// at work where they were before the visit took the window from them (the page refuses the
// navigation for it an event later), not the user taking a visit over.
func (e *Engine) visitStillLeaving(r *visit, conv ConversationID) bool {
	return r != nil && conv != "" && r.phase == visitNavigating && conv == r.returnTo && r.target != r.returnTo && e.screen.holds(conv)
}

// visitNavigationFailed handles a visit whose conversation did not open within the navigation
// wait: the conversation goes back to the head of the queue, Clanker returns home, and the next
// attempt waits out the retry pause. The queue is never given up while it holds work; only a
// conversation that failed to open maxVisitFailures times in a row is dropped (it most likely no
// longer exists), so it cannot block the others forever.
func (e *Engine) visitNavigationFailed(target ConversationID) {
	if e.visits.failures == nil {
		e.visits.failures = map[ConversationID]int{}
	}
	e.visits.failures[target]++
	if n := e.visits.failures[target]; n >= maxVisitFailures {
		e.log.Warn("engine: inactive conversation did not open; giving up on it", "conversation", target, "attempts", n)
		delete(e.visits.failures, target)
		// Whatever brought Clanker there stays unanswered until the user opens it: say so.
		name := e.listedName(target)
		if name == "" {
			name = "a conversation"
		}
		e.toast("error", "Clanker could not open "+name+" to answer there; it answers when you open it.")
	} else {
		e.log.Warn("engine: inactive conversation did not open; will retry", "conversation", target, "attempts", n, "pause", visitRetryPause)
		e.requeue(target)
	}
	e.visits.pauseUntil = time.Now().Add(visitRetryPause)
	e.visits.pauseTm.stop()
	e.visits.pauseTm = nil
	e.visitReturn()
}

// visitNext moves on after a visit: to the next queued conversation, or back home.
func (e *Engine) visitNext() {
	r := e.visits.run
	if r == nil {
		return
	}
	if len(e.visits.queue) > 0 {
		// The user is away from their conversation already: what waits in the queue is
		// visited now rather than by taking the window again later.
		next := e.visits.queue[0]
		e.visits.queue = e.visits.queue[1:]
		delete(e.visits.later, next)
		e.visitGo(next, false)
		return
	}
	e.visitReturn()
}

// visitTimedOut moves on from a visit whose conversation was not done within the processing
// timeout: its view was never believed, or its answer is still being computed. What it is
// still owed is not given up: Clanker goes back to the user's conversation, and the visited
// one is queued again first, visited once nothing is in flight and the retry pause has passed
// (an answer that lands meanwhile waits as its deferred reply, and the visit posts it). The
// other conversations queued would only wait behind the same request.
func (e *Engine) visitTimedOut(r *visit) {
	if !e.visitOwes(r) {
		e.log.Warn("engine: visit took too long, moving on", "conversation", r.target)
		e.visitNext()
		return
	}
	e.log.Warn("engine: visit took too long; going back, the conversation is visited again later", "conversation", r.target, "pause", visitRetryPause)
	e.requeue(r.target)
	e.visitLater(r.target, time.Now().Add(visitRetryPause))
	e.visitReturn()
}

// visitOwes reports whether the visit in progress would leave something undone in the
// conversation it is on: its news not looked at yet, its view not believed yet, or an answer
// or notice it is owed still to come.
func (e *Engine) visitOwes(r *visit) bool {
	switch r.phase {
	case visitNavigating:
		return true
	case visitReturning:
		return false
	}
	conv := r.target
	if !e.screen.holds(conv) || e.screen.switching {
		return true
	}
	fg := e.screen.fg
	if fg.automated || fg.hushed {
		return false
	}
	if in := e.replies.inflight; in != nil && in.req.Conversation == conv && !in.discard {
		return true
	}
	if p := e.replies.pending; p != nil && p.conv == conv {
		return true
	}
	if e.replies.deferred[conv] != nil || e.replyQueued(conv) || e.noticeOnItsWay(conv) || fg.rec.noticeOwed() {
		return true
	}
	return e.mode().participating() && e.owedTrigger() != nil
}

// requeue puts conv back at the head of the visit queue.
func (e *Engine) requeue(conv ConversationID) {
	e.visits.queue = append([]ConversationID{conv}, slices.DeleteFunc(e.visits.queue, func(id ConversationID) bool { return id == conv })...)
}

func (e *Engine) visitReturn() {
	r := e.visits.run
	if r == nil {
		return
	}
	r.settle.stop()
	r.settle = nil
	r.tm.stop()
	if e.screen.settledOn(r.returnTo) {
		e.visitFinish()
		return
	}
	r.phase = visitReturning
	r.target = r.returnTo
	r.tm = e.after(navigationTimeout, func() {
		e.log.Warn("engine: could not return to the original conversation", "conversation", r.returnTo)
		e.visitFinish()
	})
	e.do(Command{Kind: CmdNavigate, Conversation: r.returnTo}, nil)
}

func (e *Engine) visitFinish() {
	if r := e.visits.run; r != nil {
		r.tm.stop()
		r.settle.stop()
	}
	e.visits.run = nil
	e.do(Command{Kind: CmdOverlay}, nil)
}

// visitAbort ends a visit because the user took control or the page stopped being usable:
// Clanker does not navigate back. Nothing owed is given up, since the user was told nothing:
// the conversation it was on is queued again first when the visit leaves something undone
// there, the rest of the queue is kept, and all of it waits pause (none: visited as soon as
// the page and the user allow).
func (e *Engine) visitAbort(reason string, pause time.Duration) {
	e.visitStop(reason, pause, true)
}

// visitStop ends the visit in progress where it is and keeps the queue, which waits pause;
// keepTarget queues the conversation it was on again when it leaves something undone there.
func (e *Engine) visitStop(reason string, pause time.Duration, keepTarget bool) {
	r := e.visits.run
	if r == nil {
		return
	}
	e.log.Info("engine: inactive-conversation processing stopped", "reason", reason)
	if keepTarget && e.visitOwes(r) {
		e.requeue(r.target)
	}
	if pause > 0 {
		for _, id := range e.visits.queue {
			e.visitLater(id, time.Now().Add(pause))
		}
	}
	e.visits.failures = nil
	e.visitFinish()
}

// visitDrop ends a visit and forgets the queue: what was owed there was released for a reason
// the user saw (a banner).
func (e *Engine) visitDrop(reason string) {
	if e.visits.run == nil {
		return
	}
	e.log.Info("engine: inactive-conversation processing stopped", "reason", reason)
	e.visits.queue = nil
	e.visits.failures = nil
	e.visitFinish()
}

// visitCancel ends a visit because the user asked for it while staying where they are: what
// Clanker was doing in the visited conversation stops too (the pending timer, a queued or
// half-typed reply, and the answer in flight, which will not be posted), and what it was owed
// there is released (the user saw it cancelled). The other conversations queued are still
// visited, after the takeover pause.
//
// A key pressed in another conversation's compose box is not that: the user opened that
// conversation (a click the page has not reported yet, chaos seed 13400000005591) and typed
// there. They left the visited conversation as with any click elsewhere and cancelled nothing
// in it: the visit ends as for the user opening another conversation (what is still owed in
// the visited conversation stays queued), and the switch to where the key was has started,
// whenever the page gets to report it.
func (e *Engine) visitCancel(ev VisitCancelled) {
	r := e.visits.run
	if r == nil {
		return
	}
	visited := r.target
	if e.visitStillLeaving(r, ev.KeyIn) {
		// The key was pressed where the user is, before the visit took the window from them.
		e.visitUserActive(r, visited)
		return
	}
	if ev.KeyIn != "" && ev.KeyIn != visited {
		e.visitAbort("the user pressed a key in another conversation", visitTakeoverPause)
		e.onChanging(ConversationChanging{To: ev.KeyIn})
		return
	}
	reason := ev.Reason
	if in := e.replies.inflight; in != nil && in.req.Conversation == visited {
		in.discard = true
	}
	if e.screen.holds(visited) {
		e.cancelPending()
		e.dropReplies(visited)
		e.dropAnnouncements(visited)
		e.releaseOwed("the user cancelled the visit")
		// The user stays in the conversation Clanker was visiting and told it to stop: it
		// posts nothing there (not even a notice it owes) until the conversation is opened
		// again.
		e.screen.fg.hushed = true
	}
	e.visits.queue = slices.DeleteFunc(e.visits.queue, func(id ConversationID) bool { return id == visited })
	e.visitStop(reason, visitTakeoverPause, false)
}

func (e *Engine) visitOnChanging(to ConversationID) {
	r := e.visits.run
	if r == nil {
		return
	}
	if to == r.target && to != "" {
		return // the page (re)reporting the conversation the visit is going to or is on
	}
	if (r.phase == visitNavigating || r.phase == visitReturning) && to == "" {
		return
	}
	e.visitAbort("the user opened another conversation", visitTakeoverPause)
}

// visitOnOpened tells a visit that a conversation opened and reports whether it is the visited one.
func (e *Engine) visitOnOpened(id ConversationID) bool {
	r := e.visits.run
	if r == nil {
		return false
	}
	switch {
	case r.phase == visitNavigating && id == r.target:
		delete(e.visits.failures, id)
		r.phase = visitProcessing
		r.tm.stop()
		r.tm = e.after(processingTimeout, func() { e.visitTimedOut(r) })
		return true
	case r.phase == visitProcessing && id == r.target:
		// The visited conversation reported again: the page was asked to, because its first
		// view could not be believed (an old pane lingering), or it reloaded. The user went
		// nowhere.
		return true
	case r.phase == visitReturning && id == r.returnTo:
		e.visitFinish()
		return false
	}
	e.visitAbort("the user opened another conversation", visitTakeoverPause)
	return false
}
