package engine

import (
	"slices"
	"strings"
	"time"
)

// screen is the pipeline of the conversation on screen: what the engine has seen of it, whether
// a switch to another conversation is under way, and the compose box.
type screen struct {
	fg        *foreground
	switching bool
	draft     bool
	focused   bool
	// draftClearedAt is when the user's draft last disappeared.
	draftClearedAt time.Time
	// waitShown is whether the pill last said that Clanker waits for the user's draft.
	waitShown bool
	// posted is, per conversation, the texts this engine posted there in this run, so that its
	// own messages are told from those sent elsewhere when the conversation is shown again.
	// Only the conversations posted in most recently are kept.
	posted      map[ConversationID]map[string]bool
	postedOrder []ConversationID
	// owedNext is when pumpOwed may make its next attempt; owedTm wakes the pump then.
	owedNext time.Time
	owedTm   *timer
	// doubted is the conversation whose last view could not be believed (see doubt): the
	// screen stays unsettled until a consistent view arrives. resyncTm asks the page to report
	// it again after resyncWait.
	doubted    ConversationID
	resyncWait time.Duration
	resyncTm   *timer
	// composeNext is when the engine may next ask the page to read the compose box, and
	// composeTm wakes the pump then (see checkDraft).
	composeNext time.Time
	composeTm   *timer
	// doubtHeader and doubtIDs are the first report of the doubtful view (see believe), seen
	// doubtSeen times since doubtSince.
	doubtHeader string
	doubtIDs    []string
	doubtSeen   int
	doubtSince  time.Time
}

// maxPostedConversations bounds how many conversations' posted texts the screen remembers.
const maxPostedConversations = 50

// postedIn returns the record of texts posted in conv, creating it (and forgetting the oldest
// conversation's when there are too many).
func (s *screen) postedIn(conv ConversationID) map[string]bool {
	if p, ok := s.posted[conv]; ok {
		return p
	}
	if s.posted == nil {
		s.posted = map[ConversationID]map[string]bool{}
	}
	if len(s.postedOrder) >= maxPostedConversations {
		delete(s.posted, s.postedOrder[0])
		s.postedOrder = s.postedOrder[1:]
	}
	p := map[string]bool{}
	s.posted[conv] = p
	s.postedOrder = append(s.postedOrder, conv)
	return p
}

// settledOn reports whether conv is the conversation on screen and settled: the page reported
// it opened and no switch to another conversation has begun since. This is the one gate for
// acting in a conversation: deciding on its messages, starting a request, posting an answer or
// typing into its box. During a switch nothing is decided for either conversation; an answer
// that arrives then is kept for when the user returns (see onLLMDone).
func (s *screen) settledOn(conv ConversationID) bool {
	return s.fg != nil && !s.switching && s.fg.id == conv
}

// holds reports whether the engine's view of the conversation on screen is conv's, settled or
// being left. It is the gate for keeping that view true (an id change, history, the compose
// box, what a purge or a deactivation must stop), never for acting: see settledOn.
func (s *screen) holds(conv ConversationID) bool {
	return s.fg != nil && s.fg.id == conv
}

// foreground is the conversation on screen, as far as the engine has seen it.
type foreground struct {
	id        ConversationID
	rec       Conversation
	automated bool
	header    []string
	msgs      []Message
	seen      map[string]bool
	byVisit   bool
	// quiet is true when our own reply is the latest word (other Clankers aside): a further
	// Clanker message then would be the ping-pong the invariants forbid, so it triggers nothing
	// until a human writes. It is also set the moment our Enter succeeds, before the page echoes
	// the message back.
	quiet bool
	// held are the new messages whose trigger decision waits for their sender (see
	// senderWait), by message id.
	held map[string]*heldDecision
	// allOwed is set when every message held is owed an answer: a visit opened a conversation
	// never processed whose only message the sidebar showed as new, or every message shown came
	// after the engine last looked (see placeBySeen).
	allOwed bool
	// placed stands in for the decided point while its message is not among those held: the
	// newest message shown that the engine had processed before (see placeBySeen). It is not
	// stored; the stored point moves only with a decision.
	placed MessageRef
	// hushed is set when the user cancelled Clanker's visit to this conversation and stayed:
	// nothing owed is posted here until it is opened again.
	hushed bool
	// posted holds the texts this engine posted in this conversation (see
	// answeredElsewhereAfter), by postedKey; it is the screen's record for this conversation,
	// kept while the user is elsewhere.
	posted map[string]bool
}

