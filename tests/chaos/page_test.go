package chaos

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/sqlite"
)

// conv is one conversation of the simulated Messages account.
type conv struct {
	id        engine.ConversationID
	name      string
	people    []string
	automated bool
	msgs      []engine.Message
	// The compose box is what Clanker put there followed by what the user typed. Google
	// Messages keeps a box per conversation, so text left behind by an interrupted Clanker
	// stays in that conversation's box until something replaces or clears it.
	clanker string
	user    string
	// typed is what Clanker's current typing sequence has put in so far; type_step is
	// refused with compose_changed when the box no longer holds exactly that.
	typed string
	// orphan is Clanker's text that an engine stopped by a restart left in this box (the user
	// had switched away before it could be taken out). The new engine knows it only from the
	// store and must take it out when the conversation is shown again.
	orphan string
}

func (c *conv) row() engine.SidebarRow {
	r := engine.SidebarRow{ID: c.id, Name: c.name}
	if n := len(c.msgs); n > 0 {
		m := c.msgs[n-1]
		if m.Direction == engine.Outgoing {
			r.Snippet = "You: " + m.Text
		} else {
			r.Snippet = m.Sender + ": " + m.Text
		}
	}
	return r
}

// page models the Messages page, the bridge and the shell's native Enter as the engine sees
// them through engine.Page, and watches every command for invariant violations. The engine
// calls Do from its goroutine; the driver changes the world from the test goroutine, always
// while the engine is idle, so the lock only guards against the odd late LLM goroutine.
// userQuiet is page.UserQuietMillis: how long after the user's last input the bridge refuses a
// visit's navigate.
const userQuiet = 2 * time.Second

type page struct {
	mu      sync.Mutex
	eng     eventSink
	store   *sqlite.EngineStore
	convs   []*conv
	current *conv
	// world facts the checker compares against
	configured bool
	seq        int
	pendingIDs map[string]string // tmp_ id -> permanent id it will get
	renamed    map[string]string // tmp_ id -> permanent id it got
	images     map[string]engine.ConversationID
	navFails   bool
	// switchGen counts switches; unreported counts switches the bridge has not reported yet.
	switchGen, unreported int
	// settling is true while the switch to the conversation on screen is not reported yet.
	// The bridge reports rows one by one only after a conversation settled, so rows added
	// meanwhile reach the engine in the report's baseline, which is read when it is sent.
	settling bool
	// unannounced are delayed switches whose start (page_state naming the new conversation,
	// which the engine sees as ConversationChanging) is not sent yet, in click order. The
	// bridge sends one for every change of conversation, in order, even for a conversation
	// that never settled because the user moved on; only its settled report is skipped.
	unannounced []pendingStart
	fetchFails  bool
	navigations int // navigate commands the engine sent
	// lastInput is when the user last typed, cleared, sent or clicked a conversation: the
	// bridge refuses a visit's navigate within userQuiet of it, or while the box holds the
	// user's text, and the engine must take that refusal in its stride.
	lastInput time.Time

	llm  *model
	sent []sentText
	// answered maps a trigger message (normalised id) to the reply token that answered it.
	answered   map[string]int
	usedTokens map[int]bool
	violations []string
	known      map[string]int // known engine bug id -> times hit
	step       int
	stats      stats

	// silentClear makes the page empty the compose box by script after the user sends their
	// draft, with no input event (a framework's model binding setting .value fires none): the
	// engine hears of it only by asking (read_compose). Drawn per seed.
	silentClear bool
	// draftSince is when the engine began to believe a draft the page's box does not hold
	// (zero while they agree); see checkDraftBelief.
	draftSince time.Time
	// owed are the messages naming Clanker that people wrote in a conversation Clanker acts
	// in as Available, not answered yet; see checkOwed.
	owed []*owedMention
	// releasedAt is when the user last saw a reason in a conversation that releases what was
	// owed there: a toast or banner while it was on screen, its mode changed, its visit
	// cancelled, Clanker deactivated everywhere or unconfigured.
	releasedAt map[engine.ConversationID]time.Time
	// coveredUpTo is, per conversation, the newest message a posted reply was computed with.
	coveredUpTo map[engine.ConversationID]string
	lastCheck   time.Time

	// linger makes the page keep the pane of the conversation it leaves for a moment, hidden,
	// as issue 33's page did: the first report of the next conversation (lingerViews of them)
	// carries the old pane's last rows, and in some switches its header. Drawn per seed.
	linger      bool
	lingerFrom  *conv
	lingerViews int

	// overlay is whether Clanker's visit overlay is up (the engine's overlay command): a key
	// the user presses in the compose box then cancels the visit (see keyDuringVisit).
	overlay bool
}

