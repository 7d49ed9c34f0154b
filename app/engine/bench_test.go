package engine

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"
)

type nopPage struct{}

func (nopPage) Do(Command) {}

// benchEngine returns an engine with an Active foreground of 50 messages, driven directly on the
// benchmark goroutine (no Run loop), so the numbers are the engine's own cost per event.
func benchEngine(b *testing.B) *Engine {
	b.Helper()
	s := testSettings()
	st := newFakeStore()
	st.setMode("c1", ModeActive)
	e, err := New(Config{Page: nopPage{}, Store: st, LLM: &fakeLLM{}, Rand: rand.New(rand.NewPCG(1, 2)), Settings: &s, HasAPIKey: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	e.handle(PageStateChanged{State: PageReady})
	var msgs []Message
	for i := range 50 {
		msgs = append(msgs, Message{ID: fmt.Sprintf("h%d", i), Sender: "Ann", Text: "an ordinary message of some length"})
	}
	e.handle(ConversationOpened{ID: "c1", Participants: []Participant{{Name: "Ann"}}, Messages: msgs})
	return e
}

// BenchmarkEngineMessageAdded measures one new message in an Active conversation: validation,
// dedupe, pointer save, trigger decision and (re)arming the reply timer.
func BenchmarkEngineMessageAdded(b *testing.B) {
	e := benchEngine(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		ev := MessageAdded{Conversation: "c1", Message: Message{ID: fmt.Sprintf("n%d", i), Sender: "Ann", Text: "hey, what do you all think about dinner?"}}
		if err := ev.validate(); err != nil {
			b.Fatal(err)
		}
		e.handle(ev)
	}
	b.StopTimer()
	// The message must have reached the trigger decision: a view the engine doubted (a sender
	// the one-to-one conversation never had) would measure only the doubt.
	if e.replies.pending == nil {
		b.Fatal("no reply timer armed: the benchmark no longer measures the trigger path")
	}
	e.replies.pending.tm.stop()
}

// BenchmarkEngineComposeState measures the most frequent page event, an input-box update.
func BenchmarkEngineComposeState(b *testing.B) {
	e := benchEngine(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		e.handle(ComposeState{Conversation: "c1", HasDraft: i%2 == 0, Focused: true})
	}
}

// BenchmarkEngineSidebarUpdate measures a 100-row sidebar update with one changed snippet.
func BenchmarkEngineSidebarUpdate(b *testing.B) {
	e := benchEngine(b)
	rows := make([]SidebarRow, 100)
	for i := range rows {
		rows[i] = SidebarRow{ID: ConversationID(fmt.Sprintf("s%d", i)), Name: "Friend", Snippet: "Friend: hello"}
	}
	e.handle(SidebarUpdate{Rows: rows})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		rows[i%100].Snippet = fmt.Sprintf("Friend: message %d", i)
		e.handle(SidebarUpdate{Rows: rows})
	}
}

// BenchmarkEngineSendThroughput measures the round trip of Send through the inbox to the Run
// goroutine, the path every page event takes.
func BenchmarkEngineSendThroughput(b *testing.B) {
	e := benchEngine(b)
	done := make(chan struct{})
	go func() {
		for range e.inbox.notify {
			for _, ev := range e.inbox.drain() {
				if _, ok := ev.(snapshotReq); ok {
					close(done)
					return
				}
				e.handle(ev)
			}
		}
	}()
	b.ReportAllocs()
	for b.Loop() {
		_ = e.Send(ComposeState{Conversation: "c1", Focused: true})
	}
	e.inbox.push(snapshotReq{})
	select {
	case <-done:
	case <-time.After(time.Minute):
		b.Fatal("engine did not drain")
	}
}