// heldDecision is a new message reported without its label: whether it triggers a reply is
// decided when its sender arrives or when senderWait has passed.
type heldDecision struct {
	quiet bool // the ping-pong state just before the message
	tm    *timer
}

// index returns the position of message id in f.msgs, or -1.
func (f *foreground) index(id string) int {
	for i := len(f.msgs) - 1; i >= 0; i-- {
		if f.msgs[i].ID == id {
			return i
		}
	}
	return -1
}

// add appends a new message at the bottom. Only the newest keepMessages are kept, and the ids
// of dropped messages are forgotten with them, so a conversation left open for weeks holds
// bounded memory. A forgotten id can never re-trigger: a refresh treats anything above the
// newest known message as history (see onOpened), and older messages are never new.
func (f *foreground) add(m Message) {
	f.seen[m.ID] = true
	f.msgs = append(f.msgs, m)
	if over := len(f.msgs) - keepMessages; over > 0 {
		for _, old := range f.msgs[:over] {
			delete(f.seen, old.ID)
		}
		f.msgs = f.msgs[over:]
	}
}

func (f *foreground) newest() (Message, bool) {
	if len(f.msgs) == 0 {
		return Message{}, false
	}
	return f.msgs[len(f.msgs)-1], true
}

func (f *foreground) newestRef() MessageRef {
	m, ok := f.newest()
	if !ok {
		return MessageRef{}
	}
	return m.ref()
}

// movedOnSince reports whether anyone but this Clanker wrote after the message base. Clanker's
// own messages (a mode notice, the activation greeting sent while a reply waited) do not make
// a reply to base stale: they answer nothing the reply is about, and a reply dropped for them
// would leave base unanswered.
func (f *foreground) movedOnSince(base MessageRef) bool {
	for i := len(f.msgs) - 1; i >= 0; i-- {
		m := f.msgs[i]
		if base.matches(m) {
			return false
		}
		if !m.IsOwnClanker() {
			return true
		}
	}
	return true
}

// newestHuman is the position of the newest message a person wrote (the user included), or -1.
func (f *foreground) newestHuman() int {
	for i := len(f.msgs) - 1; i >= 0; i-- {
		if f.msgs[i].isHuman() {
			return i
		}
	}
	return -1
}

// clankerAnsweredUs reports whether the newest message we did not write is another Clanker's
// that came after one of ours with no human message in between. A reply asked for now would
// answer that Clanker, which is the ping-pong the invariants forbid, whatever message first
// armed the timer.
func (f *foreground) clankerAnsweredUs() bool {
	i := len(f.msgs) - 1
	for i >= 0 && f.msgs[i].IsOwnClanker() {
		i--
	}
	if i < 0 || !f.msgs[i].IsOtherClanker() {
		return false
	}
	for _, m := range slices.Backward(f.msgs[:i]) {
		switch {
		case m.IsOwnClanker():
			return true
		case m.isHuman():
			return false
		}
	}
	return false
}

// eligible decides whether one new message should make Clanker consider replying. quiet is true
// when our own reply is the latest word in the conversation (ignoring other Clankers).
func (e *Engine) eligible(mode Mode, m Message, quiet bool) bool {
	if !mode.participating() || m.IsOwnClanker() {
		return false
	}
	// Whose "[clanker]" text it is cannot be told without the label. Answering our own
	// message is the loop the invariants forbid, while leaving another Clanker unanswered
	// costs nothing, so such a message counts as ours.
	if m.LabelPending && m.Direction != Outgoing && strings.HasPrefix(strings.TrimSpace(m.Text), strings.TrimSpace(Prefix)) {
		return false
	}
	if m.IsOtherClanker() && quiet {
		return false
	}
	if mode == ModeAvailable {
		return addressesClanker(m)
	}
	return true
}

// nextQuiet updates the ping-pong state after message m.
func nextQuiet(quiet bool, m Message) bool {
	switch {
	case m.IsOwnClanker():
		return true
	case m.isHuman():
		return false
	}
	return quiet
}