// owedMention is a message that addresses Clanker in an Available conversation, waiting for
// its answer. waited counts only the time Clanker could have answered it: its conversation
// on screen and settled, no draft of the user's in the box, Clanker configured and not paused
// by a page it cannot read.
type owedMention struct {
	conv   *conv
	id     string
	at     time.Time
	waited time.Duration
}

// owedBound is how long an answer to someone who addressed Clanker may take while nothing
// stands in its way: reading delay, the model (the scripted latency is at most 20 s; an image
// follow-up doubles it), typing (capped at 8 s), a draft that just cleared, and one pumpOwed
// pause, with room to spare.
const owedBound = 3 * time.Minute

// draftBeliefBound is how long the engine may believe a draft the box no longer holds (the
// page emptied it without an event): it asks the page at most every few seconds while it does.
const draftBeliefBound = 20 * time.Second

// eventSink is where the page's events go: the engine, or a recorder in the model's own tests.
type eventSink interface {
	Send(engine.Event) error
}

// pendingStart is a delayed switch whose start the bridge has not sent yet.
type pendingStart struct {
	gen int // the switchGen it got; later switches have larger ones
	to  engine.ConversationID
}

type sentText struct {
	conv engine.ConversationID
	text string
}

type stats struct {
	replies, announcements, refusedDraft, wrongConv, fetches, requests, userActive int
	// interrupts, hopsChecked and takeovers count the compound loop events that reached their
	// checks (loop_test.go), so a run that never exercises them shows it.
	interrupts, hopsChecked, takeovers int
	// leftoversRemoved counts removes of text an engine stopped by a restart left in a box.
	leftoversRemoved int
	// mentionsAnswered and mentionsReleased count the messages naming Clanker in Available
	// conversations that got their answer, or were released for a reason the user saw.
	mentionsAnswered, mentionsReleased int
	// mixedViews counts the reports that carried another conversation's lingering rows.
	mixedViews int
}

func newPage(m *model) *page {
	p := &page{
		configured:  true,
		pendingIDs:  map[string]string{},
		renamed:     map[string]string{},
		images:      map[string]engine.ConversationID{},
		answered:    map[string]int{},
		usedTokens:  map[int]bool{},
		llm:         m,
		releasedAt:  map[engine.ConversationID]time.Time{},
		coveredUpTo: map[engine.ConversationID]string{},
	}
	people := [][]string{{"Ann"}, {"Bo", "Cy"}, {"Dee"}, {"Eve", "Fay", "Gus"}, {"Hal"}}
	for i, ps := range people {
		p.convs = append(p.convs, &conv{id: engine.ConversationID(fmt.Sprintf("c%d", i)), name: strings.Join(ps, ", "), people: ps})
	}
	p.convs = append(p.convs, &conv{id: "c5", name: "22395", people: []string{"22395"}, automated: true})
	p.current = p.convs[0]
	return p
}

// ownerOf is the conversation whose thread holds the message id (by its tmp_ or permanent
// id), or nil for an id the page never showed; call with mu held.
func (p *page) ownerOf(id string) *conv {
	id = p.norm(id)
	for _, c := range p.convs {
		for _, m := range c.msgs {
			if p.norm(m.ID) == id {
				return c
			}
		}
	}
	return nil
}

