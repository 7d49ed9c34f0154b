package engine

import (
	"strings"
	"time"
)

// This file holds what Clanker owes a conversation: answers and notices.
//
// An answer is owed to every message the conversation's mode would answer (a message that
// addresses Clanker in Available, any human message in Active) that came after the decided
// point (Conversation.Decided). The decided point moves only when something covered the
// message: a reply computed with it in view was posted, the model declined it, or a reason
// the user saw released it (an error shown, a mode switched, a visit cancelled). Every other
// way an answer can be lost on its way (held behind a draft and gone stale, interrupted by
// the user's own typing, kept for a return and then out of date, dropped when the conversation
// moved on) leaves the message owed, and the engine asks again as soon as nothing else is
// under way there (pumpOwed). So an addressed message is never silently left unanswered.
//
// A notice is owed whenever the mode chosen for a conversation differs from the one its
// people were last told about (Conversation.Announced). Clanker acts only as far as both
// allow (Conversation.Acting), so it never listens before the people know.

// modeRank orders modes by how much they let Clanker do.
func modeRank(m Mode) int {
	switch m.normalized() {
	case ModeAvailable:
		return 1
	case ModeActive:
		return 2
	}
	return 0
}

// lesserMode is the mode of a and b that lets Clanker do less.
func lesserMode(a, b Mode) Mode {
	if modeRank(a) <= modeRank(b) {
		return a.normalized()
	}
	return b.normalized()
}

// Acting is the mode Clanker acts in: the one chosen, but never more than the people in the
// conversation were told about.
func (c Conversation) Acting() Mode { return lesserMode(c.Mode, c.Announced) }

// noticeOwed reports whether the people in the conversation have not been told about the mode
// chosen for it. Switching off a mode that was never announced owes nothing.
func (c Conversation) noticeOwed() bool { return c.Mode.normalized() != c.Announced.normalized() }

// refIndex returns the position of the message ref names in f.msgs (newest match first), or -1.
func (f *foreground) refIndex(ref MessageRef) int {
	if ref.IsZero() {
		return -1
	}
	if ref.ID != "" {
		if i := f.index(ref.ID); i >= 0 {
			return i
		}
	}
	for i := len(f.msgs) - 1; i >= 0; i-- {
		if ref.matches(f.msgs[i]) {
			return i
		}
	}
	return -1
}

// decidedAtStart marks a decided point placed before a conversation's first message: Clanker
// started (or a first view was taken) while the conversation held no message, so every message
// in it came after. No message id equals it.
var decidedAtStart = MessageRef{ID: "@start"}

// decidedNow is the decided point that covers everything in the conversation so far: its
// newest message, or decidedAtStart while it has none.
func (f *foreground) decidedNow() MessageRef {
	if len(f.msgs) == 0 {
		return decidedAtStart
	}
	return f.newestRef()
}

// decidedIndex is the position of the decided point in f.msgs: -1 when every message held is
// after it (a conversation that had no message when it was decided, a visit to one never
// processed whose only message the sidebar showed as new, or one whose every message shown
// came after the engine last looked), and -2 when it is not among them and could not be placed
// (see placeBySeen), so nothing can be placed after it.
func (f *foreground) decidedIndex() int {
	if f.allOwed || f.rec.Decided == decidedAtStart {
		return -1
	}
	if i := f.refIndex(f.rec.Decided); i >= 0 {
		return i
	}
	if i := f.refIndex(f.placed); i >= 0 {
		return i
	}
	return -2
}

// quietBefore is the ping-pong state just before message i: whether our own message is the
// latest word before it, other Clankers aside.
func (f *foreground) quietBefore(i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch m := f.msgs[j]; {
		case m.IsOwnClanker():
			return true
		case m.isHuman():
			return false
		}
	}
	return false
}

// owedTrigger returns the newest message owed an answer in the conversation on screen, or nil.
// Messages whose sender is still awaited (held) are decided by holdForSender first.
func (e *Engine) owedTrigger() *Message {
	fg := e.screen.fg
	start := fg.decidedIndex()
	if start < -1 {
		return nil
	}
	mode := e.mode()
	for i := len(fg.msgs) - 1; i > start; i-- {
		m := fg.msgs[i]
		if fg.held[m.ID] != nil {
			continue
		}
		if e.eligible(mode, m, fg.quietBefore(i)) {
			if fg.answeredElsewhereAfter(i) {
				return nil
			}
			return &m
		}
	}
	return nil
}