func (e *Engine) onPageState(ev PageStateChanged) {
	e.pageState = ev.State
	if ev.State == PageReady || ev.State == PageLoading {
		return
	}
	e.log.Info("engine: page not usable, standing down", "state", ev.State)
	e.leaveForeground()
	e.screen.fg = nil
	e.visitAbort("page "+string(ev.State), 0)
}

// leaveForeground cancels everything that belongs to the conversation on screen: the pending
// timer, queued and half-typed replies (their partial text is removed). An in-flight request is
// left alone; when it answers it becomes the deferred reply of its conversation.
func (e *Engine) leaveForeground() {
	e.cancelPending()
	if e.screen.fg == nil {
		return
	}
	for _, h := range e.screen.fg.held {
		h.tm.stop()
	}
	e.screen.fg.held = nil
	id := e.screen.fg.id
	if e.sends.cur != nil && e.sends.cur.conv == id {
		// A half-typed reply is kept too: its partial text is taken out of the box when the
		// user comes back (removeLeftover), before the reply is typed again from the start.
		if e.sends.cur.reply && e.sends.cur.text != "" && e.replies.deferred[id] == nil {
			e.deferReply(id, e.sends.cur.text, e.sends.cur.base)
		}
		e.abortCurrent("conversation switched")
	}
	kept := e.sends.queue[:0]
	for _, j := range e.sends.queue {
		if j.conv == id {
			// A later reply in the queue was computed later: the last one is the answer to
			// keep (a held reply ahead of it may be stale already).
			if j.reply {
				e.deferReply(id, j.text, j.base)
			}
			continue
		}
		kept = append(kept, j)
	}
	e.sends.queue = kept
	e.screen.draft = false
}

func (e *Engine) onChanging(ev ConversationChanging) {
	if e.screen.settledOn(ev.To) {
		return // same conversation: a false alarm
	}
	e.visitOnChanging(ev.To)
	e.leaveForeground()
	e.screen.switching = true
	if e.screen.doubted != "" && ev.To != e.screen.doubted {
		e.screen.settle()
	}
	e.activity()
}