// recordedIn keeps the messages of msgs that the store records as seen in c.
func (p *page) recordedIn(c *conv, msgs []engine.Message) []engine.Message {
	if p.store == nil {
		return nil
	}
	var ids []string
	for _, m := range msgs {
		ids = append(ids, m.ID)
	}
	owners, err := p.store.MessageOwners(ids)
	if err != nil {
		p.violate("read where messages were seen: %v", err)
		return nil
	}
	var out []engine.Message
	for _, m := range msgs {
		if owners[m.ID] == c.id {
			out = append(out, m)
		}
	}
	return out
}

// checkStoredHistory fails when the store records one of a conversation's messages as seen
// in another conversation (issue 33: a mixed view must never reach the store); call with mu
// held.
func (p *page) checkStoredHistory() {
	if p.store == nil {
		return
	}
	for _, c := range p.convs {
		var ids []string
		for _, m := range c.msgs {
			ids = append(ids, m.ID)
		}
		if len(ids) == 0 {
			continue
		}
		owners, err := p.store.MessageOwners(ids)
		if err != nil {
			p.violate("read where messages were seen: %v", err)
			return
		}
		for id, o := range owners {
			if o != c.id {
				p.violate("the store records message %s of %s as seen in %s", id, c.id, o)
				return
			}
		}
	}
}

// checkRequest fails when a request for conversation conv carries a message of another
// conversation (issue 33: a view that mixed two panes must never reach the model, the store
// or a reply); call with mu held.
func (p *page) checkRequest(conv engine.ConversationID, history []engine.Message) {
	for _, h := range history {
		if h.ID == "" {
			continue
		}
		if o := p.ownerOf(h.ID); o != nil && o.id != conv {
			p.violate("a request for %s carries message %s of %s: %q", conv, h.ID, o.id, engine.Clip(h.Text, 60))
			return
		}
	}
}

func (p *page) byID(id engine.ConversationID) *conv {
	for _, c := range p.convs {
		if c.id == id {
			return c
		}
	}
	return nil
}

// violate records a broken invariant; call it with the lock held. A violation that matches
// a known, reported engine bug is counted instead (unless -strict), so one known bug does not
// hide every other finding; the session goes on.
func (p *page) violate(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !*strictFlag {
		for _, k := range knownBugs {
			if k.match.MatchString(msg) {
				if p.known == nil {
					p.known = map[string]int{}
				}
				p.known[k.id]++
				return
			}
		}
	}
	p.violations = append(p.violations, fmt.Sprintf("step %d: ", p.step)+msg)
}

// emit hands events to the current engine; call it without the lock. Send never blocks; a
// rejected event is a bug in this model, not in the engine, and is reported as such.
func (p *page) emit(evs ...engine.Event) {
	p.mu.Lock()
	eng := p.eng
	p.mu.Unlock()
	for _, ev := range evs {
		if err := eng.Send(ev); err != nil {
			p.mu.Lock()
			p.violate("model produced an invalid event %T: %v", ev, err)
			p.mu.Unlock()
		}
	}
}

func (p *page) result(id uint64, errText string, data []byte) {
	p.emit(engine.CommandResult{ID: id, Err: errText, Data: data})
}

func (p *page) compose(c *conv) engine.ComposeState {
	return engine.ComposeState{Conversation: c.id, HasDraft: c.user != "", Focused: c.user != ""}
}

// opened is what the bridge reports after a conversation settles: its header and the last
// 35 messages (the DOM keeps a window), then the box state.
func (p *page) opened(c *conv) []engine.Event {
	msgs := c.msgs
	if len(msgs) > 35 {
		msgs = msgs[len(msgs)-35:]
	}
	var parts []engine.Participant
	for _, n := range c.people {
		parts = append(parts, engine.Participant{Name: n})
	}
	msgs = append([]engine.Message(nil), msgs...)
	if old := p.lingerFrom; p.lingerViews > 0 && old != nil && old != c && len(old.msgs) > 0 {
		// The old pane is still in the document: its rows come first, and in every other
		// switch its header is the first one the page finds.
		p.lingerViews--
		stale := old.msgs
		if len(stale) > 10 {
			stale = stale[len(stale)-10:]
		}
		// The engine can tell the old rows only by what it knows of them: rows of a pane it
		// never accepted (a conversation clicked through too fast to settle) under a header
		// that proves nothing are the bridge's to leave out, which only ever reads the visible
		// pane (issue 28.2; the bridge's own tests and pagechaos check that). Here the old
		// pane shows the rows the engine recorded in the old conversation, and in every other
		// switch its header too.
		stale = p.recordedIn(old, stale)
		withHeader := p.switchGen%2 == 0
		if len(stale) > 0 {
			p.stats.mixedViews++
			msgs = append(append([]engine.Message(nil), stale...), msgs...)
			if withHeader {
				parts = nil
				for _, n := range old.people {
					parts = append(parts, engine.Participant{Name: n})
				}
			}
		}
	}
	evs := []engine.Event{engine.ConversationOpened{ID: c.id, Participants: parts, Messages: msgs}}
	if c.user != "" {
		evs = append(evs, p.compose(c))
	}
	return evs
}

