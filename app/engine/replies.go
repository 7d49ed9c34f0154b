package engine

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"
)

// replies is the pipeline from a trigger to the model's answer: the debounce timer, the one
// request that may be in flight, and answers kept for conversations the user left. gen
// numbers every decision; a timer or request of an older generation is stale.
type replies struct {
	gen      uint64
	pending  *pendingReply
	inflight *inflight
	// deferred holds, per conversation, an answer computed after the user left it.
	deferred map[ConversationID]*deferredReply
	deferSeq uint64
}

// pendingReply is the debounce timer between a trigger and the LLM request.
type pendingReply struct {
	conv    ConversationID
	gen     uint64
	fireAt  time.Time
	tm      *timer
	trigger MessageRef
	due     bool // the delay has passed; waiting for the draft to clear or a request to finish
}

// inflight is the one LLM request that may be running.
type inflight struct {
	gen      uint64
	req      LLMRequest
	base     MessageRef // newest message when the request was made
	process  bool       // inactive-conversation "process" mode: no typing
	followUp bool       // the image follow-up; a second image request is ignored
	fetching bool       // waiting for the page to fetch the image the model asked for
	// discard is set when the conversation's stored data was purged while the request ran
	// (its answer was computed from the deleted memory) or the user cancelled the visit it
	// belongs to: the answer must neither save nor post.
	discard bool
	// memoryEdited is set when the user edited or cleared the conversation's memory while
	// the request ran (EditMemory): the answer is posted, its context update is not saved.
	memoryEdited bool
}

// deferredReply is an answer computed for a conversation the user left before it arrived. It is
// delivered when the user returns, only if nothing newer was said there.
type deferredReply struct {
	conv ConversationID
	text string
	base MessageRef
	seq  uint64 // order of deferral, for the snapshot
}

// deferReply keeps text for conv until the user returns there. Each conversation has its own
// slot, so hopping through several conversations with answers in flight loses none of them;
// a newer answer for the same conversation replaces the older one.
func (e *Engine) deferReply(conv ConversationID, text string, base MessageRef) {
	e.replies.deferSeq++
	e.replies.deferred[conv] = &deferredReply{conv: conv, text: text, base: base, seq: e.replies.deferSeq}
}

type llmDone struct {
	gen   uint64
	reply Reply
	err   error
}

func (llmDone) validate() error { return nil }

// readingDelay is how long a person would take to read m: text at 18-23 characters per second
// plus 0.5-1.0 s per image.
func (e *Engine) readingDelay(m Message) time.Duration {
	var d time.Duration
	if n := utf8.RuneCountInString(m.Text); n > 0 {
		cps := e.uniform(18, 23)
		d += time.Duration(float64(n) / cps * float64(time.Second))
	}
	for range m.Images {
		d += e.uniformDur(500*time.Millisecond, time.Second)
	}
	return d
}

// cancelPending drops the debounce timer and supersedes any running request.
func (e *Engine) cancelPending() {
	if e.replies.pending != nil {
		e.replies.pending.tm.stop()
		e.replies.pending = nil
	}
	e.replies.gen++
}

// supersedeFor makes way for a newer trigger in conv: the debounce timer is dropped and the
// request in flight superseded, except the Active greeting being written for conv. A newer
// message does not make a greeting stale, and the answer waits for the request in flight
// anyway (one at a time): superseding the greeting only threw a paid request away and put the
// fixed text in its place.
func (e *Engine) supersedeFor(conv ConversationID) {
	if in := e.replies.inflight; in != nil && in.req.Kind == RequestActivation && in.req.Conversation == conv && in.gen == e.replies.gen {
		if p := e.replies.pending; p != nil {
			p.tm.stop()
			e.replies.pending = nil
		}
		return
	}
	e.cancelPending()
}

// scheduleResponse arms (or, with relaxed responsiveness, extends) the reply timer for trigger m
// in the foreground conversation.
func (e *Engine) scheduleResponse(m Message) {
	now := time.Now()
	conv := e.screen.fg.id
	if e.processMode(conv) {
		e.supersedeFor(conv)
		e.armPending(conv, m, now)
		return
	}
	if p := e.replies.pending; e.settings.RelaxedResponsiveness && p != nil && p.conv == conv && !p.due {
		fireAt := p.fireAt.Add(e.readingDelay(m))
		if limit := now.Add(readingCap); fireAt.After(limit) {
			fireAt = limit
		}
		p.tm.stop()
		p.fireAt = fireAt
		p.tm = e.after(fireAt.Sub(now), func() { e.pendingDue(p) })
		return
	}
	e.supersedeFor(conv)
	var d time.Duration
	if e.settings.RelaxedResponsiveness {
		d = max(readingFloor, e.readingDelay(m))
	} else {
		d = e.uniformDur(flatDelayMin, flatDelayMax)
	}
	e.armPending(conv, m, now.Add(d))
}