func (e *Engine) onOpened(ev ConversationOpened) {
	now := time.Now()
	if e.screen.settledOn(ev.ID) {
		e.onRefresh(ev)
		return
	}
	if e.screen.fg != nil && !e.screen.switching {
		e.leaveForeground()
	}
	rec, ok, err := e.store.LoadConversation(ev.ID)
	if err != nil {
		e.log.Error("engine: load conversation", "conversation", ev.ID, "err", err)
		e.toast("error", "Could not load this conversation's Clanker settings; it stays deactivated until that works.")
		rec, ok = Conversation{}, false
	}
	if !ok {
		rec = Conversation{ID: ev.ID, Mode: ModeDeactivated}
	}
	rec.ID = ev.ID
	var header []string
	for _, p := range ev.Participants {
		if n := CleanName(p.Name); n != "" {
			header = append(header, n)
		}
	}
	if d := e.viewDisagrees(ev.ID, rec, header, ev.Messages, onePersonOf(header, rec.Participants, nil)); d.why != "" && !e.believe(ev.ID, d, header, ev.Messages) {
		e.visitOnOpened(ev.ID)
		e.doubt(ev.ID, d.why)
		// The doubt is about the rows; the box is the one on screen, and text Clanker left
		// there is its own whatever the rows say. It comes out now: the user may be typing
		// into that box before a view the engine believes arrives.
		e.removeLeftover(ev.ID, rec.Leftover)
		return
	}
	e.screen.settle()
	byVisit := e.visitOnOpened(ev.ID)
	e.screen.switching = false
	e.screen.draft = false
	e.activity()

	if name := e.sidebar.names[ev.ID]; name != "" {
		rec.Name = name
	}
	rec.Participants = learnPeople(rec.Participants, ev.Messages)
	if len(header) > 0 {
		rec.Header = header
	}
	fg := &foreground{id: ev.ID, rec: rec, seen: map[string]bool{}, byVisit: byVisit, posted: e.screen.postedIn(ev.ID), header: header}
	for _, n := range header {
		if IsAutomatedName(n) {
			fg.automated = true
		}
	}
	for _, m := range ev.Messages {
		if fg.seen[m.ID] {
			continue
		}
		fg.add(m)
		fg.quiet = nextQuiet(fg.quiet, m)
		if m.Direction == Incoming && IsAutomatedName(m.Sender) {
			fg.automated = true
		}
	}
	e.screen.fg = fg
	e.do(Command{Kind: CmdSetAutomated, Conversation: ev.ID, Text: boolText(fg.automated)}, nil)
	e.status()
	if fg.automated {
		e.log.Info("engine: automated conversation, never processed", "conversation", ev.ID)
		return
	}

	e.removeLeftover(ev.ID, rec.Leftover)
	e.placeDecided(fg)
	for _, m := range fg.msgs {
		if t, ok := labelTime(m.Timestamp); ok && t.After(fg.rec.NewestAt) {
			fg.rec.NewestAt = t
		}
	}

	var trigger *Message
	deliveredDeferred := false
	if d := e.replies.deferred[ev.ID]; d != nil {
		delete(e.replies.deferred, ev.ID)
		if len(fg.msgs) > 0 && !fg.movedOnSince(d.base) && e.mode().participating() && e.answersOwed(d.base) {
			e.enqueue(&sendJob{conv: ev.ID, text: d.text, reply: true, base: d.base})
			deliveredDeferred = true
		} else {
			e.log.Info("engine: deferred reply discarded, the conversation moved on; what is still owed is asked for again", "conversation", ev.ID)
		}
	}
	e.announceOwed()
	if !deliveredDeferred && e.mode().participating() {
		trigger = e.owedTrigger()
	}

	// Store-first: remember where we are before acting on it.
	if !fg.rec.LastProcessed.IsZero() || len(fg.msgs) > 0 {
		fg.rec.LastProcessed = fg.newestRef()
	}
	if n := len(fg.msgs); fg.rec.LastMessageAt.IsZero() || (n > 0 && !rec.LastProcessed.matches(fg.msgs[n-1])) {
		// Age unknown: assume recent rather than long idle. Messages after the last processed
		// one (or any, when none was processed yet) came while the conversation was not on
		// screen: they are new, even if none of them is answered (a visit the user cancelled,
		// a mode that does not reply).
		fg.rec.LastMessageAt = now
	}
	fg.rec.LastSeen = now
	e.lastTouch[ev.ID] = now
	e.save(fg.rec)
	e.recordIDs(ev.ID, fg.msgs)
	if trigger != nil {
		e.scheduleResponse(*trigger)
	}
}

// placeDecided gives a conversation opened without a decided point one: where the engine last
// looked (the last processed message; messages after it came while the conversation was not on
// screen, so they are owed, as the reference answers them on return), or else its newest
// message (nothing in a first view is owed). A visit opens a conversation because the sidebar
// showed news there: without a usable pointer its newest message is owed.
func (e *Engine) placeDecided(fg *foreground) {
	if !fg.rec.Decided.IsZero() {
		if !e.pinDecided(fg) {
			e.placeBySeen(fg)
		}
		return
	}
	switch lp := fg.rec.LastProcessed; {
	case !lp.IsZero() && fg.refIndex(lp) >= 0:
		fg.rec.Decided = fg.msgs[fg.refIndex(lp)].ref()
	case fg.byVisit && len(fg.msgs) >= 2:
		fg.rec.Decided = fg.msgs[len(fg.msgs)-2].ref()
	case fg.byVisit && len(fg.msgs) == 1:
		fg.allOwed = true
	default:
		fg.rec.Decided = fg.decidedNow()
	}
}

// pinDecided names the decided point by the id its message has now, when the stored point names
// it by an id the page has since replaced (a pending message that got its permanent id while
// the conversation was not on screen). The message was there before the conversation opened,
// so it is found now by sender and text among the messages shown; a message posted later with
// the same words (Clanker's notices repeat theirs) would be found instead once it came. It
// reports whether the point is placed: false when its message is not among those shown.
func (e *Engine) pinDecided(fg *foreground) bool {
	d := fg.rec.Decided
	if d == decidedAtStart || fg.allOwed || (d.ID != "" && fg.index(d.ID) >= 0) {
		return true
	}
	i := fg.refIndex(d)
	if i < 0 {
		return false
	}
	fg.rec.Decided = fg.msgs[i].ref()
	e.log.Debug("engine: the decided point's message got a new id while away", "conversation", fg.id)
	return true
}

