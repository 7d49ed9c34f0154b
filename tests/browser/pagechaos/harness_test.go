package pagechaos

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	protocol "github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/inject"
	"github.com/clanker-desktop/clanker/tests/browser"
	"github.com/clanker-desktop/clanker/tests/simctl"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// bindingName carries the bridge's events, each stamped with the page's clock, to Go.
const bindingName = "__pagechaosBinding"

// hostScript stands in Wails' message handler (browser.WailsHost): every event text goes to
// the binding with the time the bridge emitted it, on the clock the simulator stamps its
// ground truth with.
var hostScript = browser.WailsHost(`(function(bind){
  return function(s){ bind(JSON.stringify([performance.timeOrigin + performance.now(), s])); };
})(window.` + bindingName + `)`)

// liveBound is how long after a message the page drew at the live end of the open
// conversation the bridge may take to report it. Generous: labels may come 5 s late, the
// bridge waits for them, and CI is a loaded machine.
const liveBound = 15 * time.Second

// bridgeEvent is one event the bridge emitted, decoded as Go decodes it.
type bridgeEvent struct {
	T   float64
	Env protocol.Envelope
	Err error
	Raw string
}

// run is one session of a plan on a fresh simulator and tab.
type run struct {
	t    testing.TB
	plan sim.Plan
	s    *simctl.Server
	w    *sim.PlanWorld
	tab  context.Context

	mu     sync.Mutex
	events []bridgeEvent
	// played are the plan steps played, for reports.
	played []string
	// ended are what the end of the session itself found broken.
	ended []violation
	// shape is the scripted shape's name ("" for a seed).
	shape string
}

// settleBound is how long the bridge may take to report a conversation the user opened at
// its live end as settled (it waits for quiet and for labels).
const settleBound = 12 * time.Second

func (r *run) record(payload string) {
	var pair [2]json.RawMessage
	ev := bridgeEvent{}
	if err := json.Unmarshal([]byte(payload), &pair); err != nil {
		ev.Err = fmt.Errorf("host could not read the stamped event: %w", err)
		ev.Raw = payload
	} else {
		var text string
		_ = json.Unmarshal(pair[0], &ev.T)
		_ = json.Unmarshal(pair[1], &text)
		ev.Raw = text
		ev.Env, ev.Err = protocol.DecodeEvent([]byte(text))
	}
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

func (r *run) all() []bridgeEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]bridgeEvent(nil), r.events...)
}