// answeredElsewhereAfter reports whether one of our own "[clanker]" messages that this engine
// did not post here follows message i: sent while the conversation was not on screen (from
// another device, or before a restart). It answered what came before it, as far as anyone can
// tell. The replies this engine posted are placed by the decided point instead, which knows
// what each one was computed with: a message that came while one was being typed stays owed.
// A mode notice answers nothing, whoever posted it (this engine before a restart included).
func (f *foreground) answeredElsewhereAfter(i int) bool {
	for _, m := range f.msgs[i+1:] {
		if m.IsOwnClanker() && !f.posted[postedKey(m.Text)] && !isNotice(m.Text) {
			return true
		}
	}
	return false
}

// isNotice reports whether text is one of Clanker's fixed mode notices.
func isNotice(text string) bool {
	switch postedKey(text) {
	case postedKey(AvailableText), postedKey(DeactivatedText), postedKey(ActiveFallbackText):
		return true
	}
	return false
}

// postedKey is how a text this engine posted is recognised when the page shows it back.
func postedKey(s string) string { return strings.Join(strings.Fields(s), " ") }

// answersOwed reports whether a reply computed with base as the newest message answers
// something still owed under the mode in force now: a message after the decided point, up to
// base, that this mode would answer. A reply computed before the mode changed (the change
// releases everything before it), or one whose messages another reply already covered, answers
// nothing and must not be posted.
func (e *Engine) answersOwed(base MessageRef) bool {
	fg := e.screen.fg
	end := fg.refIndex(base)
	if end < 0 {
		return false
	}
	start := max(fg.decidedIndex(), -1)
	mode := e.mode()
	for i := end; i > start; i-- {
		if e.eligible(mode, fg.msgs[i], fg.quietBefore(i)) && !fg.answeredElsewhereAfter(i) {
			return true
		}
	}
	return false
}

// advanceDecided moves the decided point of the conversation on screen forward to ref (never
// back) and stores it. why says what covered the messages up to ref, for the log.
func (e *Engine) advanceDecided(ref MessageRef, why string) {
	fg := e.screen.fg
	if fg == nil || ref.IsZero() {
		return
	}
	to := fg.refIndex(ref)
	if to < 0 {
		return
	}
	if from := fg.decidedIndex(); from >= to && from >= 0 {
		return
	}
	fg.allOwed = false
	fg.rec.Decided = fg.msgs[to].ref()
	e.log.Debug("engine: decided up to a message", "conversation", fg.id, "why", why)
	e.save(fg.rec)
}

// releaseOwed marks everything up to the newest message of the conversation on screen as
// decided: a mode switch, a cancelled visit or a failure the user was shown releases what was
// owed until then.
func (e *Engine) releaseOwed(why string) {
	if fg := e.screen.fg; fg != nil {
		e.advanceDecided(fg.newestRef(), why)
	}
}

// pumpOwed gives the conversation on screen what it is owed once nothing else is under way
// there: first the notice of its mode, then answers. It runs after every event, so a notice or
// an answer lost on any path (a superseded greeting, a stale held reply, the user's own send,
// an answer kept for a return that no longer fits) goes out again, never silently dropped.
//
// What it does is a second attempt (the first is made where the notice or answer arose), so it
// waits owedRetryPause after its previous attempt: a page that keeps refusing (it shows another
// conversation than the engine was told) costs one attempt per pause, not a loop.
func (e *Engine) pumpOwed() {
	fg := e.screen.fg
	if fg == nil || !e.screen.settledOn(fg.id) || fg.automated || fg.hushed || e.pageState != PageReady || e.paused() || !e.configured() {
		return
	}
	notice := fg.rec.noticeOwed() && !e.noticeOnItsWay(fg.id)
	var trig *Message
	if !notice && len(fg.held) == 0 && e.replies.pending == nil && e.replies.inflight == nil && e.sends.cur == nil &&
		len(e.sends.queue) == 0 && e.mode().participating() {
		trig = e.owedTrigger()
	}
	if !notice && trig == nil {
		return
	}
	if now := time.Now(); now.Before(e.screen.owedNext) {
		if e.screen.owedTm == nil {
			e.screen.owedTm = e.after(e.screen.owedNext.Sub(now), func() { e.screen.owedTm = nil })
		}
		return
	}
	e.screen.owedNext = time.Now().Add(owedRetryPause)
	if notice {
		e.announceOwed()
		return
	}
	e.log.Info("engine: a message is still owed an answer; asking again", "conversation", fg.id)
	e.scheduleResponse(*trig)
}

