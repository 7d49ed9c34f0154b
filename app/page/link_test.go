package page

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

const testNonce = "0123456789abcdef0123456789abcdef"

// sentCommand is one command the Link ran in the fake page.
type sentCommand struct {
	ID   string          `json:"id"`
	Type string          `json:"type"`
	Args json.RawMessage `json:"args"`
}

type fakePage struct {
	mu       sync.Mutex
	cmds     []sentCommand
	events   []engine.Event
	enters   int
	enterErr error
	log      bytes.Buffer
	notify   chan struct{}
}

func (f *fakePage) exec(js string) error {
	if !strings.HasPrefix(js, commandPrefix) || !strings.HasSuffix(js, ");") {
		return fmt.Errorf("unexpected script shape: %q", js)
	}
	var text string
	if err := json.Unmarshal([]byte(js[len(commandPrefix):len(js)-2]), &text); err != nil {
		return fmt.Errorf("command literal: %w", err)
	}
	var c sentCommand
	if err := json.Unmarshal([]byte(text), &c); err != nil {
		return fmt.Errorf("command json: %w", err)
	}
	f.mu.Lock()
	f.cmds = append(f.cmds, c)
	f.mu.Unlock()
	f.poke()
	return nil
}

func (f *fakePage) poke() {
	select {
	case f.notify <- struct{}{}:
	default:
	}
}

func (f *fakePage) send(ev engine.Event) error {
	f.mu.Lock()
	f.events = append(f.events, ev)
	f.mu.Unlock()
	f.poke()
	return nil
}

func (f *fakePage) PressEnter(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.enters++
	return f.enterErr
}

