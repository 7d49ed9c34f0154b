package engine

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// simConv is one conversation of the fake page's little world.
type simConv struct {
	name string
	// header are the names the conversation's header shows when they are not its name (a
	// named group's members).
	header []string
	msgs   []Message
	draft  bool
}

type sentText struct {
	conv ConversationID
	text string
	at   time.Time
}

// fakePage plays the Google Messages page and the shell: it keeps a tiny world of
// conversations, refuses text commands for a conversation that is not on screen, refuses to
// overwrite a draft, echoes sent texts back as own messages and follows navigation commands.
type fakePage struct {
	mu      sync.Mutex
	eng     *Engine
	cmds    []Command
	current ConversationID
	convs   map[ConversationID]*simConv
	box     map[ConversationID]string
	// clanker is the part of the box Clanker inserted, as the bridge tracks it: remove_text
	// takes out exactly that, and a typing step is refused once the box holds anything else.
	clanker map[ConversationID]string
	sent    []sentText
	images  map[string][]byte
	seq     int
	noNav   bool // ignore navigate commands (navigation "fails")
	// userActive makes the page refuse a visit's navigate (Visit set) with
	// ResultUserActive, as the bridge does while the user is using the window.
	userActive bool
	// holdFetch leaves fetch_image commands unanswered (a fetch that hangs).
	holdFetch bool
	// typeAfterInsert makes the user type into the box right after Clanker's next insert
	// (a draft the engine has not been told about yet).
	typeAfterInsert bool
	// lingering are rows of another conversation's pane that the next lingerViews views of
	// any conversation show too (an old pane not yet removed after a quick switch), with
	// lingerHeader as their header when set.
	lingering    []Message
	lingerHeader string
	lingerViews  int
	// removeHow is what the page reports of how it took Clanker's text out (remove_text's
	// data), when set.
	removeHow string
}

func newFakePage() *fakePage {
	return &fakePage{convs: map[ConversationID]*simConv{}, box: map[ConversationID]string{}, clanker: map[ConversationID]string{}, images: map[string][]byte{}}
}

func (p *fakePage) conv(id ConversationID) *simConv {
	c := p.convs[id]
	if c == nil {
		c = &simConv{name: "Group " + string(id)}
		p.convs[id] = c
	}
	return c
}

func (p *fakePage) result(id uint64, err string, data []byte) {
	if e := p.eng.Send(CommandResult{ID: id, Err: err, Data: data}); e != nil {
		panic(e)
	}
}