func (e *Engine) armPending(conv ConversationID, m Message, fireAt time.Time) {
	p := &pendingReply{conv: conv, gen: e.replies.gen, fireAt: fireAt, trigger: m.ref()}
	p.tm = e.after(time.Until(fireAt), func() { e.pendingDue(p) })
	e.replies.pending = p
	e.log.Debug("engine: reply scheduled", "conversation", conv, "in", time.Until(fireAt))
}

func (e *Engine) pendingDue(p *pendingReply) {
	if e.replies.pending != p {
		return
	}
	p.due = true
}

// pumpPending starts the request of a due timer once nothing stands in its way: the user's draft
// wins, and only one request may be in flight.
func (e *Engine) pumpPending() {
	p := e.replies.pending
	if p == nil || !p.due {
		return
	}
	if !e.screen.settledOn(p.conv) || !e.mode().participating() || p.gen != e.replies.gen {
		e.replies.pending = nil
		return
	}
	if in := e.replies.inflight; in != nil && in.fetching && in.gen != e.replies.gen {
		// A superseded image fetch does not hold up the newer trigger; its late result is
		// ignored because it is no longer the request in flight.
		e.replies.inflight = nil
	}
	if e.screen.draft || e.replies.inflight != nil {
		return
	}
	e.replies.pending = nil
	if e.paused() {
		e.replies.pending = nil
		return
	}
	if fg := e.screen.fg; fg.clankerAnsweredUs() {
		// The trigger was fine when it came, but since then one of our messages went out (a
		// notice held behind a draft, say) and another Clanker answered it. Asked with the
		// whole conversation, the model would be answering that Clanker: the ping-pong the
		// invariants forbid. What a person said before is still owed an answer, though, so
		// the model is asked with the conversation up to that person's newest message, and
		// the Clankers' words after it are left out. With nobody owed, nothing is asked
		// until a human writes.
		if i := fg.newestHuman(); i >= 0 && e.answersOwed(fg.msgs[i].ref()) {
			e.log.Info("engine: another Clanker answered ours; what a person asked before is answered without it", "conversation", p.conv)
			e.startRequestUpTo(RequestReply, p.gen, i)
			return
		}
		e.log.Info("engine: reply dropped, another Clanker answered ours since the trigger", "conversation", p.conv)
		e.releaseOwed("another Clanker answered ours; a human message asks afresh")
		return
	}
	e.startRequest(RequestReply, p.gen)
}

// history returns the messages the LLM side lays the model's view out from (see
// HistoryWindow), with "You" replaced by the user's name only where it names the local user:
// the sender label of the user's own messages. Other people's text is never rewritten: a "You"
// that someone typed means someone else.
func (e *Engine) history(msgs []Message) []Message {
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		m.OwnClanker = m.IsOwnClanker()
		m.OtherClanker = m.IsOtherClanker()
		if e.settings.UserName != "" && (m.Direction == Outgoing || m.Sender == "You") {
			m.Sender = e.settings.UserName
		}
		out[i] = m
	}
	return out
}