// startRun builds the simulator for the plan, opens a tab with the bridge on its first
// conversation and waits until the bridge settled it.
func startRun(t testing.TB, b *browser.Browser, p sim.Plan) *run {
	t.Helper()
	t0 := time.Now()
	s, err := simctl.Start(sim.Options{Seed: p.Seed, LingerMS: p.LingerMS, Empty: true, Variants: p.Variants, Truth: true,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("start the simulator: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	w, err := p.Setup(s.Server)
	if err != nil {
		t.Fatal(err)
	}
	r := &run{t: t, plan: p, s: s, w: w}
	r.tab = b.NewTab(t)
	chromedp.ListenTarget(r.tab, func(ev any) {
		if e, ok := ev.(*runtime.EventBindingCalled); ok && e.Name == bindingName {
			r.record(e.Payload)
		}
	})
	browser.Run(t, r.tab, "install the bridge", runtime.Enable(), runtime.AddBinding(bindingName),
		chromedp.ActionFunc(func(ctx context.Context) error {
			if _, err := cdppage.AddScriptToEvaluateOnNewDocument(hostScript).Do(ctx); err != nil {
				return err
			}
			_, err := cdppage.AddScriptToEvaluateOnNewDocument(inject.Script()).Do(ctx)
			return err
		}),
		chromedp.Navigate(s.ConversationURL(w.IDs[0])))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(r.tab, 5*time.Second)
		defer cancel()
		_ = chromedp.Run(ctx, chromedp.Navigate("about:blank")) // ends the page's event stream
	})
	t1 := time.Now()
	if !r.waitSettled(w.IDs[0], 0, 30*time.Second) {
		t.Fatalf("the bridge never settled the first conversation; events: %s", r.summary(0))
	}
	if *traceFlag {
		t.Logf("start: simulator and tab %v, first settle %v", t1.Sub(t0).Round(time.Millisecond), time.Since(t1).Round(time.Millisecond))
	}
	return r
}

// waitSettled waits for a conversation event for conv among the events from index from on.
func (r *run) waitSettled(conv string, from int, timeout time.Duration) bool {
	ok, _ := testkit.Poll(timeout, func() (bool, string) {
		evs := r.all()
		for _, e := range evs[min(from, len(evs)):] {
			if c, ok := e.Env.Event.(protocol.Conversation); ok && c.ConversationID == conv {
				return true, ""
			}
		}
		return false, ""
	})
	return ok
}

// play runs the plan's steps.
func (r *run) play(steps []sim.PlanStep) error {
	for _, st := range steps {
		r.played = append(r.played, st.String())
		if err := r.plan.Play(r.s.Server, r.w, st); err != nil {
			return err
		}
	}
	return nil
}

// finish ends the session: search closed, another conversation opened at its live end and
// settled, and a last message there that the bridge must report.
func (r *run) finish() error {
	if err := r.s.Behave(sim.Behaviour{Kind: sim.BehaveSearch}); err != nil {
		return err
	}
	status := r.s.Status()
	final := r.w.IDs[0]
	if status.OpenConversation == final {
		final = r.w.IDs[1]
	}
	mark := len(r.all())
	r.played = append(r.played, "end: click "+r.label(final))
	if err := r.s.ClickConversation(final); err != nil {
		return err
	}
	if !r.waitSettled(final, mark, settleBound) {
		// Nothing the bridge could report of a probe now would be in time; say so instead.
		r.ended = append(r.ended, violation{Class: classMissed, Detail: fmt.Sprintf(
			"the user opened %s at the end and the bridge did not report it settled in %v", r.label(final), settleBound)})
		return nil
	}
	probe, err := r.s.Deliver(final, sim.Message{From: r.plan.Conversations[r.index(final)].New.Participants[0], Text: "Clanker, last one?"})
	if err != nil {
		return err
	}
	r.played = append(r.played, "end: deliver the probe "+probe.ID)
	// The wait ends when the bridge said anything of the probe (the checks judge what), or
	// after the bound.
	testkit.Poll(liveBound+2*time.Second, func() (bool, string) {
		for _, e := range r.all()[mark:] {
			if mentions(e, probe.ID) {
				return true, ""
			}
		}
		return false, ""
	})
	return nil
}

// mentions reports whether a bridge event carries message id.
func mentions(e bridgeEvent, id string) bool {
	var ms []protocol.Message
	switch ev := e.Env.Event.(type) {
	case protocol.NewMessage:
		ms = []protocol.Message{ev.Message}
	case protocol.MessageUpdate:
		ms = []protocol.Message{ev.Message}
	case protocol.History:
		ms = ev.Messages
	case protocol.Conversation:
		ms = ev.Messages
	case protocol.MessageID:
		return ev.NewID == id || ev.OldID == id
	}
	for _, m := range ms {
		if m.ID == id {
			return true
		}
	}
	return false
}

// now is the page's clock (the one the truth and the events are stamped with).
func (r *run) now() (float64, error) {
	var t float64
	ctx, cancel := context.WithTimeout(r.tab, 5*time.Second)
	defer cancel()
	err := chromedp.Run(ctx, chromedp.Evaluate(`performance.timeOrigin + performance.now()`, &t))
	return t, err
}

// truth waits until the page's ground-truth records have all reached the simulator, and
// returns them.
func (r *run) truth() ([]sim.TruthRecord, error) {
	var n int
	var err error
	ok, _ := testkit.Poll(20*time.Second, func() (bool, string) {
		var attr string
		ctx, cancel := context.WithTimeout(r.tab, 5*time.Second)
		err = chromedp.Run(ctx, chromedp.Evaluate(`document.body.getAttribute('data-sim-truth') || '0'`, &attr))
		cancel()
		if err != nil {
			return false, err.Error()
		}
		fmt.Sscan(attr, &n)
		return r.s.TruthComplete(n), ""
	})
	if !ok {
		return nil, fmt.Errorf("the page's %d ground-truth records did not all reach the simulator (%v)", n, err)
	}
	return r.s.Truth(), nil
}

func (r *run) index(conv string) int {
	for i, id := range r.w.IDs {
		if id == conv {
			return i
		}
	}
	return -1
}

// label names a conversation by its cast index, for reports.
func (r *run) label(conv string) string {
	if i := r.index(conv); i >= 0 {
		return fmt.Sprintf("c%d", i)
	}
	return conv
}

// summary lists event types from index from on, for failure messages.
func (r *run) summary(from int) string {
	var parts []string
	evs := r.all()
	for _, e := range evs[min(from, len(evs)):] {
		if e.Err != nil {
			parts = append(parts, "refused")
			continue
		}
		s := e.Env.Type
		switch ev := e.Env.Event.(type) {
		case protocol.Conversation:
			s += fmt.Sprintf("(%s, %d msgs)", r.label(ev.ConversationID), len(ev.Messages))
		case protocol.PageState:
			s += "(" + ev.State + ")"
		case protocol.History:
			s += fmt.Sprintf("(%d)", len(ev.Messages))
		case protocol.NewMessage:
			s += "(" + ev.Message.Text + ")"
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