func (p *fakePage) Do(cmd Command) {
	p.mu.Lock()
	p.cmds = append(p.cmds, cmd)
	var after []Event
	errText := ""
	var data []byte
	textCmd := cmd.Kind == CmdInsertText || cmd.Kind == CmdTypeText || cmd.Kind == CmdPressEnter
	switch {
	case textCmd && cmd.Conversation != p.current:
		errText = ResultWrongConversation
	case cmd.Kind == CmdInsertText:
		if p.conv(cmd.Conversation).draft {
			errText = ResultUserTyping
		} else {
			p.box[cmd.Conversation] = cmd.Text
			p.clanker[cmd.Conversation] = cmd.Text
			if p.typeAfterInsert {
				p.typeAfterInsert = false
				p.conv(cmd.Conversation).draft = true
			}
		}
	case cmd.Kind == CmdTypeText && p.conv(cmd.Conversation).draft:
		errText = ResultUserTyping // the user typed into the box meanwhile
	case cmd.Kind == CmdTypeText:
		if p.box[cmd.Conversation] != p.clanker[cmd.Conversation] {
			errText = ResultUserTyping
		} else {
			p.box[cmd.Conversation] += cmd.Text
			p.clanker[cmd.Conversation] += cmd.Text
		}
	case cmd.Kind == CmdRemoveText:
		// Like the bridge's clear_inserted, the remove acts on the box on screen, whatever
		// conversation the command names: sent after the user switched away, it misses the
		// box that holds Clanker's text.
		// With the text named and no record of its own (a remove that missed, or a page
		// loaded since), it removes that text from the start of the box, where Clanker's
		// typing always begins. A remove that finds nothing makes it forget its record, as
		// the bridge's single record is dropped then.
		on := p.current
		box := p.box[on]
		switch ins := p.clanker[on]; {
		case ins != "":
			if i := strings.LastIndex(box, ins); i >= 0 {
				p.box[on] = box[:i] + box[i+len(ins):]
			}
		case cmd.Text != "" && strings.HasPrefix(box, cmd.Text):
			p.box[on] = box[len(cmd.Text):]
		case cmd.Text != "":
			errText = "not_found"
			clear(p.clanker)
		}
		p.clanker[on] = ""
		if p.removeHow != "" && errText == "" {
			data = []byte(`{"removed": 3, "how": "` + p.removeHow + `"}`)
		}
	case cmd.Kind == CmdPressEnter && p.conv(cmd.Conversation).draft:
		errText = ResultUserTyping // as the bridge's focus before the Enter refuses
	case cmd.Kind == CmdPressEnter:
		text := p.box[cmd.Conversation]
		p.box[cmd.Conversation] = ""
		p.clanker[cmd.Conversation] = ""
		p.sent = append(p.sent, sentText{conv: cmd.Conversation, text: text, at: time.Now()})
		p.seq++
		m := Message{ID: fmt.Sprintf("sent-%d", p.seq), Sender: "You", Direction: Outgoing, Text: text}
		p.conv(cmd.Conversation).msgs = append(p.conv(cmd.Conversation).msgs, m)
		after = append(after, MessageAdded{Conversation: cmd.Conversation, Message: m})
	case cmd.Kind == CmdNavigate && cmd.Visit && p.userActive:
		errText = ResultUserActive
	case cmd.Kind == CmdNavigate:
		if !p.noNav {
			after = append(after, p.switchTo(cmd.Conversation)...)
		}
	case cmd.Kind == CmdResync:
		after = append(after, p.view(p.current))
	case cmd.Kind == CmdReadCompose:
		// The bridge reads the box on screen and reports it, even when nothing changed.
		d := p.conv(p.current).draft
		after = append(after, ComposeState{Conversation: p.current, HasDraft: d, Focused: d})
	case cmd.Kind == CmdFetchImage:
		data = p.images[cmd.Src]
		if data == nil {
			errText = "not found"
		}
	}
	hold := cmd.Kind == CmdFetchImage && p.holdFetch
	p.mu.Unlock()
	if hold {
		return
	}
	p.result(cmd.ID, errText, data)
	for _, ev := range after {
		if err := p.eng.Send(ev); err != nil {
			panic(err)
		}
	}
}

// switchTo changes the conversation on screen; call with mu held.
func (p *fakePage) switchTo(id ConversationID) []Event {
	p.current = id
	return []Event{ConversationChanging{To: id}, p.view(id)}
}

// view is the page's report of conversation id as it stands, with whatever lingers of another
// pane; call with mu held.
func (p *fakePage) view(id ConversationID) ConversationOpened {
	c := p.conv(id)
	ev := ConversationOpened{ID: id, Participants: []Participant{{Name: c.name}}, Messages: append([]Message(nil), c.msgs...)}
	if len(c.header) > 0 {
		ev.Participants = nil
		for _, n := range c.header {
			ev.Participants = append(ev.Participants, Participant{Name: n})
		}
	}
	if p.lingerViews > 0 {
		p.lingerViews--
		ev.Messages = append(append([]Message(nil), p.lingering...), ev.Messages...)
		if p.lingerHeader != "" {
			ev.Participants = []Participant{{Name: p.lingerHeader}}
		}
	}
	return ev
}

func (p *fakePage) commands(kind CommandKind) []Command {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Command
	for _, c := range p.cmds {
		if c.Kind == kind {
			out = append(out, c)
		}
	}
	return out
}

func (p *fakePage) sentTexts() []sentText {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]sentText(nil), p.sent...)
}

