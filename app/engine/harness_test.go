package engine_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/enginefake"
)

// harness runs an engine with fakes inside a synctest bubble.
type harness struct {
	t     *testing.T
	e     *engine.Engine
	page  *enginefake.Page
	store *enginefake.Store
	llm   *enginefake.LLM
	start time.Time
	cfg   engine.Config
	stop  func() // stops the running engine and waits for it
}

// testSettings are complete settings: with a stored key the engine is configured.
func testSettings() engine.Settings {
	s := engine.DefaultSettings()
	s.Endpoint, s.Model, s.UserName = "https://api.example.com/v1", "test-model", "Dana"
	return s
}

// newHarness must be called inside synctest.Test. It runs with an API key stored.
func newHarness(t *testing.T, mutate ...func(*engine.Settings)) *harness {
	t.Helper()
	return newHarnessKey(t, true, mutate...)
}

// newHarnessKey is newHarness with the API key present or not.
func newHarnessKey(t *testing.T, hasKey bool, mutate ...func(*engine.Settings)) *harness {
	t.Helper()
	s := testSettings()
	for _, m := range mutate {
		m(&s)
	}
	h := &harness{t: t, page: enginefake.NewPage(), store: enginefake.NewStore(), llm: &enginefake.LLM{}, start: time.Now()}
	h.cfg = engine.Config{Page: h.page, Store: h.store, LLM: h.llm, Rand: rand.New(rand.NewPCG(1, 2)), Location: time.UTC, Settings: &s, HasAPIKey: hasKey, Logger: slog.New(slog.DiscardHandler)}
	h.startEngine()
	t.Cleanup(func() {
		h.stop()
		// Every result and event the page sent must have been accepted: a refusal means the
		// page (or a test driving it) sent something the engine finds invalid.
		for _, err := range h.page.SendErrors() {
			t.Errorf("the engine refused what the page sent: %v", err)
		}
	})
	return h
}

// startEngine starts a new engine on the harness's page, store and model, as the app does at
// start, and reports the page ready.
func (h *harness) startEngine() {
	h.t.Helper()
	e, err := engine.New(h.cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	h.e = e
	h.page.Attach(e.Send)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = e.Run(ctx); close(done) }()
	h.stop = func() { cancel(); <-done }
	h.send(engine.PageStateChanged{State: engine.PageReady})
}

// restart stops the engine and starts a new one on the same page and store, as quitting and
// starting the app again would (the page keeps its compose boxes, as Messages keeps drafts).
func (h *harness) restart() {
	h.t.Helper()
	h.stop()
	synctest.Wait()
	h.page.Lock()
	clear(h.page.Clanker) // the page was loaded again: the bridge's record of its text is gone
	h.page.Unlock()
	h.startEngine()
}

func (h *harness) send(ev engine.Event) {
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
func (h *harness) open(id engine.ConversationID, msgs ...engine.Message) {
	h.t.Helper()
	h.page.Lock()
	c := h.page.Conv(id)
	c.Msgs = append([]engine.Message(nil), msgs...)
	evs := h.page.SwitchTo(id)
	h.page.Unlock()
	for _, ev := range evs {
		h.send(ev)
	}
}

// reopen puts conversation id back on screen with the messages the page holds for it.
func (h *harness) reopen(id engine.ConversationID) {
	h.t.Helper()
	h.page.Lock()
	evs := h.page.SwitchTo(id)
	h.page.Unlock()
	for _, ev := range evs {
		h.send(ev)
	}
}

// receive adds a message to conversation id: the engine sees it directly if the conversation is
// on screen; otherwise only the sidebar snippet changes.
func (h *harness) receive(id engine.ConversationID, m engine.Message) {
	h.t.Helper()
	h.page.Lock()
	c := h.page.Conv(id)
	c.Msgs = append(c.Msgs, m)
	onScreen := h.page.Current == id
	h.page.Unlock()
	if onScreen {
		h.send(engine.MessageAdded{Conversation: id, Message: m})
		return
	}
	h.send(h.sidebar())
}

// sidebar builds a SidebarUpdate from the fake world.
func (h *harness) sidebar() engine.SidebarUpdate {
	h.page.Lock()
	defer h.page.Unlock()
	return h.page.Sidebar()
}

func (h *harness) setDraft(id engine.ConversationID, draft bool) {
	h.t.Helper()
	h.page.Lock()
	h.page.Conv(id).Draft = draft
	h.page.Unlock()
	h.send(engine.ComposeState{Conversation: id, HasDraft: draft, Focused: draft})
}

// userTypes is the user typing text into conversation id's box, wherever Clanker's typing
// stands; the page reports the draft at once.
func (h *harness) userTypes(id engine.ConversationID, text string) {
	h.t.Helper()
	h.page.Lock()
	h.page.Box[id] += text
	h.page.Conv(id).Draft = true
	h.page.Unlock()
	h.send(engine.ComposeState{Conversation: id, HasDraft: true, Focused: true})
}

// userText is what the user typed into id's box: the box without Clanker's own text.
func (h *harness) userText(id engine.ConversationID) string {
	h.page.Lock()
	defer h.page.Unlock()
	box, ins := h.page.Box[id], h.page.Clanker[id]
	if i := strings.LastIndex(box, ins); ins != "" && i >= 0 {
		return box[:i] + box[i+len(ins):]
	}
	return box
}

// box is what id's compose box holds, Clanker's text and the user's.
func (h *harness) box(id engine.ConversationID) string {
	h.page.Lock()
	defer h.page.Unlock()
	return h.page.Box[id]
}

// userEmpties is the user deleting everything in id's box (send=false) or sending it as their
// own message (send=true).
func (h *harness) userEmpties(id engine.ConversationID, send bool) {
	h.t.Helper()
	h.page.Lock()
	text := h.page.Box[id]
	h.page.Box[id], h.page.Clanker[id] = "", ""
	h.page.Conv(id).Draft = false
	h.page.Unlock()
	h.send(engine.ComposeState{Conversation: id, HasDraft: false, Focused: true})
	if send {
		h.receive(id, out(text))
	}
}

// userSendsSilently is the user sending their draft in id on a page that empties the box by
// script without any event: the engine is not told the box is empty.
func (h *harness) userSendsSilently(id engine.ConversationID) {
	h.t.Helper()
	h.page.Lock()
	text := h.page.Box[id]
	h.page.Box[id], h.page.Clanker[id] = "", ""
	h.page.Conv(id).Draft = false
	h.page.Unlock()
	h.receive(id, out(text))
}

func (h *harness) snap() engine.Snapshot {
	h.t.Helper()
	s, err := h.e.Snapshot(context.Background())
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

func (h *harness) wantRequests(n int, why string) []engine.LLMRequest {
	h.t.Helper()
	r := h.llm.Requests()
	if len(r) != n {
		h.t.Fatalf("%s: want %d LLM requests, got %d (after %v)", why, n, len(r), time.Since(h.start))
	}
	return r
}

func (h *harness) wantSent(why string, texts ...string) {
	h.t.Helper()
	got := h.page.Sent()
	var gt []string
	for _, s := range got {
		gt = append(gt, string(s.Conversation)+"|"+s.Text)
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

func in(sender, text string) engine.Message {
	msgSeq++
	return engine.Message{ID: fmt.Sprintf("m%d", msgSeq), Sender: sender, Direction: engine.Incoming, Text: text}
}

func out(text string) engine.Message {
	msgSeq++
	return engine.Message{ID: fmt.Sprintf("o%d", msgSeq), Sender: "You", Direction: engine.Outgoing, Text: text}
}

func run(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	synctest.Test(t, f)
}
