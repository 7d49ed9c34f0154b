package engine

import (
	"slices"
	"strings"
	"time"
)

type sidebarPhase string

const (
	phaseNavigating sidebarPhase = "navigating"
	phaseProcessing sidebarPhase = "processing"
	phaseReturning  sidebarPhase = "returning"
)

// sidebarState tracks inactive conversations: the snippet baseline, the queue of conversations
// to visit and the visit in progress.
type sidebarState struct {
	loaded   bool
	snippets map[ConversationID]string
	queue    []ConversationID
	run      *sidebarRun
	idleTm   *timer
	idleAt   time.Time
	// After a visit whose navigation failed, no visit starts before pauseUntil (30 s later),
	// so a conversation that will not open cannot make Clanker flick between
	// conversations. failures counts consecutive failed navigations per conversation.
	pauseUntil time.Time
	pauseTm    *timer
	failures   map[ConversationID]int
}

type sidebarRun struct {
	returnTo ConversationID
	target   ConversationID
	phase    sidebarPhase
	process  bool
	tm       *timer // navigation or processing timeout
	settle   *timer
}

func (s *sidebarState) stopTimers() {
	s.idleTm.stop()
	s.pauseTm.stop()
	if s.run != nil {
		s.run.tm.stop()
		s.run.settle.stop()
	}
}

func (e *Engine) onSidebar(ev SidebarUpdate) {
	now := time.Now()
	var touch []ConversationID
	for _, r := range ev.Rows {
		if now.Sub(e.lastTouch[r.ID]) >= seenWriteInterval {
			e.lastTouch[r.ID] = now
			touch = append(touch, r.ID)
		}
	}
	if len(touch) > 0 {
		if err := e.store.MarkSeen(touch, now); err != nil {
			e.log.Error("engine: mark conversations seen", "err", err)
		}
	}
	if !e.sb.loaded {
		for _, r := range ev.Rows {
			e.sb.snippets[r.ID] = r.Snippet
		}
		e.sb.loaded = len(ev.Rows) > 0
		return
	}
	for _, r := range ev.Rows {
		old, had := e.sb.snippets[r.ID]
		e.sb.snippets[r.ID] = r.Snippet
		if !had || old == r.Snippet {
			continue // a row that scrolled into view is a baseline, not news
		}
		if e.fg != nil && r.ID == e.fg.id {
			continue // the foreground handles its own messages; its baseline stays fresh
		}
		if run := e.sb.run; run != nil && r.ID == run.target {
			continue
		}
		if e.settings.InactiveMode == InactiveIgnore || !e.configured() {
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(r.Snippet), "You:") || IsAutomatedName(r.Name) {
			continue
		}
		rec, ok, err := e.store.LoadConversation(r.ID)
		if err != nil {
			e.log.Error("engine: load conversation for sidebar", "conversation", r.ID, "err", err)
			continue
		}
		if !ok {
			continue
		}
		mode := rec.Mode.normalized()
		if mode == ModeActive || (mode == ModeAvailable && mentionsClanker(r.Snippet)) {
			if !slices.Contains(e.sb.queue, r.ID) {
				e.sb.queue = append(e.sb.queue, r.ID)
				e.log.Info("engine: inactive conversation queued", "conversation", r.ID)
			}
		}
	}
}

// foregroundAvailable is the gate for leaving the foreground: no draft, nothing in flight, no
// timer, nothing being sent and no switch in progress.
func (e *Engine) foregroundAvailable() bool {
	return !e.draft && e.inflight == nil && e.pending == nil && e.cur == nil && len(e.sendQ) == 0 && !e.switching
}

// pipelineIdle is the gate for leaving a visited conversation; the user's draft there is not
// Clanker's concern.
func (e *Engine) pipelineIdle() bool {
	return e.inflight == nil && e.pending == nil && e.cur == nil && len(e.sendQ) == 0 && !e.switching
}

func (e *Engine) processMode(conv ConversationID) bool {
	r := e.sb.run
	return r != nil && r.process && r.phase == phaseProcessing && r.target == conv
}