// fakeLLM answers with respond after latency; every request is recorded with its time.
type fakeLLM struct {
	mu      sync.Mutex
	reqs    []LLMRequest
	times   []time.Time
	latency time.Duration
	respond func(req LLMRequest) (Reply, error)
}

func (l *fakeLLM) Complete(ctx context.Context, req LLMRequest) (Reply, error) {
	l.mu.Lock()
	l.reqs = append(l.reqs, req)
	l.times = append(l.times, time.Now())
	lat, respond := l.latency, l.respond
	l.mu.Unlock()
	if lat > 0 {
		select {
		case <-time.After(lat):
		case <-ctx.Done():
			return Reply{}, ctx.Err()
		}
	}
	if respond == nil {
		return Reply{Text: "ok"}, nil
	}
	return respond(req)
}

func (l *fakeLLM) requests() []LLMRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]LLMRequest(nil), l.reqs...)
}

func (l *fakeLLM) set(lat time.Duration, respond func(LLMRequest) (Reply, error)) {
	l.mu.Lock()
	l.latency, l.respond = lat, respond
	l.mu.Unlock()
}

// fakeStore keeps records in memory and can be told to fail.
type fakeStore struct {
	mu       sync.Mutex
	recs     map[ConversationID]Conversation
	updates  map[ConversationID][]ContextUpdate
	seen     map[ConversationID]time.Time
	failSave bool
	forgets  int
	// owners maps each recorded message id to the conversation it was first recorded in.
	owners map[string]ConversationID
}

func newFakeStore() *fakeStore {
	return &fakeStore{recs: map[ConversationID]Conversation{}, updates: map[ConversationID][]ContextUpdate{}, seen: map[ConversationID]time.Time{}, owners: map[string]ConversationID{}}
}

func (s *fakeStore) RecordMessages(id ConversationID, ids []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range ids {
		if _, ok := s.owners[m]; !ok && !strings.HasPrefix(m, "tmp_") {
			s.owners[m] = id
		}
	}
	return nil
}

func (s *fakeStore) MessageOwners(ids []string) (map[string]ConversationID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]ConversationID{}
	for _, m := range ids {
		if c, ok := s.owners[m]; ok {
			out[m] = c
		}
	}
	return out, nil
}

func (s *fakeStore) LoadConversation(id ConversationID) (Conversation, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[id]
	return r, ok, nil
}

func (s *fakeStore) SaveConversation(r Conversation) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failSave {
		return fmt.Errorf("disk full")
	}
	r.Leftover = s.recs[r.ID].Leftover           // like the real store: SaveConversation leaves it alone
	r.ModelOverride = s.recs[r.ID].ModelOverride // and the model the settings window chose
	s.recs[r.ID] = r
	return nil
}

func (s *fakeStore) SaveLeftover(id ConversationID, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[id]
	if !ok && text == "" {
		return nil
	}
	if !ok {
		r = Conversation{ID: id, Mode: ModeDeactivated}
	}
	r.Leftover = text
	s.recs[id] = r
	return nil
}

func (s *fakeStore) ApplyContext(id ConversationID, u ContextUpdate) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.updates[id] = append(s.updates[id], u)
	return nil
}

func (s *fakeStore) DeactivateAll() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id, r := range s.recs {
		if r.Mode.normalized() != ModeDeactivated || r.Announced.normalized() != ModeDeactivated {
			r.Mode, r.Announced = ModeDeactivated, ModeDeactivated
			s.recs[id] = r
			n++
		}
	}
	return n, nil
}

func (s *fakeStore) MarkSeen(ids []ConversationID, t time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		s.seen[id] = t
	}
	return nil
}

func (s *fakeStore) ForgetUnseen(before time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forgets++
	n := 0
	for id, t := range s.seen {
		if t.Before(before) {
			delete(s.recs, id)
			delete(s.seen, id)
			n++
		}
	}
	return n, nil
}

func (s *fakeStore) mode(id ConversationID) Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.recs[id].Mode.normalized()
}

func (s *fakeStore) setMode(id ConversationID, m Mode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.recs[id]
	// A mode set from outside the engine stands for one switched on earlier, so it was
	// announced then (as the migration assumes of modes an earlier version stored).
	r.ID, r.Mode, r.Announced = id, m, m
	s.recs[id] = r
}