// show puts c on screen; the bridge has not said anything about it yet.
func (p *page) show(c *conv) {
	if p.linger && p.current != nil && p.current != c {
		p.lingerFrom, p.lingerViews = p.current, 1+p.switchGen%2
	}
	p.current = c
	p.switchGen++
	p.settling = false
}

// switchTo shows c and returns what the bridge sends at once: the start of every earlier
// switch it has not announced yet, then c's start and its settled report.
func (p *page) switchTo(c *conv) []engine.Event {
	evs := p.announceThrough(p.switchGen)
	p.show(c)
	return append(append(evs, engine.ConversationChanging{To: c.id}), p.opened(c)...)
}

// announceThrough returns, in click order, the starts of the unannounced switches up to and
// including the one numbered gen, and forgets them.
func (p *page) announceThrough(gen int) []engine.Event {
	var evs []engine.Event
	for len(p.unannounced) > 0 && p.unannounced[0].gen <= gen {
		evs = append(evs, engine.ConversationChanging{To: p.unannounced[0].to})
		p.unannounced = p.unannounced[1:]
	}
	return evs
}

// switchLater shows c now and lets the bridge report the switch after d: its start (after the
// starts of earlier switches still unannounced) and, unless the user switched again meanwhile,
// its settled report, read when it is sent so that rows added meanwhile are in it. Until then
// commands meet c while the engine still believes the old conversation is shown.
func (p *page) switchLater(c *conv, d time.Duration) {
	p.show(c)
	p.settling = true
	p.unreported++
	gen := p.switchGen
	p.unannounced = append(p.unannounced, pendingStart{gen: gen, to: c.id})
	time.AfterFunc(d, func() {
		p.mu.Lock()
		p.unreported--
		evs := p.announceThrough(gen)
		if gen == p.switchGen {
			p.settling = false
			evs = append(evs, p.opened(c)...)
		}
		p.mu.Unlock()
		p.emit(evs...)
	})
}

// added is how the engine hears of a new row m just added to c: as a MessageAdded when c is
// on screen and settled; not at all when c is not on screen (only the sidebar changes) or its
// switch is unreported (the report's baseline will carry m, in its place among the rows).
func (p *page) added(c *conv, m engine.Message) []engine.Event {
	if c != p.current || p.settling {
		return nil
	}
	return []engine.Event{engine.MessageAdded{Conversation: c.id, Message: m}}
}

func (p *page) sidebar() engine.SidebarUpdate {
	var rows []engine.SidebarRow
	for _, c := range p.convs {
		rows = append(rows, c.row())
	}
	return engine.SidebarUpdate{Rows: rows}
}