// sbProgress starts a visit when the foreground allows it and finishes a visit once the
// pipeline is idle. It runs after every event instead of polling.
func (e *Engine) sbProgress() {
	if r := e.sb.run; r != nil {
		if r.phase != phaseProcessing || e.fg == nil || e.fg.id != r.target {
			return
		}
		if !e.pipelineIdle() {
			r.settle.stop()
			r.settle = nil
			return
		}
		if r.settle == nil {
			r.settle = e.after(processingSettle, func() { e.sbNext() })
		}
		return
	}
	// The conversation on screen is the foreground pipeline's business (its messages are
	// caught up when it opens): a queued visit to it would cover it with the overlay and wait
	// for a navigation that never comes.
	if e.fg != nil {
		e.sb.queue = slices.DeleteFunc(e.sb.queue, func(id ConversationID) bool { return id == e.fg.id })
	}
	if len(e.sb.queue) == 0 || e.settings.InactiveMode == InactiveIgnore || e.fg == nil ||
		e.pageState != PageReady || !e.configured() || !e.foregroundAvailable() {
		return
	}
	if now := time.Now(); now.Before(e.sb.pauseUntil) {
		if e.sb.pauseTm == nil {
			e.sb.pauseTm = e.after(e.sb.pauseUntil.Sub(now), func() { e.sb.pauseTm = nil })
		}
		return
	}
	if e.settings.InactiveMode == InactiveIdle && !e.hidden {
		at := e.lastActivity.Add(idleThreshold)
		if time.Now().Before(at) {
			if e.sb.idleTm == nil || !e.sb.idleAt.Equal(at) {
				e.sb.idleTm.stop()
				e.sb.idleAt = at
				e.sb.idleTm = e.after(time.Until(at), func() { e.sb.idleTm = nil })
			}
			return
		}
	}
	target := e.sb.queue[0]
	e.sb.queue = e.sb.queue[1:]
	e.sb.run = &sidebarRun{returnTo: e.fg.id, process: e.settings.InactiveMode == InactiveProcess}
	e.do(Command{Kind: CmdOverlay, Text: OverlayText}, nil)
	e.sbGo(target, true)
}

// sbGo navigates to target. leaving is true for the visit's first step, which takes the
// window away from the user's conversation: the page refuses it while the user is using the
// window (the engine's view of the compose box lags the page's by an event), and then the
// visit waits (sbUserActive).
func (e *Engine) sbGo(target ConversationID, leaving bool) {
	r := e.sb.run
	r.target, r.phase = target, phaseNavigating
	r.settle.stop()
	r.settle = nil
	r.tm.stop()
	r.tm = e.after(navigationTimeout, func() { e.sbNavigationFailed(target) })
	e.log.Info("engine: visiting inactive conversation", "conversation", target)
	var cb func(CommandResult)
	if leaving {
		cb = func(res CommandResult) {
			if res.Err == ResultUserActive {
				e.sbUserActive(r, target)
			}
		}
	}
	e.do(Command{Kind: CmdNavigate, Conversation: target, Visit: leaving}, cb)
}

// sbUserActive handles a visit the page refused because the user was using the window:
// nothing changed on screen, so Clanker stays, hides the overlay and tries again once the
// user has been quiet for a while. The conversation keeps its place at the head of the queue,
// and this is not a failed navigation.
func (e *Engine) sbUserActive(r *sidebarRun, target ConversationID) {
	if e.sb.run != r || r.phase != phaseNavigating || r.target != target {
		return // the visit already ended or moved on
	}
	e.log.Info("engine: visit waits, the user is using the window", "conversation", target, "pause", visitUserPause)
	e.sb.queue = append([]ConversationID{target}, slices.DeleteFunc(e.sb.queue, func(id ConversationID) bool { return id == target })...)
	if until := time.Now().Add(visitUserPause); until.After(e.sb.pauseUntil) {
		e.sb.pauseUntil = until
		e.sb.pauseTm.stop()
		e.sb.pauseTm = nil
	}
	e.sbReturn()
}

