package engine_test

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/enginefake"
)

// benchEngine returns an engine with an Active foreground of 50 messages, driven directly on the
// benchmark goroutine (no Run loop), so the numbers are the engine's own cost per event.
func benchEngine(b *testing.B) *engine.Engine {
	b.Helper()
	s := testSettings()
	st := enginefake.NewStore()
	st.SetMode("c1", engine.ModeActive)
	e, err := engine.New(engine.Config{Page: enginefake.NewPage(), Store: st, LLM: &enginefake.LLM{}, Rand: rand.New(rand.NewPCG(1, 2)), Settings: &s, HasAPIKey: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	e.Handle(engine.PageStateChanged{State: engine.PageReady})
	var msgs []engine.Message
	for i := range 50 {
		msgs = append(msgs, engine.Message{ID: fmt.Sprintf("h%d", i), Sender: "Ann", Text: "an ordinary message of some length"})
	}
	e.Handle(engine.ConversationOpened{ID: "c1", Participants: []engine.Participant{{Name: "Ann"}}, Messages: msgs})
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
		ev := engine.MessageAdded{Conversation: "c1", Message: engine.Message{ID: fmt.Sprintf("n%d", i), Sender: "Ann", Text: "hey, what do you all think about dinner?"}}
		if err := engine.ValidateEvent(ev); err != nil {
			b.Fatal(err)
		}
		e.Handle(ev)
	}
	b.StopTimer()
	// The message must have reached the trigger decision: a view the engine doubted (a sender
	// the one-to-one conversation never had) would measure only the doubt.
	if !e.StopReplyTimer() {
		b.Fatal("no reply timer armed: the benchmark no longer measures the trigger path")
	}
}

// BenchmarkEngineComposeState measures the most frequent page event, an input-box update.
func BenchmarkEngineComposeState(b *testing.B) {
	e := benchEngine(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		e.Handle(engine.ComposeState{Conversation: "c1", HasDraft: i%2 == 0, Focused: true})
	}
}

// BenchmarkEngineSidebarUpdate measures a 100-row sidebar update with one changed snippet.
func BenchmarkEngineSidebarUpdate(b *testing.B) {
	e := benchEngine(b)
	rows := make([]engine.SidebarRow, 100)
	for i := range rows {
		rows[i] = engine.SidebarRow{ID: engine.ConversationID(fmt.Sprintf("s%d", i)), Name: "Friend", Snippet: "Friend: hello"}
	}
	e.Handle(engine.SidebarUpdate{Rows: rows})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		rows[i%100].Snippet = fmt.Sprintf("Friend: message %d", i)
		e.Handle(engine.SidebarUpdate{Rows: rows})
	}
}

// BenchmarkEngineSendThroughput measures the round trip of Send through the inbox to the Run
// goroutine, the path every page event takes.
func BenchmarkEngineSendThroughput(b *testing.B) {
	e := benchEngine(b)
	done := make(chan struct{})
	go func() {
		e.ServeInboxUntilMark()
		close(done)
	}()
	b.ReportAllocs()
	for b.Loop() {
		_ = e.Send(engine.ComposeState{Conversation: "c1", Focused: true})
	}
	e.MarkInbox()
	select {
	case <-done:
	case <-time.After(time.Minute):
		b.Fatal("engine did not drain")
	}
}