func newTestLink(t *testing.T) (*Link, *fakePage) {
	t.Helper()
	f := &fakePage{notify: make(chan struct{}, 1)}
	var logMu sync.Mutex
	l, err := NewLink(LinkConfig{
		Exec:         f.exec,
		Input:        f,
		Events:       f.send,
		Nonce:        testNonce,
		EnterTimeout: 5 * time.Second,
		Logger:       slog.New(slog.NewTextHandler(lockedWriter{&logMu, &f.log}, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l, f
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// waitLimit bounds every condition the link tests wait for.
const waitLimit = 5 * time.Second

func (f *fakePage) commands() []sentCommand {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sentCommand(nil), f.cmds...)
}

func (f *fakePage) engineEvents() []engine.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]engine.Event(nil), f.events...)
}

func (f *fakePage) lastCommand(t *testing.T, typ string) sentCommand {
	t.Helper()
	var found sentCommand
	testkit.Until(t, waitLimit, "a "+typ+" command", func() bool {
		for _, c := range f.commands() {
			if c.Type == typ {
				found = c
			}
		}
		return found.ID != ""
	})
	return found
}

func (f *fakePage) resultFor(t *testing.T, id uint64) engine.CommandResult {
	t.Helper()
	var got *engine.CommandResult
	testkit.Until(t, waitLimit, fmt.Sprintf("the engine to get the result of command %d", id), func() bool {
		for _, ev := range f.engineEvents() {
			if r, ok := ev.(engine.CommandResult); ok && r.ID == id {
				got = &r
				return true
			}
		}
		return false
	})
	return *got
}

// event builds a sealed page event as the bridge would post it.
func event(seq int, typ string, data any) []byte {
	d, err := json.Marshal(data)
	if err != nil {
		panic(err)
	}
	env, _ := json.Marshal(map[string]any{"v": ProtocolVersion, "type": typ, "seq": seq, "data": json.RawMessage(d)})
	return append([]byte(testNonce), env...)
}

func TestEventsWithoutTheNonceAreDroppedWithALogLine(t *testing.T) {
	l, f := newTestLink(t)
	forged := event(1, "page_state", PageState{State: "conversation", ConversationID: "c1"})[len(testNonce):]
	l.HandleRaw(forged)
	wrong := append([]byte(strings.Repeat("f", len(testNonce))), forged...)
	l.HandleRaw(wrong)
	if evs := f.engineEvents(); len(evs) != 0 {
		t.Fatalf("events without the nonce reached the engine: %#v", evs)
	}
	f.mu.Lock()
	logText := f.log.String()
	f.mu.Unlock()
	if strings.Count(logText, "nonce") < 2 {
		t.Fatalf("want one log line per dropped event mentioning the nonce, log was:\n%s", logText)
	}
	l.HandleRaw(event(1, "page_state", PageState{State: "conversation", ConversationID: "c1"}))
	testkit.Until(t, waitLimit, "the sealed event to reach the engine", func() bool { return len(f.engineEvents()) > 0 })
}

func TestEngineCommandsRunAsBridgeCommandsAndResultsReturnUnderTheEngineID(t *testing.T) {
	l, f := newTestLink(t)
	l.Do(engine.Command{ID: 41, Kind: engine.CmdInsertText, Conversation: "c1", Text: "[clanker] hi \"</script>"})
	c := f.lastCommand(t, "insert_text")
	var args InsertText
	if err := json.Unmarshal(c.Args, &args); err != nil || args.ConversationID != "c1" || args.Text != "[clanker] hi \"</script>" {
		t.Fatalf("insert_text args = %s (err %v), want conversation c1 and the exact text", c.Args, err)
	}
	l.HandleRaw(event(2, "result", Result{ID: c.ID, Command: "insert_text", OK: false, Code: "user_typing"}))
	if r := f.resultFor(t, 41); r.Err != engine.ResultUserTyping {
		t.Fatalf("engine result = %+v, want Err %q", r, engine.ResultUserTyping)
	}

	l.Do(engine.Command{ID: 42, Kind: engine.CmdTypeText, Conversation: "c1", Text: "x"})
	c = f.lastCommand(t, "type_step")
	l.HandleRaw(event(3, "result", Result{ID: c.ID, Command: "type_step", OK: true}))
	if r := f.resultFor(t, 42); r.Err != "" {
		t.Fatalf("engine result = %+v, want success", r)
	}
}

// How Clanker's text came out of the box reaches the engine with the result of the
// remove: whether the user's characters were mixed with it is the engine's to tell them.
func TestRemoveTextResultsCarryHowTheTextCameOut(t *testing.T) {
	l, f := newTestLink(t)
	l.Do(engine.Command{ID: 51, Kind: engine.CmdRemoveText, Conversation: "c1", Text: "[clanker] su"})
	c := f.lastCommand(t, "clear_inserted")
	data := json.RawMessage(`{"removed":12,"how":"by_position"}`)
	l.HandleRaw(event(1, "result", Result{ID: c.ID, Command: "clear_inserted", OK: true, Data: data}))
	if r := f.resultFor(t, 51); r.Err != "" || string(r.Data) != string(data) {
		t.Fatalf("engine result = %+v (data %s), want success carrying %s", r, r.Data, data)
	}
	// Other commands' data stays in the Link (only images and removals are the engine's).
	l.Do(engine.Command{ID: 52, Kind: engine.CmdTypeText, Conversation: "c1", Text: "x"})
	c = f.lastCommand(t, "type_step")
	l.HandleRaw(event(2, "result", Result{ID: c.ID, Command: "type_step", OK: true, Data: json.RawMessage(`{"length":13}`)}))
	if r := f.resultFor(t, 52); r.Err != "" || r.Data != nil {
		t.Fatalf("engine result = %+v, want success without data", r)
	}
}

func TestResultsWhoseIDTheLinkDidNotIssueAreIgnored(t *testing.T) {
	l, f := newTestLink(t)
	l.Do(engine.Command{ID: 7, Kind: engine.CmdNavigate, Conversation: "c2"})
	c := f.lastCommand(t, "navigate")
	l.HandleRaw(event(1, "result", Result{ID: "page-made-1", OK: true}))
	l.HandleRaw(event(2, "result", Result{ID: "g999", OK: true}))
	// HandleRaw delivers results synchronously, so a wrong delivery would already be here.
	for _, ev := range f.engineEvents() {
		if _, ok := ev.(engine.CommandResult); ok {
			t.Fatalf("a result with a foreign id reached the engine: %#v", ev)
		}
	}
	l.HandleRaw(event(3, "result", Result{ID: c.ID, OK: true}))
	f.resultFor(t, 7)
	// The same id answered twice is also foreign the second time.
	l.HandleRaw(event(4, "result", Result{ID: c.ID, OK: false, Code: "not_found"}))
	n := 0
	for _, ev := range f.engineEvents() {
		if _, ok := ev.(engine.CommandResult); ok {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("engine got %d results for one command, want 1", n)
	}
}

func TestPressEnterFocusesTheBoxThenPressesTrustedEnterInTheSameConversation(t *testing.T) {
	l, f := newTestLink(t)
	l.HandleRaw(event(1, "page_state", PageState{State: "conversation", ConversationID: "c1"}))
	testkit.Until(t, waitLimit, "page state", func() bool { return l.Current() == "c1" })
	l.Do(engine.Command{ID: 9, Kind: engine.CmdPressEnter, Conversation: "c1"})
	c := f.lastCommand(t, "focus_compose")
	f.mu.Lock()
	before := f.enters
	f.mu.Unlock()
	if before != 0 {
		t.Fatalf("enter pressed before the box was focused")
	}
	l.HandleRaw(event(2, "result", Result{ID: c.ID, OK: true}))
	if r := f.resultFor(t, 9); r.Err != "" {
		t.Fatalf("press_enter result = %+v, want success", r)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.enters != 1 {
		t.Fatalf("native enter pressed %d times, want 1", f.enters)
	}
}

func TestPressEnterIsRefusedWhenThePageShowsAnotherConversation(t *testing.T) {
	l, f := newTestLink(t)
	l.HandleRaw(event(1, "page_state", PageState{State: "conversation", ConversationID: "other"}))
	testkit.Until(t, waitLimit, "page state", func() bool { return l.Current() == "other" })
	l.Do(engine.Command{ID: 10, Kind: engine.CmdPressEnter, Conversation: "c1"})
	c := f.lastCommand(t, "focus_compose")
	l.HandleRaw(event(2, "result", Result{ID: c.ID, OK: true}))
	if r := f.resultFor(t, 10); r.Err != engine.ResultWrongConversation {
		t.Fatalf("press_enter result = %+v, want %q", r, engine.ResultWrongConversation)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.enters != 0 {
		t.Fatalf("native enter pressed %d times into the wrong conversation, want 0", f.enters)
	}
}

func TestPageEventsBecomeEngineEvents(t *testing.T) {
	l, f := newTestLink(t)
	l.HandleRaw(event(1, "page_state", PageState{State: "conversation", ConversationID: "c1"}))
	l.HandleRaw(event(2, "conversation", Conversation{ConversationID: "c1", Participants: []string{"Bob"},
		Messages: []Message{{ID: "m1", Sender: "Bob", Direction: "in", Text: "hello", LabelKind: "full"}}}))
	l.HandleRaw(event(3, "message", NewMessage{ConversationID: "c1", Message: Message{ID: "m2", Sender: "You", Direction: "out", Text: "yo", LabelKind: "full",
		Quote: &Quote{Sender: "Bob", Text: "hello"}, Images: []Image{{Src: "blob:x", Alt: "pic"}}}}))
	l.HandleRaw(event(4, "message_id", MessageID{ConversationID: "c1", OldID: "tmp_1", NewID: "m3"}))
	l.HandleRaw(event(5, "compose", Compose{ConversationID: "c1", Present: true, Kind: "textarea", HasUserText: true, Focused: true}))
	l.HandleRaw(event(6, "sidebar", Sidebar{Full: true, Items: []SidebarItem{{ID: "c1", Name: "Bob"}, {ID: "c2", Name: "Ann"}}}))
	l.HandleRaw(event(7, "sidebar", Sidebar{Items: []SidebarItem{{ID: "c2", Name: "Ann", Snippet: "new", Unread: true}}, Removed: []string{"c1"}}))
	l.HandleRaw(event(8, "mode_menu", ModeMenu{ConversationID: "c1", Choice: "available"}))
	l.HandleRaw(event(9, "mode_menu", ModeMenu{ConversationID: "stale", Choice: "active"}))
	l.HandleRaw(event(10, "history", History{ConversationID: "c1", Messages: []Message{{ID: "m0", Direction: "in", LabelKind: "none"}}}))
	l.HandleRaw(event(11, "page_state", PageState{State: "unrecognised"}))

	want := []string{
		"engine.PageStateChanged{State:\"ready\"}",
		"engine.ConversationChanging{To:\"c1\"}",
	}
	evs := f.engineEvents()
	if len(evs) != 13 {
		t.Fatalf("engine got %d events, want 13: %#v", len(evs), evs)
	}
	// Ann's unread row with a new snippet is a message that arrived: the engine decides
	// whether it is a notification.
	if m, ok := evs[7].(engine.MessageArrived); !ok || m.Conversation != "c2" || m.Sender != "Ann" || m.Text != "new" {
		t.Errorf("event 7 = %#v, want Ann's message arriving in c2", evs[7])
	}
	evs = append(evs[:7], evs[8:]...)
	for i, w := range want {
		if got := fmt.Sprintf("%#v", evs[i]); got != w {
			t.Errorf("event %d = %s, want %s", i, got, w)
		}
	}
	op := evs[2].(engine.ConversationOpened)
	if op.ID != "c1" || len(op.Participants) != 1 || op.Participants[0].Name != "Bob" || len(op.Messages) != 1 || op.Messages[0].Direction != engine.Incoming {
		t.Errorf("conversation opened = %+v, want c1 with Bob and one incoming message", op)
	}
	add := evs[3].(engine.MessageAdded)
	if add.Message.Direction != engine.Outgoing || add.Message.Quoted != "hello" || len(add.Message.Images) != 1 || add.Message.Images[0].Src != "blob:x" {
		t.Errorf("message added = %+v, want outgoing with quote and image", add.Message)
	}
	if ch := evs[4].(engine.MessageIDChanged); ch.OldID != "tmp_1" || ch.NewID != "m3" {
		t.Errorf("id change = %+v", ch)
	}
	if cs := evs[5].(engine.ComposeState); !cs.HasDraft || !cs.Focused || cs.Conversation != "c1" {
		t.Errorf("compose = %+v, want a focused draft in c1", cs)
	}
	if sb := evs[7].(engine.SidebarUpdate); len(sb.Rows) != 1 || sb.Rows[0].ID != "c2" || !sb.Rows[0].Unread || sb.Rows[0].Snippet != "new" {
		t.Errorf("sidebar after the diff = %+v, want only the updated c2", sb.Rows)
	}
	if sm := evs[8].(engine.SetMode); sm.Conversation != "c1" || sm.Mode != engine.ModeAvailable || sm.Source != "page" {
		t.Errorf("set mode = %+v, want c1 available from the page", sm)
	}
	if _, ok := evs[9].(engine.HistoryLoaded); !ok {
		t.Errorf("event 9 = %#v, want the history (the stale mode menu choice must be ignored)", evs[9])
	}
	if st := evs[10].(engine.PageStateChanged); st.State != engine.PageUnrecognised {
		t.Errorf("page state = %+v, want unrecognised", st)
	}
	if ch := evs[11].(engine.ConversationChanging); ch.To != "" {
		t.Errorf("leaving the conversation = %+v, want a change to none", ch)
	}
	// The engine decides the banner a page state calls for; the Link shows none of its own.
	if got := l.BannerText(); got != "" {
		t.Errorf("banner on an unrecognised page = %q, want none from the Link (the engine sends it)", got)
	}
}

func TestImageChunksAreAssembledIntoTheFetchResult(t *testing.T) {
	l, f := newTestLink(t)
	l.Do(engine.Command{ID: 5, Kind: engine.CmdFetchImage, Conversation: "c1", Src: "blob:http://x/1"})
	c := f.lastCommand(t, "fetch_image")
	img := []byte("\x89PNG fake image bytes")
	l.HandleRaw(event(1, "image_chunk", ImageChunk{ID: "g999", Index: 0, Total: 1, Data: base64.StdEncoding.EncodeToString([]byte("evil"))}))
	l.HandleRaw(event(2, "image_chunk", ImageChunk{ID: c.ID, Index: 0, Total: 2, Data: base64.StdEncoding.EncodeToString(img[:5])}))
	l.HandleRaw(event(3, "image_chunk", ImageChunk{ID: c.ID, Index: 1, Total: 2, Data: base64.StdEncoding.EncodeToString(img[5:])}))
	meta, _ := json.Marshal(ImageResult{Mime: "image/png", Size: len(img), Chunks: 2})
	l.HandleRaw(event(4, "result", Result{ID: c.ID, Command: "fetch_image", OK: true, Data: meta}))
	r := f.resultFor(t, 5)
	if r.Err != "" || !bytes.Equal(r.Data, img) {
		t.Fatalf("fetch result = err %q, %d bytes; want the %d image bytes", r.Err, len(r.Data), len(img))
	}
}

func TestBannersOfDifferentKeysShowTogetherAndComeBackAfterAReload(t *testing.T) {
	l, f := newTestLink(t)
	l.SetBanner("demo", "DEMO")
	l.Do(engine.Command{ID: 1, Kind: engine.CmdBanner, Key: engine.BannerConfig, Text: "not configured"})
	f.resultFor(t, 1)
	if got := l.BannerText(); got != "not configured | DEMO" {
		t.Fatalf("banner = %q, want both banners, newest first", got)
	}
	l.Do(engine.Command{ID: 2, Kind: engine.CmdBanner, Key: engine.BannerConfig})
	f.resultFor(t, 2)
	if got := l.BannerText(); got != "DEMO" {
		t.Fatalf("banner after removing the config one = %q, want DEMO kept", got)
	}
	// A command in flight when the page reloads is answered, and the banner is re-shown.
	l.Do(engine.Command{ID: 3, Kind: engine.CmdNavigate, Conversation: "c9"})
	f.lastCommand(t, "navigate")
	n := len(f.commands())
	l.HandleRaw(event(1, "hello", Hello{Bridge: "b", Transport: "test"}))
	if r := f.resultFor(t, 3); r.Err != "page_reloaded" {
		t.Fatalf("command lost in a reload got %+v, want page_reloaded", r)
	}
	testkit.Until(t, waitLimit, "the banner to be shown again", func() bool {
		for _, c := range f.commands()[n:] {
			if c.Type == "show_banner" && strings.Contains(string(c.Args), "DEMO") {
				return true
			}
		}
		return false
	})
}

// noticeRecorder collects the messages the Link tells the engine about.
type noticeRecorder struct {
	mu       sync.Mutex
	incoming []Incoming
}

func (r *noticeRecorder) gotIncoming() []Incoming {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Incoming(nil), r.incoming...)
}

// events records each engine.MessageArrived as an Incoming and passes every event on to next.
func (r *noticeRecorder) events(next func(engine.Event) error) func(engine.Event) error {
	return func(ev engine.Event) error {
		if m, ok := ev.(engine.MessageArrived); ok {
			r.mu.Lock()
			r.incoming = append(r.incoming, Incoming{Conversation: string(m.Conversation), Sender: m.Sender, Text: m.Text})
			r.mu.Unlock()
		}
		return next(ev)
	}
}

func newRecordingLink(t *testing.T) (*Link, *fakePage, *noticeRecorder) {
	t.Helper()
	f := &fakePage{notify: make(chan struct{}, 1)}
	r := &noticeRecorder{}
	l, err := NewLink(LinkConfig{
		Exec: f.exec, Input: f, Events: r.events(f.send), Nonce: testNonce,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l, f, r
}

func TestIncomingMessagesAreReportedFromNewRowsAndFromOtherConversationsSidebarRows(t *testing.T) {
	l, _, r := newRecordingLink(t)
	l.HandleRaw(event(1, "page_state", PageState{State: "conversation", ConversationID: "c1"}))
	l.HandleRaw(event(2, "sidebar", Sidebar{Full: true, Items: []SidebarItem{{ID: "c1", Name: "Bob", Snippet: "old"}, {ID: "c2", Name: "Ann", Snippet: "before"}, {ID: "c3", Name: "Cy", Snippet: "x"}}}))
	l.HandleRaw(event(3, "message", NewMessage{ConversationID: "c1", Message: Message{ID: "m1", Sender: "Bob", Direction: "in", Text: "are you there", LabelKind: "full"}}))
	l.HandleRaw(event(4, "message", NewMessage{ConversationID: "c1", Message: Message{ID: "m2", Sender: "You", Direction: "out", Text: "mine", LabelKind: "full"}}))
	l.HandleRaw(event(5, "message", NewMessage{ConversationID: "c1", Message: Message{ID: "m3", Sender: "Bob", Direction: "in", Text: "[clanker] echo", OwnClanker: true, LabelKind: "full"}}))
	l.HandleRaw(event(6, "sidebar", Sidebar{Items: []SidebarItem{
		{ID: "c1", Name: "Bob", Snippet: "are you there", Unread: true}, // the open conversation: its row event counts
		{ID: "c2", Name: "Ann", Snippet: "lunch?", Unread: true},
		{ID: "c3", Name: "Cy", Snippet: "You: sent by me", Unread: true},
	}}))
	l.HandleRaw(event(7, "sidebar", Sidebar{Items: []SidebarItem{{ID: "c2", Name: "Ann", Snippet: "lunch?", Unread: false}}}))
	got := r.gotIncoming() // HandleRaw reports synchronously
	want := map[Incoming]bool{
		{Conversation: "c1", Sender: "Bob", Text: "are you there"}: true,
		{Conversation: "c2", Sender: "Ann", Text: "lunch?"}:        true,
	}
	if len(got) != len(want) {
		t.Fatalf("incoming = %+v, want Bob's new row and Ann's unread sidebar row only", got)
	}
	for _, in := range got {
		if !want[in] {
			t.Errorf("unexpected incoming report %+v", in)
		}
	}
}

// A first-time writer's row, which the bridge marks as drawn above the rows it had listed,
// is told to the engine; rows that scrolling brings in below are not, nor is a
// conversation the Link listed before and that comes back.
func TestIncomingMessagesAreReportedForAFirstTimeWritersRow(t *testing.T) {
	l, _, r := newRecordingLink(t)
	l.HandleRaw(event(1, "page_state", PageState{State: "conversation", ConversationID: "c1"}))
	l.HandleRaw(event(2, "sidebar", Sidebar{Full: true, Items: []SidebarItem{{ID: "c1", Name: "Bob", Snippet: "old"}, {ID: "c2", Name: "Ann", Snippet: "before", Unread: true}}}))
	// Scrolled into view: old unread rows below the known ones.
	l.HandleRaw(event(3, "sidebar", Sidebar{Items: []SidebarItem{{ID: "c5", Name: "Old friend", Snippet: "months ago", Unread: true}}}))
	// Someone writing for the first time.
	l.HandleRaw(event(4, "sidebar", Sidebar{Items: []SidebarItem{{ID: "c9", Name: "Zoe", Snippet: "hi, Zoe here", Unread: true, AboveKnown: true}}}))
	// Virtualised away, then back above the known rows.
	l.HandleRaw(event(5, "sidebar", Sidebar{Removed: []string{"c5"}}))
	l.HandleRaw(event(6, "sidebar", Sidebar{Items: []SidebarItem{{ID: "c5", Name: "Old friend", Snippet: "months ago", Unread: true, AboveKnown: true}}}))
	got := r.gotIncoming()
	want := []Incoming{{Conversation: "c9", Sender: "Zoe", Text: "hi, Zoe here"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("incoming = %+v, want only Zoe's first message", got)
	}
	if n := l.SidebarSize(); n != 4 {
		t.Errorf("the Link lists %d conversations, want 4", n)
	}
}

// What OnList hands the app to keep is what the next run's Link compares its first list
// with: a message that came in between is reported, rows unchanged since are not.
func TestTheListOneRunLeavesLetsTheNextReportWhatCameInBetween(t *testing.T) {
	run := func(remembered map[string]string, events ...Sidebar) ([]Incoming, map[string]string) {
		f := &fakePage{notify: make(chan struct{}, 1)}
		r := &noticeRecorder{}
		var kept map[string]string
		l, err := NewLink(LinkConfig{
			Exec: f.exec, Input: f, Events: r.events(f.send), Nonce: testNonce, Logger: slog.New(slog.DiscardHandler),
			Remembered: remembered,
			OnList:     func(m map[string]string) { kept = m },
		})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		for i, ev := range events {
			l.HandleRaw(event(i+1, "sidebar", ev))
		}
		return r.gotIncoming(), kept
	}
	got, kept := run(nil, Sidebar{Full: true, Items: []SidebarItem{{ID: "c1", Name: "Bob", Snippet: "see you", Unread: true}, {ID: "c2", Name: "Ann", Snippet: "ok"}}})
	if len(got) != 0 || len(kept) != 2 {
		t.Fatalf("first run: incoming %+v, kept %v; want none and both rows kept", got, kept)
	}
	got, _ = run(kept, Sidebar{Full: true, Items: []SidebarItem{{ID: "c1", Name: "Bob", Snippet: "see you", Unread: true}, {ID: "c2", Name: "Ann", Snippet: "lunch?", Unread: true}}})
	if want := []Incoming{{Conversation: "c2", Sender: "Ann", Text: "lunch?"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("next run: incoming = %+v, want only Ann's message that came in between", got)
	}
}

// Within one document the bridge numbers its events upwards from its hello. The shell may hand
// two events over swapped: they are put back in order. An event whose number goes backwards
// (a repeat, or one that arrived after its gap was given up) without a new hello is dropped,
// with one log line however many follow; a new hello starts the count afresh.
func TestEventsAreHandledInSequenceAndOnesGoingBackwardsAreDroppedAndLoggedOnce(t *testing.T) {
	l, f := newTestLink(t)
	hello := Hello{Bridge: "b", Transport: "test", ReadyState: "complete"}
	msg := func(id string) NewMessage {
		return NewMessage{ConversationID: "c1", Message: Message{ID: id, Sender: "Bob", Direction: "in", Text: "hi " + id, LabelKind: "full"}}
	}
	ids := func() string {
		var out []string
		for _, ev := range f.engineEvents() {
			if a, ok := ev.(engine.MessageAdded); ok {
				out = append(out, a.Message.ID)
			}
		}
		return strings.Join(out, ",")
	}
	l.HandleRaw(event(1, "hello", hello))
	l.HandleRaw(event(2, "page_state", PageState{State: "conversation", ConversationID: "c1"}))
	l.HandleRaw(event(4, "message", msg("m4"))) // arrives before 3
	l.HandleRaw(event(3, "message", msg("m3")))
	if got := ids(); got != "m3,m4" {
		t.Fatalf("swapped events reached the engine as %q, want m3,m4 in the bridge's order", got)
	}
	l.HandleRaw(event(3, "message", msg("m3bis")))                                              // repeated
	l.HandleRaw(event(2, "page_state", PageState{State: "conversation", ConversationID: "c0"})) // backwards
	l.HandleRaw(event(7, "message", msg("m7")))                                                 // 5 and 6 never come in time
	testkit.Until(t, waitLimit, "the event after the gap", func() bool { return ids() == "m3,m4,m7" })
	l.HandleRaw(event(5, "message", msg("m5"))) // too late
	changes := 0
	for _, ev := range f.engineEvents() {
		if _, ok := ev.(engine.ConversationChanging); ok {
			changes++
		}
	}
	if got := ids(); got != "m3,m4,m7" || changes != 1 {
		t.Fatalf("engine got messages %q and %d conversation changes; want m3,m4,m7 and 1", got, changes)
	}
	if n := l.DroppedOutOfOrder(); n != 3 {
		t.Fatalf("dropped %d events, want 3", n)
	}
	f.mu.Lock()
	logText := f.log.String()
	f.mu.Unlock()
	if n := strings.Count(logText, "sequence number goes backwards"); n != 1 {
		t.Fatalf("want exactly one log line for the dropped events, got %d:\n%s", n, logText)
	}

	// A reload: the new document's bridge counts from 1 again.
	l.HandleRaw(event(1, "hello", hello))
	l.HandleRaw(event(2, "message", msg("m8")))
	if got := ids(); got != "m3,m4,m7,m8" {
		t.Fatalf("after a new hello the engine got %q, want m8 too", got)
	}
	if n := l.DroppedOutOfOrder(); n != 0 {
		t.Fatalf("after a new hello the drop count is %d, want 0", n)
	}
}

// statusCommands are the pill commands the fake page ran, in order.
func (f *fakePage) statusCommands() []sentCommand {
	var out []sentCommand
	for _, c := range f.commands() {
		if c.Type == "set_status" || c.Type == "hide_status" {
			out = append(out, c)
		}
	}
	return out
}

// The page opening a conversation and the engine reporting its mode update the pill from
// two goroutines. Whatever their timing, the last pill command the page runs shows the
// mode: an earlier "no mode yet" never lands after it (the pill went missing that way).
func TestThePillEndsOnTheLatestStateWhenPageAndEngineRace(t *testing.T) {
	for round := 0; round < 100; round++ {
		l, f := newTestLink(t)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			l.HandleRaw(event(1, "conversation", Conversation{ConversationID: "c1", Participants: []string{"Bob"}}))
		}()
		go func() {
			defer wg.Done()
			l.Do(engine.Command{ID: 1, Kind: engine.CmdStatus, Text: "available"})
		}()
		wg.Wait()
		testkit.Until(t, waitLimit, "both pill commands", func() bool { return len(f.statusCommands()) == 2 })
		cmds := f.statusCommands()
		if len(cmds) == 0 {
			t.Fatalf("round %d: no pill command at all", round)
		}
		last := cmds[len(cmds)-1]
		var args SetStatus
		_ = json.Unmarshal(last.Args, &args)
		if last.Type != "set_status" || args.ConversationID != "c1" || args.Mode != "available" {
			var all []string
			for _, c := range cmds {
				all = append(all, c.Type+" "+string(c.Args))
			}
			t.Fatalf("round %d: the page's last pill command is %s %s, want set_status c1 available (in order: %q)", round, last.Type, last.Args, all)
		}
		l.Close()
	}
}

// In an automated conversation, and before the settings are complete, the pill carries
// the reason its menu offers no mode, as the tray does.
func TestThePillIsLockedWithTheReasonInAnAutomatedConversation(t *testing.T) {
	l, f := newTestLink(t)
	l.HandleRaw(event(1, "conversation", Conversation{ConversationID: "c1", Participants: []string{"BANK"}}))
	l.Do(engine.Command{ID: 1, Kind: engine.CmdStatus, Text: "deactivated"})
	l.Do(engine.Command{ID: 2, Kind: engine.CmdSetAutomated, Text: "true"})
	f.resultFor(t, 2)
	cmds := f.statusCommands()
	var args SetStatus
	_ = json.Unmarshal(cmds[len(cmds)-1].Args, &args)
	if args.Mode != "deactivated" || args.Locked != LockedAutomated {
		t.Fatalf("pill in an automated conversation: %+v, want deactivated, locked with %q", args, LockedAutomated)
	}
	l.Do(engine.Command{ID: 3, Kind: engine.CmdSetAutomated, Text: "false"})
	l.Do(engine.Command{ID: 4, Kind: engine.CmdStatus, Text: "uninitialized"})
	testkit.Until(t, waitLimit, "the pill for unfinished settings", func() bool {
		c := f.statusCommands()
		return strings.Contains(string(c[len(c)-1].Args), "uninitialized")
	})
	cmds = f.statusCommands()
	args = SetStatus{}
	_ = json.Unmarshal(cmds[len(cmds)-1].Args, &args)
	if args.Locked != LockedNoSettings {
		t.Fatalf("pill before the settings are complete: %+v, want locked with %q", args, LockedNoSettings)
	}
}

// The engine's word that Clanker waits for the user's draft reaches the pill, and the menus
// are told the status changed (they read it from the engine) each time it comes or goes, and
// only then.
func TestWaitingForTheDraftReachesThePillAndTheMenus(t *testing.T) {
	l, f := newTestLink(t)
	var changes atomic.Int32
	l.cfg.OnChange = func() { changes.Add(1) }
	l.HandleRaw(event(1, "conversation", Conversation{ConversationID: "c1", Participants: []string{"Bob"}}))
	testkit.Until(t, waitLimit, "the menus told about the conversation", func() bool { return changes.Load() == 1 })
	lastPill := func(n int) SetStatus {
		t.Helper()
		testkit.Until(t, waitLimit, "the pill command", func() bool { return len(f.statusCommands()) >= n })
		c := f.statusCommands()
		var args SetStatus
		if err := json.Unmarshal(c[len(c)-1].Args, &args); err != nil || c[len(c)-1].Type != "set_status" {
			t.Fatalf("last pill command %s %s: %v", c[len(c)-1].Type, c[len(c)-1].Args, err)
		}
		return args
	}
	l.Do(engine.Command{ID: 1, Kind: engine.CmdStatus, Text: "active"})
	if got := lastPill(2); got.Waiting {
		t.Fatalf("pill %+v says waiting before the engine did", got)
	}
	l.Do(engine.Command{ID: 2, Kind: engine.CmdStatus, Text: "active", Waiting: true})
	if got := lastPill(3); !got.Waiting || got.Mode != "active" {
		t.Fatalf("pill %+v, want active and waiting", got)
	}
	testkit.Until(t, waitLimit, "the menus told about the wait", func() bool { return changes.Load() == 2 })
	l.Do(engine.Command{ID: 3, Kind: engine.CmdStatus, Text: "active", Waiting: true})
	l.Do(engine.Command{ID: 4, Kind: engine.CmdStatus, Text: "active"})
	if got := lastPill(5); got.Waiting {
		t.Fatalf("pill %+v still says waiting", got)
	}
	testkit.Until(t, waitLimit, "the menus told the wait is over", func() bool { return changes.Load() == 3 })
	time.Sleep(50 * time.Millisecond) // a repeat of the same wait would have been told by now
	if n := changes.Load(); n != 3 {
		t.Fatalf("the menus were told %d times, want 3 (conversation, wait, end of wait)", n)
	}
}

// A key that cancels a visit comes with the conversation whose box took it (the page's switch
// to it may be reported only after the key): the engine hears where the key was, so it can tell
// the user typing in the visited conversation from the user who has just left it. The Cancel
// button says nothing about where the user is.
func TestOverlayCancelTellsTheEngineWhereTheKeyWas(t *testing.T) {
	l, f := newTestLink(t)
	l.HandleRaw(event(1, "page_state", PageState{State: "conversation", ConversationID: "c1"}))
	l.HandleRaw(event(2, "overlay_cancel", OverlayCancel{Reason: "key", ConversationID: "c3"}))
	l.HandleRaw(event(3, "overlay_cancel", OverlayCancel{Reason: "cancel", ConversationID: "c1"}))
	var got []engine.VisitCancelled
	for _, ev := range f.engineEvents() {
		if vc, ok := ev.(engine.VisitCancelled); ok {
			got = append(got, vc)
		}
	}
	want := []engine.VisitCancelled{
		{Reason: "the user pressed a key in the compose box", KeyIn: "c3"},
		{Reason: "the user pressed Cancel"},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("engine got %+v, want %+v", got, want)
	}
}