// sbNavigationFailed handles a visit whose conversation did not open within the navigation
// wait: the conversation goes back to the head of the queue, Clanker returns home, and the next
// attempt waits out the retry pause. The queue is never given up while it holds work; only a
// conversation that failed to open maxVisitFailures times in a row is dropped (it most likely no
// longer exists), so it cannot block the others forever.
func (e *Engine) sbNavigationFailed(target ConversationID) {
	if e.sb.failures == nil {
		e.sb.failures = map[ConversationID]int{}
	}
	e.sb.failures[target]++
	if n := e.sb.failures[target]; n >= maxVisitFailures {
		e.log.Warn("engine: inactive conversation did not open; giving up on it", "conversation", target, "attempts", n)
		delete(e.sb.failures, target)
	} else {
		e.log.Warn("engine: inactive conversation did not open; will retry", "conversation", target, "attempts", n, "pause", visitRetryPause)
		e.sb.queue = append([]ConversationID{target}, slices.DeleteFunc(e.sb.queue, func(id ConversationID) bool { return id == target })...)
	}
	e.sb.pauseUntil = time.Now().Add(visitRetryPause)
	e.sb.pauseTm.stop()
	e.sb.pauseTm = nil
	e.sbReturn()
}

// sbNext moves on after a visit: to the next queued conversation, or back home.
func (e *Engine) sbNext() {
	r := e.sb.run
	if r == nil {
		return
	}
	if len(e.sb.queue) > 0 {
		next := e.sb.queue[0]
		e.sb.queue = e.sb.queue[1:]
		e.sbGo(next, false)
		return
	}
	e.sbReturn()
}

func (e *Engine) sbReturn() {
	r := e.sb.run
	if r == nil {
		return
	}
	r.settle.stop()
	r.settle = nil
	r.tm.stop()
	if e.fg != nil && e.fg.id == r.returnTo && !e.switching {
		e.sbFinish()
		return
	}
	r.phase = phaseReturning
	r.target = r.returnTo
	r.tm = e.after(navigationTimeout, func() {
		e.log.Warn("engine: could not return to the original conversation", "conversation", r.returnTo)
		e.sbFinish()
	})
	e.do(Command{Kind: CmdNavigate, Conversation: r.returnTo}, nil)
}

func (e *Engine) sbFinish() {
	if r := e.sb.run; r != nil {
		r.tm.stop()
		r.settle.stop()
	}
	e.sb.run = nil
	e.do(Command{Kind: CmdOverlay}, nil)
}

// sbAbort ends a visit because the user took control: the queue is dropped and Clanker does
// not navigate back.
func (e *Engine) sbAbort(reason string) {
	if e.sb.run == nil {
		return
	}
	e.log.Info("engine: inactive-conversation processing stopped", "reason", reason)
	e.sb.queue = nil
	e.sb.failures = nil
	e.sbFinish()
}

// sbCancel ends a visit because the user asked for it while staying where they are: what
// Clanker was doing in the visited conversation stops too (the pending timer, a queued or
// half-typed reply, and the answer in flight, which will not be posted).
func (e *Engine) sbCancel(reason string) {
	if e.sb.run == nil {
		return
	}
	visited := e.sb.run.target
	if in := e.inflight; in != nil && in.req.Conversation == visited {
		in.discard = true
	}
	if e.fg != nil && e.fg.id == visited {
		e.cancelPending()
		e.dropReplies(visited)
	}
	e.sbAbort(reason)
}

func (e *Engine) sbOnChanging(to ConversationID) {
	r := e.sb.run
	if r == nil {
		return
	}
	if (r.phase == phaseNavigating || r.phase == phaseReturning) && (to == r.target || to == "") {
		return
	}
	e.sbAbort("the user opened another conversation")
}

// sbOnOpened tells a visit that a conversation opened and reports whether it is the visited one.
func (e *Engine) sbOnOpened(id ConversationID) bool {
	r := e.sb.run
	if r == nil {
		return false
	}
	switch {
	case r.phase == phaseNavigating && id == r.target:
		delete(e.sb.failures, id)
		r.phase = phaseProcessing
		r.tm.stop()
		r.tm = e.after(processingTimeout, func() {
			e.log.Warn("engine: visit took too long, moving on", "conversation", r.target)
			e.sbNext()
		})
		return true
	case r.phase == phaseReturning && id == r.returnTo:
		e.sbFinish()
		return false
	}
	e.sbAbort("the user opened another conversation")
	return false
}