// placeBySeen places the decided point of a conversation opened without its message among
// those shown: more messages came while it was not on screen than the page shows at once, so
// the decided message scrolled out of the view. Left unplaced, nothing shown would be owed, and
// a question that came while the user was elsewhere (or while the page was still drawing the
// conversation) would never be answered. What the store knows places it instead: every
// message the engine processed there was recorded as seen, and none is newer than the newest
// label time processed there (NewestAt, not yet updated from this view). The newest message
// shown that is either is where the engine last looked; the messages after it came while it
// was away, and those the mode answers are owed, as on any return. When every message shown
// came later (the first one's label time is newer than anything processed), all are owed.
// Without such evidence (nothing seen, no stored time, labels without a date) nothing is
// placed and nothing shown is owed, as before.
func (e *Engine) placeBySeen(fg *foreground) {
	var ids []string
	for _, m := range fg.msgs {
		if m.ID != "" && !strings.HasPrefix(m.ID, "tmp_") {
			ids = append(ids, m.ID)
		}
	}
	owners := map[string]ConversationID{}
	if len(ids) > 0 {
		var err error
		if owners, err = e.store.MessageOwners(ids); err != nil {
			e.log.Warn("engine: could not look up which messages were seen; nothing shown is owed", "conversation", fg.id, "err", err)
			return
		}
	}
	newest := fg.rec.NewestAt
	after := func(m Message) bool {
		t, ok := labelTime(m.Timestamp)
		return ok && !newest.IsZero() && t.After(newest)
	}
	for i := len(fg.msgs) - 1; i >= 0; i-- {
		m := fg.msgs[i]
		t, ok := labelTime(m.Timestamp)
		if owners[m.ID] == fg.id || (ok && !newest.IsZero() && !t.After(newest)) {
			fg.placed = m.ref()
			e.log.Info("engine: the decided message is no longer shown; placed after the newest message seen before", "conversation", fg.id, "after", len(fg.msgs)-1-i)
			return
		}
	}
	if len(fg.msgs) > 0 && after(fg.msgs[0]) {
		fg.allOwed = true
		e.log.Info("engine: the decided message is no longer shown and every message shown came later", "conversation", fg.id, "messages", len(fg.msgs))
	}
}

// recordIDs stores the ids of messages seen in conversation conv, so they are never new again,
// whatever a page reports later, across restarts too.
func (e *Engine) recordIDs(conv ConversationID, msgs []Message) {
	if len(msgs) == 0 {
		return
	}
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		ids[i] = m.ID
	}
	if err := e.store.RecordMessages(conv, ids); err != nil {
		e.log.Warn("engine: could not store the message ids seen", "conversation", conv, "err", err)
	}
}