// Do carries out one engine command the way the bridge and the shell would.
func (p *page) Do(cmd engine.Command) {
	p.mu.Lock()
	var after []engine.Event
	errText := ""
	var data []byte
	cur := p.current
	switch cmd.Kind {
	case engine.CmdInsertText, engine.CmdTypeText, engine.CmdPressEnter:
		if cmd.Conversation != cur.id {
			errText = engine.ResultWrongConversation
			p.stats.wrongConv++
			break
		}
		switch cmd.Kind {
		case engine.CmdInsertText:
			if cur.user != "" {
				errText = engine.ResultUserTyping
				p.stats.refusedDraft++
				break
			}
			cur.clanker, cur.typed, cur.orphan = cmd.Text, cmd.Text, ""
		case engine.CmdTypeText:
			if cur.user != "" {
				errText = engine.ResultUserTyping
				p.stats.refusedDraft++
				break
			}
			if cur.clanker != cur.typed {
				errText = "compose_changed"
				break
			}
			cur.clanker += cmd.Text
			cur.typed = cur.clanker
		case engine.CmdPressEnter:
			text := cur.clanker + cur.user
			if text == "" {
				errText = "empty_box"
				break
			}
			p.checkSend(cur, cur.clanker, cur.user)
			cur.clanker, cur.user, cur.orphan = "", "", ""
			p.seq++
			id := fmt.Sprintf("tmp_%d", p.seq)
			p.pendingIDs[id] = fmt.Sprintf("s%d", p.seq)
			m := engine.Message{ID: id, Sender: "You", Direction: engine.Outgoing, Text: text}
			cur.msgs = append(cur.msgs, m)
			after = append(append(after, p.added(cur, m)...), p.compose(cur))
		}
	case engine.CmdRemoveText:
		// clear_inserted acts on the box on screen and removes exactly Clanker's text.
		if cur.clanker != "" && cur.clanker == cmd.Text {
			if cur.orphan != "" && cur.orphan == cur.clanker {
				p.stats.leftoversRemoved++
			}
			cur.clanker, cur.orphan = "", ""
		} else {
			errText = "not_found"
		}
	case engine.CmdNavigate:
		p.navigations++
		c := p.byID(cmd.Conversation)
		switch {
		case c == nil:
			errText = "not_found"
		case cmd.Visit && (cur.user != "" || time.Since(p.lastInput) < userQuiet):
			p.stats.userActive++
			errText = engine.ResultUserActive
		case p.navFails:
			// The click did nothing; the engine's navigation timeout must cope.
		default:
			after = append(after, p.switchTo(c)...)
		}
	case engine.CmdOverlay:
		p.overlay = cmd.Text != ""
	case engine.CmdReadCompose:
		// The bridge reads the box on screen now and reports it even when unchanged.
		after = append(after, p.compose(cur))
	case engine.CmdResync:
		// The bridge reports the conversation on screen again, as it now stands (nothing while
		// a switch is still settling: its own report is on the way).
		if !p.settling {
			after = append(after, p.opened(cur)...)
		}
	case engine.CmdToast:
		// Only the toasts that tell the user an answer will not come release it; any other
		// toast (a mode the engine refused, a send that failed) says nothing about it.
		if releaseToast(cmd.Text) {
			p.releasedAt[cur.id] = time.Now()
		}
	case engine.CmdBanner:
		if cmd.Text != "" {
			for _, c := range p.convs {
				p.releasedAt[c.id] = time.Now()
			}
		}
	case engine.CmdFetchImage:
		p.stats.fetches++
		owner, ok := p.images[cmd.Src]
		if !ok || owner != cmd.Conversation {
			p.violate("fetch_image %q for %s; the image belongs to %q", cmd.Src, cmd.Conversation, owner)
		}
		// A conversation that is no longer shown has had its blob URLs revoked.
		if !ok || p.fetchFails || owner != cur.id {
			errText = "image_gone"
		} else {
			data = []byte("jpeg:" + cmd.Src)
		}
	}
	p.mu.Unlock()
	p.result(cmd.ID, errText, data)
	p.emit(after...)
}