// owedRetryPause is how long pumpOwed waits between its attempts.
const owedRetryPause = 10 * time.Second

// noticeOnItsWay reports whether a notice for conv is queued, being typed, or being written by
// the model (the Active greeting).
func (e *Engine) noticeOnItsWay(conv ConversationID) bool {
	for _, j := range e.sends.queue {
		if j.conv == conv && j.announce != "" {
			return true
		}
	}
	if c := e.sends.cur; c != nil && c.conv == conv && c.announce != "" {
		return true
	}
	in := e.replies.inflight
	return in != nil && in.req.Kind == RequestActivation && in.req.Conversation == conv && in.gen == e.replies.gen
}

// announceOwed queues the notice the conversation on screen is owed, if any and none is on its
// way. A notice that switches Clanker on marks where it starts listening: nothing said before it
// is owed an answer.
func (e *Engine) announceOwed() {
	fg := e.screen.fg
	if fg == nil || fg.automated || !e.configured() || !fg.rec.noticeOwed() || e.noticeOnItsWay(fg.id) {
		return
	}
	mode := fg.rec.Mode.normalized()
	if !fg.rec.Acting().participating() && mode.participating() {
		fg.rec.Decided = fg.decidedNow()
		fg.allOwed = false
		e.save(fg.rec)
	}
	e.log.Info("engine: announcing the mode in the conversation", "conversation", fg.id, "mode", mode, "told", fg.rec.Announced.normalized())
	switch mode {
	case ModeAvailable:
		e.enqueue(&sendJob{conv: fg.id, text: AvailableText, announce: ModeAvailable})
	case ModeDeactivated:
		e.enqueue(&sendJob{conv: fg.id, text: DeactivatedText, farewell: true, announce: ModeDeactivated})
	case ModeActive:
		// The model writes the greeting, unless it is busy or an answer is owed here: the
		// answer is asked for next (one request at a time), and a greeting asked for first
		// would keep the person who addressed Clanker waiting a whole request longer. The
		// fixed text tells the people just as well.
		if e.replies.inflight != nil || e.answerComing(fg.id) {
			e.enqueue(&sendJob{conv: fg.id, text: ActiveFallbackText, announce: ModeActive})
			return
		}
		e.replies.gen++
		e.startRequest(RequestActivation, e.replies.gen)
	}
}

// answerComing reports whether the conversation on screen, conv, has an answer scheduled or
// owed under the mode Clanker acts in there now.
func (e *Engine) answerComing(conv ConversationID) bool {
	if p := e.replies.pending; p != nil && p.conv == conv {
		return true
	}
	return e.mode().participating() && e.owedTrigger() != nil
}

// recordPosted notes what a text that was just sent did: an answer covers the messages up to
// the one it was computed with, and a notice tells the people the mode it announces. The
// record is stored even when the user has already switched away: the text went out.
func (e *Engine) recordPosted(j *sendJob) {
	if posted := e.screen.postedIn(j.conv); len(posted) < 200 {
		posted[postedKey(j.text)] = true
	}
	if !j.reply && j.announce == "" {
		return
	}
	if e.screen.holds(j.conv) {
		fg := e.screen.fg
		if j.announce != "" {
			fg.rec.Announced = j.announce
			e.save(fg.rec)
		}
		if j.reply && !j.news {
			e.advanceDecided(j.base, "answer posted")
		}
		return
	}
	rec, ok, err := e.store.LoadConversation(j.conv)
	if err != nil {
		e.log.Error("engine: load conversation to record a posted notice", "conversation", j.conv, "err", err)
		return
	}
	if !ok {
		rec = Conversation{ID: j.conv}
	}
	if j.announce != "" {
		rec.Announced = j.announce
	}
	if j.reply && !j.news && !j.base.IsZero() {
		rec.Decided = j.base // no later decision can have been made there since the user left
	}
	e.save(rec)
}

// labelTime reads a message's time from the full label the page gives ("February 3, 2026 at
// 6:41 PM"), to the minute, as a wall-clock time in UTC (labels are compared only with
// labels). ok is false for a time-only or unknown stamp.
func labelTime(ts string) (time.Time, bool) {
	for _, layout := range labelLayouts {
		if t, err := time.Parse(layout, ts); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

var labelLayouts = []string{
	"January 2, 2006 at 3:04 PM",
	"Jan 2, 2006 at 3:04 PM",
	"January 2, 2006 at 15:04",
	"Jan 2, 2006 at 15:04",
	"2 January 2006 at 15:04",
	"2 Jan 2006 at 15:04",
}