func (e *Engine) participants() []string {
	seen := map[string]bool{}
	var out []string
	add := func(name string) {
		if name == "" {
			return
		}
		if name == "You" && e.settings.UserName != "" {
			name = e.settings.UserName
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	for _, h := range e.screen.fg.header {
		add(h)
	}
	for _, m := range e.screen.fg.msgs {
		if m.Direction == Outgoing {
			add("You")
		} else {
			add(m.Sender)
		}
	}
	return out
}

// startRequest asks the model on its own goroutine for the foreground conversation.
func (e *Engine) startRequest(kind RequestKind, gen uint64) {
	e.startRequestUpTo(kind, gen, len(e.screen.fg.msgs)-1)
}

// startRequestUpTo asks the model about the foreground conversation as it stood at message
// last: the messages after it are not in the request, and the answer covers up to it.
func (e *Engine) startRequestUpTo(kind RequestKind, gen uint64, last int) {
	fg := e.screen.fg
	msgs := fg.msgs[:last+1]
	base := MessageRef{}
	if last >= 0 {
		base = msgs[last].ref()
	}
	size := e.settings.HistorySize
	if size <= 0 {
		size = 20
	}
	req := LLMRequest{
		Kind:            kind,
		Conversation:    e.screen.fg.id,
		Generation:      gen,
		UserName:        e.settings.UserName,
		Model:           e.modelFor(e.screen.fg.id),
		Participants:    e.participants(),
		History:         e.history(msgs),
		HistorySize:     size,
		WebSearch:       e.settings.WebSearch,
		NewsMaxSearches: e.settings.NewsMaxSearches,
	}
	e.launch(&inflight{gen: gen, req: req, base: base, process: e.processMode(fg.id)})
}

func (e *Engine) launch(in *inflight) {
	e.replies.inflight = in
	e.activity()
	ctx := e.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	req := in.req
	e.log.Info("engine: asking the model", "conversation", req.Conversation, "kind", req.Kind, "generation", req.Generation)
	go func() {
		r, err := e.llm.Complete(ctx, req)
		e.inbox.push(llmDone{gen: req.Generation, reply: r, err: err})
	}()
}

// cleanReply strips whitespace and any prefix the model added itself, so the prefix appears
// exactly once.
func cleanReply(s string) string {
	s = strings.TrimSpace(s)
	p := strings.TrimSpace(Prefix)
	for len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
		s = strings.TrimSpace(s[len(p):])
	}
	return s
}

func (e *Engine) onLLMDone(d llmDone) {
	in := e.replies.inflight
	if in == nil || in.gen != d.gen {
		e.log.Warn("engine: answer for an unknown request ignored", "generation", d.gen)
		return
	}
	e.replies.inflight = nil
	e.activity()
	conv := in.req.Conversation
	if d.err != nil {
		if e.ctx != nil && e.ctx.Err() != nil {
			return
		}
		e.onLLMError(in, d.err)
		return
	}
	if in.discard {
		e.log.Info("engine: answer dropped, its conversation was purged or its visit cancelled while it was computed", "conversation", conv)
		if in.req.Kind == RequestActivation && in.gen == e.replies.gen && e.screen.settledOn(conv) && e.chosen() == ModeActive {
			e.enqueue(&sendJob{conv: conv, text: ActiveFallbackText, announce: ModeActive})
		}
		return
	}
	e.errStreak = 0
	// The service answered, so neither the key, the quota nor the settings stand in the way
	// any more.
	e.clearCauseBanners("a request succeeded")
	upd := d.reply.Update
	if in.req.Kind == RequestNews {
		upd.CustomizationSet, upd.Customization = false, nil
	}
	if in.memoryEdited && !upd.Empty() {
		e.log.Info("engine: context update dropped, the user edited the memory while it was computed", "conversation", conv)
		upd = ContextUpdate{}
	}
	if !upd.Empty() {
		if err := e.store.ApplyContext(conv, upd); err != nil {
			e.log.Error("engine: save model context", "conversation", conv, "err", err)
		}
	}
	current := in.gen == e.replies.gen && e.screen.settledOn(conv)
	text := cleanReply(d.reply.Text)
	asksImage := d.reply.RequestImage != "" && !in.followUp

	switch in.req.Kind {
	case RequestActivation:
		if !current || e.chosen() != ModeActive {
			return // a superseded greeting is dropped; the notice stays owed (announceOwed)
		}
		if text == "" || strings.HasPrefix(text, "{") || d.reply.RequestImage != "" {
			text = strings.TrimPrefix(ActiveFallbackText, Prefix)
		}
		e.enqueue(&sendJob{conv: conv, text: Prefix + text, announce: ModeActive})
		return
	case RequestNews:
		if asksImage {
			// The image request wins over the text, and a news check has no image flow.
			e.log.Info("engine: news answer asked for an image; nothing sent", "conversation", conv)
			return
		}
		if current && text != "" && e.mode().participating() {
			e.enqueue(&sendJob{conv: conv, text: Prefix + text, reply: true, news: true, typed: e.settings.RelaxedResponsiveness, base: in.base})
		}
		return
	}

	if !current {
		if asksImage {
			// The text of an answer that wanted an image first was written without seeing
			// it; it is not kept for later.
			return
		}
		if text == "" {
			return
		}
		if !e.screen.settledOn(conv) {
			e.deferReply(conv, Prefix+text, in.base)
			e.log.Info("engine: answer kept for when the user returns", "conversation", conv)
			return
		}
		// The user left and came back (or the mode changed) while the answer was on its
		// way: it is still the answer here as long as nothing newer was said and it answers
		// something owed under the mode in force now. Otherwise what is owed is asked again.
		if len(e.screen.fg.msgs) > 0 && !e.screen.fg.movedOnSince(in.base) && e.mode().participating() &&
			e.replies.pending == nil && !e.replyQueued(conv) && e.answersOwed(in.base) {
			e.enqueue(&sendJob{conv: conv, text: Prefix + text, reply: true, typed: e.settings.RelaxedResponsiveness && !in.process, base: in.base})
			return
		}
		e.log.Info("engine: an answer that came back late no longer fits; what is owed is asked again", "conversation", conv)
		return
	}
	if asksImage {
		e.fetchImage(in, d.reply.RequestImage)
		return
	}
	if !e.mode().participating() {
		return
	}
	if text == "" {
		// The model chose to stay silent: what it saw is decided. Someone who addressed
		// Clanker by name is told, since the rules say it must answer them.
		if e.mode() == ModeAvailable && e.answersOwed(in.base) {
			e.toast("info", "Clanker's model chose not to answer; ask it again if you want a reply.")
		}
		e.advanceDecided(in.base, "the model chose not to answer")
		return
	}
	if !e.answersOwed(in.base) {
		e.log.Info("engine: answer dropped, it answers nothing still owed under the mode in force", "conversation", conv)
		return
	}
	e.enqueue(&sendJob{conv: conv, text: Prefix + text, reply: true, typed: e.settings.RelaxedResponsiveness && !in.process, base: in.base})
}

// fetchImage asks the page for an image the model wants to see and re-asks the model with it.
// Only images that are actually in this conversation may be fetched.
func (e *Engine) fetchImage(in *inflight, src string) {
	found := false
	for _, m := range e.screen.fg.msgs {
		for _, img := range m.Images {
			if img.Src == src {
				found = true
			}
		}
	}
	if !found {
		e.log.Warn("engine: model asked for an image not in the conversation", "conversation", in.req.Conversation)
		e.toast("error", "The model asked for an image that is not in this conversation; nothing was sent.")
		e.advanceDecided(in.base, "the model asked for an image that is not here (shown to the user)")
		return
	}
	e.replies.inflight = in // still busy: fetching belongs to this request
	in.fetching = true
	// finish runs once, with the page's answer or at the timeout, whichever comes first. A
	// fetch that never answers must not keep the request in flight forever.
	var tm *timer
	finish := func(img *ImageData) {
		tm.stop()
		if e.replies.inflight != in || !in.fetching {
			return
		}
		in.fetching = false
		if in.gen != e.replies.gen {
			e.replies.inflight = nil // superseded while fetching
			return
		}
		next := *in
		next.followUp = true
		next.req.Image = img
		e.launch(&next)
	}
	var id uint64
	tm = e.after(imageFetchTimeout, func() {
		delete(e.awaiting, id) // a late answer from the page is ignored
		e.log.Info("engine: image fetch timed out; the model is told it is unavailable", "conversation", in.req.Conversation)
		finish(&ImageData{Src: src, Unavailable: "fetching it from the page took too long"})
	})
	id = e.do(Command{Kind: CmdFetchImage, Conversation: in.req.Conversation, Src: src}, func(r CommandResult) {
		if r.Err != "" || len(r.Data) == 0 {
			// The model still answers, told that it cannot see the picture: a person who
			// addressed Clanker gets a reply either way.
			e.log.Info("engine: image fetch failed; the model is told it is unavailable", "conversation", in.req.Conversation, "err", r.Err)
			finish(&ImageData{Src: src, Unavailable: "the app could not fetch it from the page"})
			return
		}
		finish(&ImageData{Src: src, Data: r.Data})
	})
}

// onLLMError reacts by class: invalid key or exhausted quota switch the conversation off
// without a word; passing server and network trouble is shown once per streak.
func (e *Engine) onLLMError(in *inflight, err error) {
	var le *LLMError
	if !errors.As(err, &le) {
		le = &LLMError{Class: ErrUnknown, UserText: "The AI service failed: " + err.Error(), Err: err}
	}
	e.errStreak++
	conv := in.req.Conversation
	e.log.Warn("engine: model request failed", "conversation", conv, "class", le.Class, "status", le.Status)
	switch le.Class {
	case ErrBudget:
		// The user's own monthly limit is reached: no conversation may spend more, so every
		// stored conversation is switched off, not just this one, and, as for an exhausted
		// quota, without a word into the chat.
		e.errStreak = 0
		e.deactivate(conv)
		if _, err := e.store.DeactivateAll(); err != nil {
			e.log.Warn("engine: deactivate all after the budget was spent", "err", err)
		}
		if e.screen.fg != nil {
			e.screen.fg.rec.Mode = ModeDeactivated
			e.cancelPending()
			e.dropReplies(e.screen.fg.id)
			e.status()
		}
		clear(e.replies.deferred)
		e.visits.queue = nil
		e.banner(BannerDeactivated, le.UserText) // the gate's sentence already says Clanker is off
		e.budgetMonth = time.Now().In(e.loc).Format("2006-01")
		return
	case ErrAuth, ErrQuota:
		e.errStreak = 0
		e.deactivate(conv)
		e.banner(BannerDeactivated, strings.TrimSpace(le.UserText+" Clanker has been deactivated."))
		e.budgetMonth = ""
		return
	case ErrSettings:
		// Nothing left the machine. A banner (not a toast per message) says what to fix; it
		// stays until the settings change or a request succeeds.
		e.errStreak = 0
		e.banner(BannerSettings, le.UserText)
		e.releaseFailed(in, "a settings problem (shown in a banner)")
		return
	}
	// A passing failure is shown once per streak (a rate limit not at all: the client has
	// retried already and the next message will likely get through); a message that addressed
	// Clanker by name is owed an answer, so its failure is always shown.
	addressed := in.req.Kind == RequestReply && e.screen.settledOn(conv) && e.mode() == ModeAvailable && e.answersOwed(in.base)
	switch {
	case addressed:
		e.toast("error", strings.TrimSpace(le.UserText+" Clanker could not answer the message that addressed it."))
	case le.Class == ErrRateLimit:
	case le.Class == ErrServer, le.Class == ErrNetwork:
		if e.errStreak == 1 {
			e.toast("error", le.UserText)
		}
	default:
		e.toast("error", le.UserText)
	}
	e.releaseFailed(in, "the request failed ("+string(le.Class)+")")
	if in.req.Kind == RequestActivation && in.gen == e.replies.gen && e.screen.settledOn(conv) && e.chosen() == ModeActive {
		e.enqueue(&sendJob{conv: conv, text: ActiveFallbackText, announce: ModeActive})
	}
}

// releaseFailed marks what a failed reply request was computed with as decided: the failure was
// shown, and asking again at once would only fail again. A newer message asks afresh.
func (e *Engine) releaseFailed(in *inflight, why string) {
	if in.req.Kind == RequestReply && e.screen.settledOn(in.req.Conversation) {
		e.advanceDecided(in.base, why)
	}
}

// clearCauseBanners removes the banners about a failed request (deactivated after an auth,
// quota or budget failure; unusable settings) once their cause is gone.
func (e *Engine) clearCauseBanners(why string) {
	if e.banners[BannerDeactivated] || e.banners[BannerSettings] {
		e.log.Info("engine: warning banner removed, its cause is gone", "why", why)
	}
	e.banner(BannerDeactivated, "")
	e.banner(BannerSettings, "")
	e.budgetMonth = ""
}

// replyQueued reports whether a model reply for conv is queued or being sent.
func (e *Engine) replyQueued(conv ConversationID) bool {
	for _, j := range e.sends.queue {
		if j.reply && j.conv == conv {
			return true
		}
	}
	return e.sends.cur != nil && e.sends.cur.reply && e.sends.cur.conv == conv
}

// reevaluate looks again at the foreground after a held or kept reply went stale: the newest
// message still owed an answer gets a fresh response (computed with everything said since),
// unless a newer response is already on its way (a timer, a request, or a reply queued behind
// the stale one, which was computed later and so saw at least as much): asking again then would
// answer the same message twice.
func (e *Engine) reevaluate() {
	fg := e.screen.fg
	if fg == nil || e.replies.pending != nil || e.replies.inflight != nil || e.replyQueued(fg.id) {
		return
	}
	if trig := e.owedTrigger(); trig != nil {
		e.scheduleResponse(*trig)
	}
}