// checkSend applies the send invariants to a press of Enter in conversation c.
func (p *page) checkSend(c *conv, clanker, user string) {
	text := clanker + user
	p.sent = append(p.sent, sentText{conv: c.id, text: text})
	if user != "" {
		p.violate("Enter sent the user's draft %q in %s (box %q)", user, c.id, text)
	}
	if !strings.HasPrefix(text, engine.Prefix) {
		p.violate("sent %q in %s without the prefix", text, c.id)
		return
	}
	if strings.Contains(text, "LEAK") {
		p.violate("sent raw model output that is not a valid reply: %q in %s", text, c.id)
	}
	if strings.Contains(text, "IMGTEXT") {
		p.violate("sent the text of a reply that asked for an image (the image request wins over the text): %q in %s", text, c.id)
	}
	if rest := strings.ToLower(strings.TrimPrefix(text, engine.Prefix)); strings.HasPrefix(strings.TrimSpace(rest), "[clanker]") {
		p.violate("sent %q in %s with the prefix twice", text, c.id)
	}
	if c.automated {
		p.violate("sent %q in automated conversation %s", text, c.id)
	}
	if !p.configured {
		p.violate("sent %q in %s while Clanker is not configured (Uninitialized)", text, c.id)
	}
	rec, ok, err := p.store.LoadConversation(c.id)
	if err != nil {
		p.violate("read mode of %s: %v", c.id, err)
		return
	}
	mode := engine.ModeDeactivated
	if ok {
		mode = rec.Mode
	}
	switch text {
	case engine.DeactivatedText:
		p.stats.announcements++
		if mode != engine.ModeDeactivated {
			p.violate("deactivation notice sent in %s whose stored mode is %s", c.id, mode)
		}
		return
	case engine.AvailableText:
		p.stats.announcements++
		if mode != engine.ModeAvailable {
			p.violate("available notice sent in %s whose stored mode is %s", c.id, mode)
		}
		return
	case engine.ActiveFallbackText:
		p.stats.announcements++
		if mode != engine.ModeActive {
			p.violate("active notice sent in %s whose stored mode is %s", c.id, mode)
		}
		return
	}
	if mode != engine.ModeAvailable && mode != engine.ModeActive {
		p.violate("sent %q in %s whose stored mode is %s", text, c.id, mode)
	}
	tok, info, found := p.llm.lookup(text)
	if !found {
		p.violate("sent %q in %s, which is neither an announcement nor a text the model produced", text, c.id)
		return
	}
	if info.conv != c.id {
		p.violate("reply r#%d was computed for %s but sent in %s", tok, info.conv, c.id)
	}
	if p.usedTokens[tok] {
		p.violate("reply r#%d sent twice (again in %s)", tok, c.id)
	}
	p.usedTokens[tok] = true
	switch info.kind {
	case engine.RequestActivation:
		p.stats.announcements++
		if mode != engine.ModeActive {
			p.violate("activation greeting r#%d sent in %s whose stored mode is %s", tok, c.id, mode)
		}
		return
	case engine.RequestNews:
		p.stats.replies++
		return
	}
	p.stats.replies++
	if info.trigger == "" {
		p.violate("reply r#%d in %s answers no message of anyone else (history held only Clanker's own)", tok, c.id)
		return
	}
	p.checkAvailableReply(c, rec, info.trigger, tok)
	key := string(c.id) + "/" + p.norm(info.trigger)
	if prev, dup := p.answered[key]; dup {
		p.violate("second reply r#%d to message %s in %s (r#%d answered it already)", tok, info.trigger, c.id, prev)
	}
	p.answered[key] = tok
	if info.triggerOther {
		p.checkPingPong(c, info.trigger, tok)
	}
}

// checkPingPong fails when a reply answers another Clanker whose message followed one of ours
// with no human message in between.
func (p *page) checkPingPong(c *conv, trigger string, tok int) {
	at := -1
	for i, m := range c.msgs {
		if p.norm(m.ID) == p.norm(trigger) {
			at = i
		}
	}
	for i := at - 1; i >= 0; i-- {
		m := c.msgs[i]
		switch {
		case m.IsOwnClanker():
			p.violate("reply r#%d in %s answers another Clanker (%s) that was answering us, with no human in between", tok, c.id, trigger)
			return
		case !m.IsOtherClanker():
			return
		}
	}
}

// norm maps a tmp_ id to the permanent id it got, so the same message is one key.
func (p *page) norm(id string) string {
	if n, ok := p.renamed[id]; ok {
		return n
	}
	return id
}