// onRefresh handles the conversation on screen being reported again (a page reload, a
// re-render). Only unseen messages below the newest message the engine already knows are new;
// unseen ones above it are history (or ids forgotten by the bounded seen set) and never trigger.
// A view holding none of the known messages, not even the last processed one, cannot be placed
// in time, so it is ignored: it neither triggers nor moves the last-processed pointer.
func (e *Engine) onRefresh(ev ConversationOpened) {
	fg := e.screen.fg
	var header []string
	for _, p := range ev.Participants {
		if n := CleanName(p.Name); n != "" {
			header = append(header, n)
		}
	}
	var unseen []Message
	for _, m := range ev.Messages {
		if !fg.seen[m.ID] {
			unseen = append(unseen, m)
		}
	}
	if d := e.viewDisagrees(ev.ID, fg.rec, header, unseen, onePersonOf(header, fg.rec.Participants, fg.msgs)); d.why != "" && !e.believe(ev.ID, d, header, ev.Messages) {
		e.doubt(ev.ID, d.why)
		return
	}
	known := -1
	for i, m := range ev.Messages {
		if fg.seen[m.ID] {
			known = i
		}
	}
	if known < 0 {
		for i := len(ev.Messages) - 1; i >= 0; i-- {
			if fg.rec.LastProcessed.matches(ev.Messages[i]) {
				known = i
				break
			}
		}
	}
	if known < 0 {
		if len(ev.Messages) > 0 {
			e.log.Info("engine: refreshed view shares no message with what was seen; ignored", "conversation", fg.id)
		}
		return
	}
	for _, m := range ev.Messages[known+1:] {
		if !fg.seen[m.ID] {
			e.onMessage(MessageAdded{Conversation: ev.ID, Message: m})
		}
	}
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func (e *Engine) save(rec Conversation) bool {
	if err := e.store.SaveConversation(rec); err != nil {
		e.log.Error("engine: save conversation", "conversation", rec.ID, "err", err)
		return false
	}
	return true
}

func (e *Engine) onMessage(ev MessageAdded) {
	fg := e.screen.fg
	if !e.screen.settledOn(ev.Conversation) {
		e.log.Debug("engine: message for a conversation not on screen ignored", "conversation", ev.Conversation)
		return
	}
	m := ev.Message
	if fg.seen[m.ID] {
		return
	}
	if d := e.viewDisagrees(fg.id, fg.rec, fg.header, []Message{m}, onePersonOf(fg.header, fg.rec.Participants, fg.msgs)); d.why != "" {
		// A new message that does not fit: the whole view is checked again, reported afresh.
		e.doubt(fg.id, "a new message: "+d.why)
		return
	}
	if why := e.notNew(fg, m); why != "" {
		// The page called it new; identity or time says it is history (a recycled row, a
		// view that is not at the conversation's live end). It is never answered.
		fg.seen[m.ID] = true
		e.log.Info("engine: a message reported as new is history; ignored", "conversation", fg.id, "why", why)
		return
	}
	quiet := fg.quiet
	fg.quiet = nextQuiet(fg.quiet, m)
	fg.add(m)
	e.recordIDs(fg.id, []Message{m})
	if t, ok := labelTime(m.Timestamp); ok && t.After(fg.rec.NewestAt) {
		fg.rec.NewestAt = t
	}
	e.activity()
	if m.Direction == Incoming && IsAutomatedName(m.Sender) {
		e.markAutomated(fg)
		return
	}
	if fg.automated {
		return
	}
	fg.rec.LastProcessed = m.ref()
	fg.rec.LastMessageAt = time.Now()
	e.save(fg.rec)
	if m.LabelPending && m.Direction == Incoming && e.mode().participating() {
		// Who wrote it decides whether it may be answered at all (our own message, an
		// automated sender): wait for the label, bounded, before deciding.
		e.holdForSender(fg, m.ID, quiet)
		return
	}
	if e.eligible(e.mode(), m, quiet) {
		e.scheduleResponse(m)
	}
}

// notNew says why message m, reported as new in the conversation on screen, is not: its id
// was seen there before (this run or an earlier one), or its label time is older than the
// newest message processed there. Either alone keeps an old message from being answered,
// whatever the page reports. It returns "" for a message that is new.
func (e *Engine) notNew(fg *foreground, m Message) string {
	if !strings.HasPrefix(m.ID, "tmp_") {
		owners, err := e.store.MessageOwners([]string{m.ID})
		if err != nil {
			e.log.Warn("engine: could not look up a message id; deciding on its time alone", "conversation", fg.id, "err", err)
		}
		if owner, ok := owners[m.ID]; ok && owner == fg.id {
			return "its id was seen in this conversation before"
		}
	}
	if t, ok := labelTime(m.Timestamp); ok && !fg.rec.NewestAt.IsZero() && t.Before(fg.rec.NewestAt) {
		return "its time is older than the newest message processed here"
	}
	return ""
}

// markAutomated switches the foreground conversation to automated: nothing pending is sent
// and nothing will be.
func (e *Engine) markAutomated(fg *foreground) {
	fg.automated = true
	e.cancelPending()
	for _, h := range fg.held {
		h.tm.stop()
	}
	fg.held = nil
	e.do(Command{Kind: CmdSetAutomated, Conversation: fg.id, Text: "true"}, nil)
}

// holdForSender postpones the trigger decision on message id until a MessageUpdated brings
// its label or senderWait passes. At the timeout the decision is made on what is known: the
// text decides as for any message (the mode's rules do not depend on which person wrote a
// human message), and a "[clanker]" text counts as our own (see eligible).
func (e *Engine) holdForSender(fg *foreground, id string, quiet bool) {
	if fg.held == nil {
		fg.held = map[string]*heldDecision{}
	}
	h := &heldDecision{quiet: quiet}
	h.tm = e.after(senderWait, func() {
		if e.screen.fg != fg {
			return
		}
		for key, x := range fg.held { // the key moves when the id changes (tmp_ to permanent)
			if x == h {
				delete(fg.held, key)
				e.log.Info("engine: no sender arrived for a message; deciding on its text", "conversation", fg.id, "waited", senderWait)
				e.decideHeld(fg, key, h.quiet)
				return
			}
		}
	})
	fg.held[id] = h
}

// decideHeld makes the trigger decision a held message waited for.
func (e *Engine) decideHeld(fg *foreground, id string, quiet bool) {
	i := fg.index(id)
	if i < 0 || fg.automated || e.screen.fg != fg || !e.screen.settledOn(fg.id) {
		return
	}
	m := fg.msgs[i]
	if !e.eligible(e.mode(), m, quiet) {
		return
	}
	// A reply to a newer message may already be on its way; it sees this message too.
	if (e.replies.pending != nil && e.replies.pending.conv == fg.id) ||
		(e.replies.inflight != nil && e.replies.inflight.gen == e.replies.gen && e.replies.inflight.req.Conversation == fg.id && e.replies.inflight.req.Kind == RequestReply) {
		return
	}
	e.scheduleResponse(m)
}

// onUpdated replaces what is known of a message of the foreground conversation. It never
// triggers by itself: only a message whose decision waits for its sender is decided now.
func (e *Engine) onUpdated(ev MessageUpdated) {
	fg := e.screen.fg
	if !e.screen.settledOn(ev.Conversation) {
		return
	}
	m := ev.Message
	i := fg.index(m.ID)
	if i < 0 {
		return
	}
	fg.msgs[i] = m
	if fg.rec.LastProcessed.ID == m.ID && fg.rec.LastProcessed != m.ref() {
		fg.rec.LastProcessed = m.ref()
		e.save(fg.rec)
	}
	// Taken for another Clanker's until now, it turns out to be ours: as the latest word it
	// silences other Clankers, as our own sends do.
	if m.IsOwnClanker() && i == len(fg.msgs)-1 {
		fg.quiet = true
	}
	if m.Direction == Incoming && IsAutomatedName(m.Sender) && !fg.automated {
		e.markAutomated(fg)
		return
	}
	h := fg.held[m.ID]
	if h == nil || m.LabelPending {
		return
	}
	h.tm.stop()
	delete(fg.held, m.ID)
	e.decideHeld(fg, m.ID, h.quiet)
}

func (e *Engine) onIDChanged(ev MessageIDChanged) {
	fg := e.screen.fg
	if !e.screen.holds(ev.Conversation) {
		return
	}
	// Only a pending message gets a permanent id. A change between two real ids is a row the
	// page reused for another message (virtual scrolling), never the same message renamed.
	if !strings.HasPrefix(ev.OldID, "tmp_") || strings.HasPrefix(ev.NewID, "tmp_") || fg.seen[ev.NewID] || fg.index(ev.OldID) < 0 {
		e.log.Info("engine: an id change that is not a pending message getting its id; ignored", "conversation", fg.id)
		return
	}
	for i := range fg.msgs {
		if fg.msgs[i].ID == ev.OldID {
			fg.msgs[i].ID = ev.NewID
		}
	}
	if fg.seen[ev.OldID] {
		delete(fg.seen, ev.OldID)
		fg.seen[ev.NewID] = true
	}
	if h := fg.held[ev.OldID]; h != nil {
		delete(fg.held, ev.OldID)
		fg.held[ev.NewID] = h
	}
	fix := func(r *MessageRef) {
		if r.ID == ev.OldID {
			r.ID = ev.NewID
		}
	}
	if fg.rec.LastProcessed.ID == ev.OldID || fg.rec.Decided.ID == ev.OldID {
		fix(&fg.rec.LastProcessed)
		fix(&fg.rec.Decided)
		e.save(fg.rec)
	}
	e.recordIDs(fg.id, []Message{{ID: ev.NewID}})
	if e.replies.inflight != nil {
		fix(&e.replies.inflight.base)
	}
	for _, j := range e.sends.queue {
		fix(&j.base)
	}
	if e.sends.cur != nil {
		fix(&e.sends.cur.base)
	}
	if d := e.replies.deferred[ev.Conversation]; d != nil {
		fix(&d.base)
	}
}

// onHistory inserts older messages above the visible ones. They are context only: they never
// trigger and never move the last-processed pointer, because a message loaded by scrolling up
// is old news, however recently it reached the page.
func (e *Engine) onHistory(ev HistoryLoaded) {
	fg := e.screen.fg
	if !e.screen.holds(ev.Conversation) {
		return
	}
	var older []Message
	for _, m := range ev.Messages {
		if !fg.seen[m.ID] {
			older = append(older, m)
		}
	}
	e.recordIDs(fg.id, older)
	// Keep the newest messages: when the loaded history does not fit, its oldest part is
	// dropped (the model only ever sees the newest HistorySize messages anyway).
	room := keepMessages - len(fg.msgs)
	if room <= 0 {
		return
	}
	if len(older) > room {
		older = older[len(older)-room:]
	}
	if fg.allOwed && len(older) > 0 {
		// Every message held was owed; those loaded above them are not. The newest of them
		// now stands in for the decided point.
		fg.allOwed = false
		fg.placed = older[len(older)-1].ref()
	}
	for _, m := range older {
		fg.seen[m.ID] = true
	}
	fg.msgs = append(older, fg.msgs...)
}

func (e *Engine) onCompose(ev ComposeState) {
	if !e.screen.holds(ev.Conversation) {
		return
	}
	if ev.HasDraft && e.visits.run != nil {
		// A key the user presses in the compose box during a visit reaches the engine first,
		// as VisitCancelled (the bridge's overlay_cancel), and cancels the visit like the
		// Cancel button. A draft reported without one is text the page restored when the
		// visit opened the conversation (Messages keeps a draft per conversation), or an edit
		// made without a key: the box is the user's either way, so the visit ends where it
		// is (Clanker neither types over the draft nor takes the window away from it), and
		// what the conversation is owed waits behind the draft as in any conversation the
		// user has open. It releases nothing: the user cancelled nothing.
		//
		// A draft in the conversation a visit is just leaving is the user typing where they
		// were before the visit took the window; the page's refusal of the navigation
		// (visitUserActive) may come an event later. The visit waits as after that refusal:
		// until the box is empty and a short pause, not the takeover pause.
		if r := e.visits.run; e.visitStillLeaving(r, ev.Conversation) {
			e.visitUserActive(r, r.target)
		} else {
			e.visitAbort("the compose box holds the user's draft", visitTakeoverPause)
		}
	}
	if ev.HasDraft && e.sends.cur != nil && e.sends.cur.conv == ev.Conversation {
		// The bridge never counts Clanker's own text as a draft, so this is the user typing
		// while Clanker types: Clanker stops at once and waits for them.
		e.yieldToUser("the user started typing")
	}
	if e.screen.draft != ev.HasDraft || e.screen.focused != ev.Focused {
		e.activity()
	}
	if e.screen.draft && !ev.HasDraft {
		// The box just emptied, most likely because the user sent their draft. Give that
		// message a moment to appear before a held reply decides whether it is still current.
		e.screen.draftClearedAt = time.Now()
		e.after(draftSettle, func() {})
	}
	e.screen.draft, e.screen.focused = ev.HasDraft, ev.Focused
}

// composeRecheck is how often the engine asks the page to read the compose box while it
// believes the user has a draft there.
const composeRecheck = 4 * time.Second

// checkDraft asks the page to read the compose box while the engine believes the user has a
// draft in the conversation on screen: a belief that holds Clanker back is never trusted
// without reading the box, since a page may empty it by script with no event (issue 27.1). It
// asks at once when the belief starts holding something back, then every composeRecheck.
func (e *Engine) checkDraft() {
	fg := e.screen.fg
	if fg == nil || !e.screen.draft || e.screen.switching || e.pageState != PageReady {
		return
	}
	now := time.Now()
	if now.Before(e.screen.composeNext) {
		if e.screen.composeTm == nil {
			e.screen.composeTm = e.after(e.screen.composeNext.Sub(now), func() { e.screen.composeTm = nil })
		}
		return
	}
	e.screen.composeNext = now.Add(composeRecheck)
	e.do(Command{Kind: CmdReadCompose, Conversation: fg.id}, nil)
	e.screen.composeTm.stop()
	e.screen.composeTm = e.after(composeRecheck, func() { e.screen.composeTm = nil })
}
