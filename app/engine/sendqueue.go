package engine

import (
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxReplyRunes caps the text after the prefix (about ten SMS segments). The LLM client
// shortens longer replies to it at a sentence; the engine enforces it again so that no
// component outside it can make Clanker post a novel into an SMS thread.
const MaxReplyRunes = 1600

// guardText is the last check before a text may be queued: it must start with the prefix (the
// people in the chat must always know a model wrote it), must say something after it, and is
// cut to MaxReplyRunes at a word boundary when longer.
func guardText(s string) (string, bool) {
	if !strings.HasPrefix(s, Prefix) {
		return "", false
	}
	body := strings.TrimSpace(s[len(Prefix):])
	if body == "" {
		return "", false
	}
	if utf8.RuneCountInString(body) > MaxReplyRunes {
		cut := string([]rune(body)[:MaxReplyRunes-1])
		if i := strings.LastIndexAny(cut, " \n\t"); i > len(cut)/2 {
			cut = cut[:i]
		}
		body = strings.TrimSpace(cut) + "…"
	}
	return Prefix + body, true
}

// sendQueue is the pipeline of texts on their way into the compose box: one at a time, in
// order, each typed and sent by Enter.
type sendQueue struct {
	queue []*sendJob
	cur   *sendJob
	// leftover holds, per conversation, Clanker's partial text that could not be taken out of
	// its compose box (the user had already switched away, so the remove met another box).
	// Messages keeps each conversation's box, so the text is still there when the user comes
	// back; it is taken out then, before anything else is typed there.
	leftover map[ConversationID]string
}

// sendJob is one text on its way into the conversation. Jobs run strictly one at a time.
type sendJob struct {
	conv     ConversationID
	text     string // full text, prefix included
	reply    bool   // a model reply: subject to the held-reply rule
	news     bool   // a news item the model chose to share: it answers nothing owed
	farewell bool   // the deactivation announcement, the only text allowed in a Deactivated conversation
	// announce is the mode a mode announcement (or activation greeting) belongs to. It may only
	// be sent while the conversation is still in that mode: a notice held behind the user's
	// draft must not be posted after the mode changed again.
	announce Mode
	typed    bool
	base     MessageRef // newest message when the reply was computed
	held     bool       // had to wait for the user's draft

	runes    []rune
	pos      int // runes inserted so far
	delays   []time.Duration
	inserted string
	// sent is what went to the page for the box so far, confirmed or not: inserted plus a
	// command still on its way. A job aborted before its insert or typing step came back has
	// that text in the box all the same, and only this says so.
	sent string
	tm   *timer
	// entering is set once Enter was asked for: from then on the text is on its way out and
	// can no longer be taken back.
	entering bool
}

func (e *Engine) enqueue(j *sendJob) {
	text, ok := guardText(j.text)
	if !ok {
		e.log.Error("engine: refused to queue a text without the prefix or without content", "conversation", j.conv, "chars", len(j.text))
		return
	}
	j.text = text
	e.sends.queue = append(e.sends.queue, j)
}

// dropReplies removes queued and running model replies for conv ("" = all conversations).
func (e *Engine) dropReplies(conv ConversationID) {
	kept := e.sends.queue[:0]
	for _, j := range e.sends.queue {
		if j.reply && (conv == "" || j.conv == conv) {
			continue
		}
		kept = append(kept, j)
	}
	e.sends.queue = kept
	if j := e.sends.cur; j != nil && j.reply && !j.entering && (conv == "" || j.conv == conv) {
		e.abortCurrent("cancelled")
	}
	if conv == "" {
		clear(e.replies.deferred)
	} else {
		delete(e.replies.deferred, conv)
	}
}

// abortCurrent stops the running job and removes whatever part of it was already in the box.
func (e *Engine) abortCurrent(reason string) {
	j := e.sends.cur
	if j == nil {
		return
	}
	j.tm.stop()
	e.sends.cur = nil
	// The page runs commands in the order they come, so a remove sent now meets the box after
	// an insert or typing step still on its way: what it put there goes too.
	if j.sent != "" {
		e.takeOut(j.conv, j.sent)
	}
	e.log.Info("engine: send aborted", "conversation", j.conv, "reason", reason)
}

// takeOut asks the page to remove Clanker's partial text from conv's compose box. Until the
// page confirms, the text counts as left behind in that box: when the user switched away
// first, the remove meets another conversation's box and fails, and the text waits there for
// the user's return (see removeLeftover). The record is stored as well as kept here, so an
// engine started after a restart or a crash still knows the text is Clanker's.
func (e *Engine) takeOut(conv ConversationID, text string) {
	e.sends.leftover[conv] = text
	e.saveLeftover(conv, text)
	e.do(Command{Kind: CmdRemoveText, Conversation: conv, Text: text}, func(r CommandResult) {
		e.toldHowRemoved(r)
		if r.Err == "" && e.sends.leftover[conv] == text {
			delete(e.sends.leftover, conv)
			e.saveLeftover(conv, "")
		}
	})
}

// removeLeftover takes Clanker's partial text left behind in conv's compose box out again, now
// that conv is on screen: the text this engine remembers, or else the text the store kept
// from an earlier run (stored). Only that text goes: the page removes exactly it, so whatever
// the user typed stays as typed. The attempt is made once; if the text is gone already (the
// user cleared the box), there is nothing left to do.
func (e *Engine) removeLeftover(conv ConversationID, stored string) {
	text, ok := e.sends.leftover[conv]
	if !ok {
		text, ok = stored, stored != ""
	}
	if !ok {
		return
	}
	delete(e.sends.leftover, conv)
	e.saveLeftover(conv, "")
	e.log.Debug("engine: taking out Clanker's text left in the compose box when the user switched away", "conversation", conv, "chars", len(text))
	e.do(Command{Kind: CmdRemoveText, Conversation: conv, Text: text}, nil)
}

// saveLeftover stores conv's leftover record. A failed write is logged and otherwise
// ignored: the in-memory record still serves this run, and only a restart would miss it.
func (e *Engine) saveLeftover(conv ConversationID, text string) {
	if err := e.store.SaveLeftover(conv, text); err != nil {
		e.log.Warn("engine: could not store Clanker's leftover compose text", "conversation", conv, "err", err)
	}
}

// allowed reports whether job j may be sent into the foreground right now.
// A notice goes out while its mode is still the one chosen (it is what makes Clanker act in
// it); a model's text only while Clanker acts there, and an answer only while it still answers
// something owed under the mode in force (a mode switched meanwhile releases what came before).
func (e *Engine) allowed(j *sendJob) bool {
	if !e.screen.settledOn(j.conv) || e.screen.fg.automated || e.pageState != PageReady || e.paused() {
		return false
	}
	if j.announce != "" {
		return e.screen.fg.rec.Mode.normalized() == j.announce && e.configured()
	}
	if !e.mode().participating() {
		return false
	}
	return !j.reply || j.news || e.answersOwed(j.base)
}

// dropAnnouncements removes queued and running mode announcements for conv: a new mode
// change makes every earlier notice wrong.
func (e *Engine) dropAnnouncements(conv ConversationID) {
	e.sends.queue = slices.DeleteFunc(e.sends.queue, func(j *sendJob) bool { return j.announce != "" && j.conv == conv })
	if j := e.sends.cur; j != nil && j.announce != "" && !j.entering && j.conv == conv {
		e.abortCurrent("mode changed again")
	}
}

// pumpSend starts the next job when none is running. A draft in the box holds every job; a held
// reply is sent once the box is empty only if no newer message arrived, otherwise the
// conversation is evaluated again.
func (e *Engine) pumpSend() {
	for e.sends.cur == nil && len(e.sends.queue) > 0 {
		if e.pageState != PageReady || e.screen.switching {
			return
		}
		j := e.sends.queue[0]
		if !e.allowed(j) {
			e.sends.queue = e.sends.queue[1:]
			e.log.Info("engine: queued text dropped, its conversation is not on screen or not participating", "conversation", j.conv)
			continue
		}
		if e.screen.draft {
			j.held = true
			return
		}
		if j.held && time.Since(e.screen.draftClearedAt) < draftSettle {
			return
		}
		e.sends.queue = e.sends.queue[1:]
		if j.held && j.reply && !j.news && !j.base.IsZero() {
			if e.screen.fg.movedOnSince(j.base) {
				e.log.Info("engine: held reply is stale, re-evaluating", "conversation", j.conv)
				e.reevaluate()
				continue
			}
		}
		e.start(j)
	}
}

// typingPlan decides how the reply is typed: the prefix at once, the rest one character at a
// time at 350-450 characters per second plus 1-150 ms of jitter each, the whole typing time
// truly capped at 8 s (the jitter is scaled down when needed, since at ~75 ms of average
// jitter per character it alone would exceed the cap for long replies). Typing is skipped when
// the per-character delay would be under 0.5 ms.
func (e *Engine) typingPlan(rest int) []time.Duration {
	if rest <= 0 {
		return nil
	}
	cps := e.uniform(350, 450)
	base := min(time.Duration(float64(rest)/cps*float64(time.Second)), typingCap)
	per := base / time.Duration(rest)
	if per < typingMinPerChar {
		return nil
	}
	jit := make([]float64, rest)
	var sum float64
	for i := range jit {
		jit[i] = e.uniform(float64(time.Millisecond), float64(150*time.Millisecond))
		sum += jit[i]
	}
	budget := float64(typingCap - per*time.Duration(rest))
	scale := 1.0
	if sum > budget {
		scale = budget / sum
	}
	out := make([]time.Duration, rest)
	for i := range out {
		out[i] = per + time.Duration(jit[i]*scale)
	}
	return out
}

func (e *Engine) start(j *sendJob) {
	e.sends.cur = j
	j.runes = []rune(j.text)
	j.pos, j.inserted, j.sent = 0, "", ""
	first := j.text
	j.delays = nil
	if j.typed {
		prefix := len([]rune(Prefix))
		if len(j.runes) > prefix {
			j.delays = e.typingPlan(len(j.runes) - prefix)
		}
		if j.delays != nil {
			first = Prefix
		}
	}
	e.log.Info("engine: sending", "conversation", j.conv, "typed", j.delays != nil, "chars", len(j.runes))
	j.sent = first
	e.do(Command{Kind: CmdInsertText, Conversation: j.conv, Text: first}, func(r CommandResult) {
		if e.sends.cur != j {
			return
		}
		switch r.Err {
		case "":
		case ResultUserTyping, ResultComposeChanged:
			// The user started typing after we last looked: hold the job, lose nothing.
			e.yieldToUser("the page refused to insert: " + r.Err)
			return
		default:
			e.failCurrent(r.Err)
			return
		}
		j.inserted = first
		j.pos = len([]rune(first))
		e.step(j)
	})
}

// step types the next character after its delay, or presses Enter when all text is in.
func (e *Engine) step(j *sendJob) {
	if j.pos >= len(j.runes) {
		j.entering = true
		e.do(Command{Kind: CmdPressEnter, Conversation: j.conv}, func(r CommandResult) {
			if e.sends.cur != j {
				return
			}
			if r.Err == ResultUserTyping {
				// The page refused before pressing (the user typed into the box after
				// Clanker's text went in): nothing was sent, so the job yields to the user
				// as after a refused typing step.
				j.entering = false
				e.yieldToUser("the page refused the Enter: " + r.Err)
				return
			}
			if r.Err != "" {
				e.failCurrent(r.Err)
				return
			}
			e.sends.cur = nil
			if e.screen.holds(j.conv) {
				e.screen.fg.quiet = true
			}
			e.recordPosted(j)
			e.activity()
		})
		return
	}
	i := j.pos - (len(j.runes) - len(j.delays))
	j.tm = e.after(j.delays[i], func() {
		if e.sends.cur != j {
			return
		}
		ch := string(j.runes[j.pos])
		j.sent = j.inserted + ch
		e.do(Command{Kind: CmdTypeText, Conversation: j.conv, Text: ch}, func(r CommandResult) {
			if e.sends.cur != j {
				return
			}
			if r.Err == ResultUserTyping || r.Err == ResultComposeChanged {
				e.yieldToUser("the page refused a typing step: " + r.Err)
				return
			}
			if r.Err != "" {
				e.failCurrent(r.Err)
				return
			}
			j.inserted += ch
			j.pos++
			e.step(j)
		})
	})
}

// yieldToUser stops the running job because the user is typing into the box: no further
// step is typed, Clanker's partial text is taken out (the bridge removes exactly what Clanker
// inserted, so the user's characters stay as typed), and the job goes back to the head of the
// queue as held. pumpSend starts it afresh once the user's draft is sent or cleared, or
// re-decides when a newer message arrived meanwhile. Nothing is shown to the user: they did
// nothing wrong. A job whose Enter was already pressed cannot be taken back and is left alone.
func (e *Engine) yieldToUser(reason string) {
	j := e.sends.cur
	if j == nil || j.entering {
		e.screen.draft = true
		return
	}
	j.tm.stop()
	e.sends.cur = nil
	// The bridge removes whatever Clanker inserted, including a step that was still on its
	// way when the user started typing, so the remove goes out even if nothing is confirmed.
	if j.inserted != "" {
		e.takeOut(j.conv, j.inserted)
	} else {
		e.do(Command{Kind: CmdRemoveText, Conversation: j.conv}, e.toldHowRemoved)
	}
	j.held = true
	j.inserted, j.sent, j.pos = "", "", 0
	e.sends.queue = append([]*sendJob{j}, e.sends.queue...)
	e.screen.draft = true
	e.log.Debug("engine: Clanker stopped typing for the user; the text waits for their draft", "conversation", j.conv, "reason", reason)
}

func (e *Engine) failCurrent(reason string) {
	j := e.sends.cur
	e.abortCurrent(reason)
	if reason != ResultWrongConversation && j != nil {
		e.toast("error", "Failed to send message: "+reason)
	}
}

// Removal says how the page took Clanker's text out of the compose box (the remove_text
// result's data): "whole" (it was still in one piece), "by_position" (the user had typed into
// it; exactly Clanker's characters were taken out by where they were), "restored" (they could
// not be told apart any more: the mixed text was cleared and the user's characters put back),
// or "nothing" (none of it was there).
type Removal struct {
	Removed int    `json:"removed"`
	How     string `json:"how"`
}

// toldHowRemoved tells the user when Clanker's text had to be taken out of what they were
// typing, so they are never surprised by their box changing under them (issue 27.3).
func (e *Engine) toldHowRemoved(r CommandResult) {
	var rm Removal
	if r.Err != "" || len(r.Data) == 0 || json.Unmarshal(r.Data, &rm) != nil {
		return
	}
	switch rm.How {
	case "by_position":
		e.toast("info", "Clanker took its unfinished reply out of the box; what you typed is kept.")
	case "restored":
		e.toast("info", "Clanker's unfinished reply was mixed into what you typed, so the box was cleared and your characters put back.")
	}
}