// swapIDs gives every pending tmp_ message its permanent id, as Messages does once the
// server acknowledges it.
func (p *page) swapIDs() []engine.Event {
	var evs []engine.Event
	for _, c := range p.convs {
		for i, m := range c.msgs {
			if perm, ok := p.pendingIDs[m.ID]; ok {
				delete(p.pendingIDs, m.ID)
				p.renamed[m.ID] = perm
				c.msgs[i].ID = perm
				if c == p.current {
					evs = append(evs, engine.MessageIDChanged{Conversation: c.id, OldID: m.ID, NewID: perm})
				}
			}
		}
	}
	return evs
}

// checkAvailableReply fails when a reply posted while Clanker acts in c as Available answers
// no message that addresses it: every message the reply was computed with after the previous
// reply's was one Available would never have answered. It then marks what the reply covered.
func (p *page) checkAvailableReply(c *conv, rec engine.Conversation, trigger string, tok int) {
	from := p.index(c, p.coveredUpTo[c.id])
	to := p.index(c, trigger)
	if to > from {
		p.coveredUpTo[c.id] = trigger
	}
	if rec.Acting() == engine.ModeAvailable && to > from {
		addressed := false
		for _, m := range c.msgs[from+1 : to+1] {
			if !m.IsOwnClanker() && addressesClanker(m.Text) {
				addressed = true
			}
		}
		if !addressed {
			p.violate("reply r#%d posted in %s, which Clanker acts in as Available, answers no message that addresses it", tok, c.id)
		}
	}
	kept := p.owed[:0]
	for _, o := range p.owed {
		if o.conv == c && p.index(c, o.id) <= to {
			p.stats.mentionsAnswered++
			continue // answered
		}
		kept = append(kept, o)
	}
	p.owed = kept
}

// addressesClanker is the mention rule as far as this simulation's texts need it: Clanker's
// name in the text, signatures aside.
func addressesClanker(text string) bool {
	t := strings.ToLower(strings.ReplaceAll(strings.ToLower(text), "[clanker]", ""))
	return strings.Contains(t, "clanker")
}

// index is the position of message id (or the permanent id it got) in c, -1 when absent.
func (p *page) index(c *conv, id string) int {
	if id == "" {
		return -1
	}
	for i, m := range c.msgs {
		if p.norm(m.ID) == p.norm(id) {
			return i
		}
	}
	return -1
}

// owe records that message m, just written in c by someone else, is owed an answer, when
// Clanker acts in c as Available.
func (p *page) owe(c *conv, m engine.Message) {
	if c.automated || !p.configured || !addressesClanker(m.Text) || m.IsOtherClanker() {
		return
	}
	rec, ok, err := p.store.LoadConversation(c.id)
	if err != nil || !ok || rec.Acting() != engine.ModeAvailable {
		return
	}
	p.owed = append(p.owed, &owedMention{conv: c, id: m.ID, at: time.Now()})
}

// release records that the user saw a reason that releases what is owed in conversation id
// ("" for every conversation).
func (p *page) release(id engine.ConversationID) {
	now := time.Now()
	if id != "" {
		p.releasedAt[id] = now
		return
	}
	for _, c := range p.convs {
		p.releasedAt[c.id] = now
	}
}

// releaseIfModeChanges records a release in c when the mode the user picks differs from the
// stored one (the engine ignores a pick of the mode already in force).
func (p *page) releaseIfModeChanges(c *conv, mode engine.Mode) {
	rec, ok, err := p.store.LoadConversation(c.id)
	if err != nil || !ok || rec.Mode != mode {
		p.release(c.id)
	}
}

// accountOwed adds the time since it last ran to the wait of every owed answer that nothing
// stands in the way of now: its conversation on screen and settled in the engine's view and
// the page's, no draft or text of Clanker's in the box, Clanker configured, no visit under
// way. The state now stands for the whole interval, so it runs at least every owedTick while
// time passes (session.pass), within compound events and long waits too: a step that lasts
// minutes (a hop through other conversations, a visit the user takes over) must not count
// the minutes the user spent elsewhere. Call with mu held.
func (p *page) accountOwed(snap engine.Snapshot) {
	now := time.Now()
	var dt time.Duration
	if !p.lastCheck.IsZero() {
		dt = now.Sub(p.lastCheck)
	}
	p.lastCheck = now
	fg := snap.Foreground
	for _, o := range p.owed {
		free := fg != nil && fg.ID == o.conv.id && !fg.Switching && p.current == o.conv && !p.settling &&
			o.conv.user == "" && o.conv.clanker == "" && p.configured && snap.Visiting == ""
		if free {
			o.waited += dt
		}
	}
}