// harness runs an engine with fakes inside a synctest bubble.
type harness struct {
	t     *testing.T
	e     *Engine
	page  *fakePage
	store *fakeStore
	llm   *fakeLLM
	start time.Time
	cfg   Config
	stop  func() // stops the running engine and waits for it
}

// testSettings are complete settings: with a stored key the engine is configured.
func testSettings() Settings {
	s := DefaultSettings()
	s.Endpoint, s.Model, s.UserName = "https://api.example.com/v1", "test-model", "Dana"
	return s
}

// newHarness must be called inside synctest.Test. It runs with an API key stored.
func newHarness(t *testing.T, mutate ...func(*Settings)) *harness {
	t.Helper()
	return newHarnessKey(t, true, mutate...)
}

// newHarnessKey is newHarness with the API key present or not.
func newHarnessKey(t *testing.T, hasKey bool, mutate ...func(*Settings)) *harness {
	t.Helper()
	s := testSettings()
	for _, m := range mutate {
		m(&s)
	}
	h := &harness{t: t, page: newFakePage(), store: newFakeStore(), llm: &fakeLLM{}, start: time.Now()}
	h.cfg = Config{Page: h.page, Store: h.store, LLM: h.llm, Rand: rand.New(rand.NewPCG(1, 2)), Location: time.UTC, Settings: &s, HasAPIKey: hasKey, Logger: slog.New(slog.DiscardHandler)}
	h.startEngine()
	t.Cleanup(func() { h.stop() })
	return h
}

// startEngine starts a new engine on the harness's page, store and model, as the app does at
// start, and reports the page ready.
func (h *harness) startEngine() {
	h.t.Helper()
	e, err := New(h.cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	h.page.mu.Lock()
	h.e = e
	h.page.eng = e
	h.page.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = e.Run(ctx); close(done) }()
	h.stop = func() { cancel(); <-done }
	h.send(PageStateChanged{State: PageReady})
}

// restart stops the engine and starts a new one on the same page and store, as quitting and
// starting the app again would (the page keeps its compose boxes, as Messages keeps drafts).
func (h *harness) restart() {
	h.t.Helper()
	h.stop()
	synctest.Wait()
	h.page.mu.Lock()
	clear(h.page.clanker) // the page was loaded again: the bridge's record of its text is gone
	h.page.mu.Unlock()
	h.startEngine()
}

func (h *harness) send(ev Event) {
	h.t.Helper()
	if err := h.e.Send(ev); err != nil {
		h.t.Fatalf("Send(%T): %v", ev, err)
	}
	synctest.Wait()
}

