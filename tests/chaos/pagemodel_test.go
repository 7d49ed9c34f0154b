package chaos

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// These test the page model itself: a chaos failure is only worth chasing in the engine when
// the model behaves as the bridge does (inject/PROTOCOL.md).

// recorder stands in for the engine and keeps every event the page sends.
type recorder struct {
	mu  sync.Mutex
	evs []engine.Event
}

func (r *recorder) Send(ev engine.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, ev)
	return nil
}

func (r *recorder) events() []engine.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]engine.Event(nil), r.evs...)
}

// Seed 5002784 once failed because the model sent a row of a conversation whose switch was not
// reported yet as a MessageAdded, then sent the report with the rows as they were at the click.
// The engine, told of the newer row first, placed the older one after it, so a reply seemed to
// answer another Clanker that was answering us. The bridge reports rows only after the
// conversation settled, in a baseline read when it is sent: so must the model.
func TestPageModelReportsRowsOfAnUnsettledConversationInItsBaseline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		p := newPage(newModel())
		p.eng = rec
		s := &session{t: t, p: p, m: p.llm}
		s.apply(event{Kind: evSwitch, Conv: 1, Var: 1, D: 120 * time.Millisecond})
		s.apply(event{Kind: evRemote, Conv: 1, Var: 3})        // another Clanker, in c1 while it settles
		s.apply(event{Kind: evRemote, Conv: numConvs, Var: 0}) // a person, in the conversation on screen
		for _, ev := range rec.events() {
			switch ev := ev.(type) {
			case engine.MessageAdded:
				t.Fatalf("a row of c1 was sent as new (%s) before c1's switch was reported", ev.Message.ID)
			case engine.ConversationOpened:
				t.Fatalf("c1 was reported before it settled")
			}
		}
		time.Sleep(time.Second)
		synctest.Wait()
		var opened []engine.ConversationOpened
		for _, ev := range rec.events() {
			if o, ok := ev.(engine.ConversationOpened); ok {
				opened = append(opened, o)
			}
		}
		if len(opened) != 1 || opened[0].ID != "c1" {
			t.Fatalf("want one report, of c1, got %+v", opened)
		}
		var ids []string
		for _, m := range opened[0].Messages {
			ids = append(ids, m.ID)
		}
		if len(ids) != 2 || ids[0] != "m1" || ids[1] != "m2" {
			t.Fatalf("want c1's baseline to hold both rows in page order [m1 m2], got %v", ids)
		}
		// Once settled, a new row is sent on its own.
		s.apply(event{Kind: evRemote, Conv: numConvs, Var: 0})
		evs := rec.events()
		var last engine.MessageAdded
		for _, ev := range evs {
			if m, ok := ev.(engine.MessageAdded); ok {
				last = m
			}
		}
		if last.Conversation != "c1" || last.Message.ID != "m3" {
			t.Fatalf("want m3 sent as a new row of the settled c1, got %+v", last)
		}
	})
}

// switches lists the switch events the recorder saw, as "changing cN" and "opened cN".
func (r *recorder) switches() []string {
	var out []string
	for _, ev := range r.events() {
		switch ev := ev.(type) {
		case engine.ConversationChanging:
			out = append(out, "changing "+string(ev.To))
		case engine.ConversationOpened:
			out = append(out, "opened "+string(ev.ID))
		}
	}
	return out
}

// Seed 3141592653593152 once failed because the model dropped the start of a switch the user
// left before it settled (c4 -> c1 -> c4, both reported late): the engine never learned that
// c4 was left, took c4's report for a refresh, and read the user's sent message, whose id had
// become permanent meanwhile, as a new one to answer. The bridge sends a page_state for every
// change of conversation, in order; only the settled report of a conversation the user already
// left is never sent.
func TestPageModelAnnouncesEverySwitchInOrderEvenOneThatNeverSettled(t *testing.T) {
	for _, tc := range []struct {
		name  string
		evs   []event
		after []string
	}{
		{"the later switch is reported first", []event{
			{Kind: evSwitch, Conv: 1, Var: 1, D: 569 * time.Millisecond},
			{Kind: evSwitch, Conv: 4, Var: 1, D: 288 * time.Millisecond},
		}, []string{"changing c1", "changing c4", "opened c4"}},
		{"the left switch is reported first", []event{
			{Kind: evSwitch, Conv: 2, Var: 1, D: 100 * time.Millisecond},
			{Kind: evSwitch, Conv: 3, Var: 1, D: 500 * time.Millisecond},
		}, []string{"changing c2", "changing c3", "opened c3"}},
		{"an immediate switch follows a delayed one", []event{
			{Kind: evSwitch, Conv: 1, Var: 1, D: 300 * time.Millisecond},
			{Kind: evSwitch, Conv: 2},
		}, []string{"changing c1", "changing c2", "opened c2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := &recorder{}
				p := newPage(newModel())
				p.eng = rec
				s := &session{t: t, p: p, m: p.llm}
				for _, e := range tc.evs {
					s.apply(e)
				}
				time.Sleep(time.Second)
				synctest.Wait()
				if got := rec.switches(); !slices.Equal(got, tc.after) {
					t.Fatalf("want the bridge's switch events %q, got %q", tc.after, got)
				}
			})
		})
	}
}