// owedOnScreen reports whether an owed answer belongs to the conversation the page shows: only
// then can time count for it (see accountOwed). Call with mu held.
func (p *page) owedOnScreen() bool {
	for _, o := range p.owed {
		if o.conv == p.current {
			return true
		}
	}
	return false
}

// owedTick is the longest stretch of time accountOwed lets pass unobserved.
const owedTick = 5 * time.Second

// checkOwed fails when someone who addressed Clanker in an Available conversation has waited
// longer than owedBound, counting only the time nothing stood in the way (accountOwed), with
// no reason shown that released the answer. It runs after every step.
func (p *page) checkOwed(snap engine.Snapshot) {
	p.accountOwed(snap)
	kept := p.owed[:0]
	for _, o := range p.owed {
		if rel := p.releasedAt[o.conv.id]; !rel.Before(o.at) {
			p.stats.mentionsReleased++
			continue // released, and the user saw why
		}
		if p.index(o.conv, o.id) < 0 {
			continue // the asker's message is gone
		}
		if rec, ok, err := p.store.LoadConversation(o.conv.id); err == nil && (!ok || rec.Acting() != engine.ModeAvailable) {
			// The mode changed since: in Active the model decides whether to answer (and may
			// stay silent); switched off, Clanker answers nothing.
			p.stats.mentionsReleased++
			continue
		}
		if o.waited > owedBound {
			p.violate("%s in %s addressed Clanker and has waited %v with nothing in the way and no reason shown: no answer", o.id, o.conv.id, o.waited.Round(time.Second))
			continue
		}
		kept = append(kept, o)
	}
	p.owed = kept
}

// checkDraftBelief fails when the engine has believed for longer than draftBeliefBound that the
// user has a draft in the box on screen while the box holds none: every answer there waits for
// a draft that is not there. (The other way round, a draft the engine does not know of, costs
// nothing: the page refuses to type over it, and the engine learns of it then.)
func (p *page) checkDraftBelief(snap engine.Snapshot) {
	fg := snap.Foreground
	wrong := fg != nil && fg.ID == p.current.id && !fg.Switching && !p.settling && fg.Draft && p.current.user == ""
	switch {
	case !wrong:
		p.draftSince = time.Time{}
	case p.draftSince.IsZero():
		p.draftSince = time.Now()
	case time.Since(p.draftSince) > draftBeliefBound:
		p.violate("the engine has believed for %v that the user has a draft in %s; the box is empty", time.Since(p.draftSince).Round(time.Second), p.current.id)
		p.draftSince = time.Time{}
	}
}

// keyDuringVisit is what the bridge reports first when the user presses a key (other than
// Enter) in the compose box of c while Clanker's visit overlay is up: the overlay goes and the
// engine hears the user cancel the visit (overlay_cancel, reason "key", naming c, the
// conversation the address shows: the switch to it may still be unreported). That releases
// what was owed in the visited conversation when the user is in it; visiting names it (""
// when unknown). Call with mu held.
func (p *page) keyDuringVisit(c *conv, visiting engine.ConversationID) []engine.Event {
	if !p.overlay {
		return nil
	}
	p.overlay = false
	if visiting != "" && visiting == c.id {
		p.release(c.id)
	}
	return []engine.Event{engine.VisitCancelled{Reason: keyCancel, KeyIn: c.id}}
}

// keyCancel is the reason app/page gives the engine for the bridge's overlay_cancel with
// reason "key": a key pressed in the compose box while Clanker visits a conversation.
const keyCancel = "the user pressed a key in the compose box"

// releaseToast reports whether a toast tells the user that an answer to someone who addressed
// Clanker will not come.
func releaseToast(text string) bool {
	for _, s := range []string{"could not answer the message that addressed it", "chose not to answer", "not in this conversation"} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}