func (h *harness) wait(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

// open puts conversation id on screen with the given messages and participants.
func (h *harness) open(id ConversationID, msgs ...Message) {
	h.t.Helper()
	h.page.mu.Lock()
	c := h.page.conv(id)
	c.msgs = append([]Message(nil), msgs...)
	evs := h.page.switchTo(id)
	h.page.mu.Unlock()
	for _, ev := range evs {
		h.send(ev)
	}
}

// reopen puts conversation id back on screen with the messages the page holds for it.
func (h *harness) reopen(id ConversationID) {
	h.t.Helper()
	h.page.mu.Lock()
	evs := h.page.switchTo(id)
	h.page.mu.Unlock()
	for _, ev := range evs {
		h.send(ev)
	}
}

// receive adds a message to conversation id: the engine sees it directly if the conversation is
// on screen; otherwise only the sidebar snippet changes.
func (h *harness) receive(id ConversationID, m Message) {
	h.t.Helper()
	h.page.mu.Lock()
	c := h.page.conv(id)
	c.msgs = append(c.msgs, m)
	onScreen := h.page.current == id
	h.page.mu.Unlock()
	if onScreen {
		h.send(MessageAdded{Conversation: id, Message: m})
		return
	}
	h.send(h.sidebar())
}

// sidebar builds a SidebarUpdate from the fake world.
func (h *harness) sidebar() SidebarUpdate {
	h.page.mu.Lock()
	defer h.page.mu.Unlock()
	var rows []SidebarRow
	for id, c := range h.page.convs {
		snip := ""
		if n := len(c.msgs); n > 0 {
			m := c.msgs[n-1]
			if m.Direction == Outgoing {
				snip = "You: " + m.Text
			} else {
				snip = m.Sender + ": " + m.Text
			}
		}
		rows = append(rows, SidebarRow{ID: id, Name: c.name, Snippet: snip})
	}
	return SidebarUpdate{Rows: rows}
}

func (h *harness) setDraft(id ConversationID, draft bool) {
	h.t.Helper()
	h.page.mu.Lock()
	h.page.conv(id).draft = draft
	h.page.mu.Unlock()
	h.send(ComposeState{Conversation: id, HasDraft: draft, Focused: draft})
}

// userTypes is the user typing text into conversation id's box, wherever Clanker's typing
// stands; the page reports the draft at once.
func (h *harness) userTypes(id ConversationID, text string) {
	h.t.Helper()
	h.page.mu.Lock()
	h.page.box[id] += text
	h.page.conv(id).draft = true
	h.page.mu.Unlock()
	h.send(ComposeState{Conversation: id, HasDraft: true, Focused: true})
}

// userText is what the user typed into id's box: the box without Clanker's own text.
func (h *harness) userText(id ConversationID) string {
	h.page.mu.Lock()
	defer h.page.mu.Unlock()
	box, ins := h.page.box[id], h.page.clanker[id]
	if i := strings.LastIndex(box, ins); ins != "" && i >= 0 {
		return box[:i] + box[i+len(ins):]
	}
	return box
}

// userEmpties is the user deleting everything in id's box (send=false) or sending it as their
// own message (send=true).
func (h *harness) userEmpties(id ConversationID, send bool) {
	h.t.Helper()
	h.page.mu.Lock()
	text := h.page.box[id]
	h.page.box[id], h.page.clanker[id] = "", ""
	h.page.conv(id).draft = false
	h.page.mu.Unlock()
	h.send(ComposeState{Conversation: id, HasDraft: false, Focused: true})
	if send {
		h.receive(id, out(text))
	}
}

// userSendsSilently is the user sending their draft in id on a page that empties the box by
// script without any event: the engine is not told the box is empty.
func (h *harness) userSendsSilently(id ConversationID) {
	h.t.Helper()
	h.page.mu.Lock()
	text := h.page.box[id]
	h.page.box[id], h.page.clanker[id] = "", ""
	h.page.conv(id).draft = false
	h.page.mu.Unlock()
	h.receive(id, out(text))
}

func (h *harness) snap() Snapshot {
	h.t.Helper()
	s, err := h.e.Snapshot(context.Background())
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

func (h *harness) wantRequests(n int, why string) []LLMRequest {
	h.t.Helper()
	r := h.llm.requests()
	if len(r) != n {
		h.t.Fatalf("%s: want %d LLM requests, got %d (after %v)", why, n, len(r), time.Since(h.start))
	}
	return r
}

func (h *harness) wantSent(why string, texts ...string) {
	h.t.Helper()
	got := h.page.sentTexts()
	var gt []string
	for _, s := range got {
		gt = append(gt, string(s.conv)+"|"+s.text)
	}
	if len(got) != len(texts) {
		h.t.Fatalf("%s: want sent %q, got %q", why, texts, gt)
	}
	for i := range texts {
		if gt[i] != texts[i] {
			h.t.Fatalf("%s: want sent %q, got %q", why, texts, gt)
		}
	}
}

var msgSeq int

func in(sender, text string) Message {
	msgSeq++
	return Message{ID: fmt.Sprintf("m%d", msgSeq), Sender: sender, Direction: Incoming, Text: text}
}

func out(text string) Message {
	msgSeq++
	return Message{ID: fmt.Sprintf("o%d", msgSeq), Sender: "You", Direction: Outgoing, Text: text}
}

func run(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	synctest.Test(t, f)
}
