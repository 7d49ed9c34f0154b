package engine_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/enginefake"
)

// FuzzSendArbitraryEventSequences builds event sequences from fuzz bytes (page states,
// conversation switches and opens, new and loaded messages, id changes, compose state, sidebar
// rows, stray command results, mode changes from every entry point, window visibility) with
// message text, ids and senders cut from fuzz text, and feeds them to Engine.Send with fake time
// passing between them. The model answers with fuzz text too. Send must never panic and the
// engine must keep running; whatever was accepted, every text put into the compose box must
// start with the prefix, stay within the cap and target the conversation on screen, and every
// send must carry exactly that text.
func FuzzSendArbitraryEventSequences(f *testing.F) {
	// The script bytes are read by runScript: an op byte, then its arguments. A message takes 9
	// bytes: direction, id piece (2), sender piece (2), sender choice, text piece (2), other-Clanker.
	ready := []byte{0, 0}
	active := func(c byte) []byte { return []byte{10, c, 2} }
	open := func(c byte) []byte {
		return []byte{2, c, 3, c, 0, 0, 1, 0, 0, 0, 0, 5, 1, 0, 0, 2, 0, 0, 0, 0, 5, 1}
	}
	incoming := func(c, id byte) []byte { return []byte{4, c, 0, 0, id, 0, 0, 0, 0, 23, 1} }
	sleep := []byte{9, 200}
	cat := func(parts ...[]byte) []byte { return slices.Concat(parts...) }
	f.Add(cat(ready, active(0), open(0), incoming(0, 3), sleep), "hey clanker, what's up?", "sure thing")
	f.Add(cat(ready, active(0), open(0), incoming(0, 3), sleep), "hey clanker, what's up?", strings.Repeat("x", 3000))
	f.Add(cat(ready, active(0), open(0), incoming(0, 3), sleep), "hey clanker, what's up?", "[clanker] already prefixed")
	f.Add(cat(ready, active(0), active(1), open(0), incoming(0, 3), []byte{9, 1}, open(1), sleep, open(0), sleep),
		"hey clanker, what's up?", strings.Repeat("long words ", 300))
	f.Add(cat(ready, active(0), open(0), []byte{7, 0, 0}, incoming(0, 3), sleep, []byte{7, 0, 1}, sleep), "hey clanker, what's up?", "held behind a draft")
	f.Add(cat(ready, open(0), incoming(0, 3), []byte{10, 0, 0, 10, 0, 4, 10, 3, 2, 12}, sleep), "\xff\xfe broken", "{\"response\": \"json\"}")
	f.Add(cat(ready, active(0), open(0), incoming(0, 3), []byte{2, 1, 9, 3, 3, 1}, sleep), "hey clanker, what's up?", "switched away")
	f.Fuzz(func(t *testing.T, script []byte, text, answer string) {
		start := time.Now()
		synctest.Test(t, func(t *testing.T) { runScript(t, script, text, answer) })
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("one script took %v of real time; the engine must not spin", d)
		}
	})
}

var convs = []engine.ConversationID{"c1", "c2", "c3", "", engine.ConversationID(strings.Repeat("x", 600))}

func runScript(t *testing.T, script []byte, text, answer string) {
	page := enginefake.NewPage()
	st := enginefake.NewStore()
	s := engine.DefaultSettings()
	s.Endpoint, s.Model, s.UserName, s.QuietStartHour, s.QuietStopHour = "https://api.example.com/v1", "m", "Dana", 0, 0
	eng, err := engine.New(engine.Config{Page: page, Store: st, LLM: &enginefake.LLM{Respond: func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: answer}, nil }}, Rand: rand.New(rand.NewPCG(1, 2)),
		Location: time.UTC, Settings: &s, HasAPIKey: true, Logger: nil})
	if err != nil {
		t.Fatal(err)
	}
	// The page shows what the script opens; a navigate only reports success, so the script
	// alone decides what is on screen. Refusals of what the page sends are fine.
	page.NoNav = true
	var emptyEnters atomic.Int32
	page.Attach(func(ev engine.Event) error {
		if r, ok := ev.(engine.CommandResult); ok && r.Err == enginefake.NothingToSend {
			emptyEnters.Add(1)
		}
		return eng.Send(ev)
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = eng.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	pos := 0
	next := func() int {
		if pos >= len(script) {
			return 0
		}
		pos++
		return int(script[pos-1])
	}
	piece := func() string {
		if text == "" {
			return ""
		}
		a := next() % (len(text) + 1)
		b := a + next()%(len(text)-a+1)
		return text[a:b]
	}
	msg := func() engine.Message {
		dir := engine.Direction(next() % 3) // 2 is invalid on purpose
		return engine.Message{ID: "m" + piece(), Sender: []string{"Ann", "You", piece()}[next()%3], Direction: dir, Text: piece(),
			OtherClanker: next()%7 == 0}
	}
	modes := []engine.Mode{engine.ModeDeactivated, engine.ModeAvailable, engine.ModeActive, engine.ModeUninitialized, "bogus"}
	for steps := 0; pos < len(script) && steps < 64; steps++ {
		var ev engine.Event
		switch next() % 13 {
		case 0:
			ev = engine.PageStateChanged{State: []engine.PageState{engine.PageReady, engine.PageLoading, engine.PageSignedOut, "weird"}[next()%4]}
		case 1:
			ev = engine.WindowVisibility{Hidden: next()%2 == 0}
		case 2:
			ev = engine.ConversationChanging{To: convs[next()%len(convs)]}
		case 3:
			id := convs[next()%len(convs)]
			page.Show(id)
			ev = engine.ConversationOpened{ID: id, Participants: []engine.Participant{{Name: "Ann"}}, Messages: []engine.Message{msg(), msg()}}
		case 4:
			ev = engine.MessageAdded{Conversation: convs[next()%len(convs)], Message: msg()}
		case 5:
			ev = engine.MessageIDChanged{Conversation: convs[next()%len(convs)], OldID: "m" + piece(), NewID: "m" + piece()}
		case 6:
			ev = engine.HistoryLoaded{Conversation: convs[next()%len(convs)], Messages: []engine.Message{msg()}}
		case 7:
			ev = engine.ComposeState{Conversation: convs[next()%len(convs)], HasDraft: next()%2 == 0, Focused: true}
		case 8:
			ev = engine.SidebarUpdate{Rows: []engine.SidebarRow{{ID: convs[next()%len(convs)], Name: piece(), Snippet: piece(), Unread: next()%2 == 0}}}
		case 9:
			time.Sleep(time.Duration(next()) * time.Second)
			synctest.Wait()
			continue
		case 10:
			ev = engine.SetMode{Conversation: convs[next()%len(convs)], Mode: modes[next()%len(modes)], Source: "fuzz"}
		case 11:
			ev = engine.CommandResult{ID: uint64(next()), Err: piece()}
		case 12:
			ev = engine.DeactivateAll{}
		}
		_ = eng.Send(ev) // refusals are fine; a panic or a broken invariant is not
		synctest.Wait()
	}
	time.Sleep(10 * time.Minute)
	synctest.Wait()
	if n := emptyEnters.Load(); n > 0 {
		t.Errorf("Enter pressed %d times on an empty box: want the prefix and some text in every send", n)
	}
	for _, sent := range page.Sent() {
		body := strings.TrimPrefix(sent.Text, engine.Prefix)
		if !strings.HasPrefix(sent.Text, engine.Prefix) || strings.TrimSpace(body) == "" || utf8.RuneCountInString(body) > 1600 {
			t.Errorf("sent %q: want the prefix, some text and at most 1600 runes after it", sent.Text)
		}
	}
}
