// Package bridgetest proves the Clanker bridge (inject/) in headless Chromium: every event
// it reports goes through a stand-in of Wails' message handler (browser.WailsHost) into
// Go, where page.DecodeEvent checks it against the protocol (a test fails if the bridge
// ever sends something Go would refuse), and every command goes in through
// page.EncodeCommand, as the desktop shell will send it.
package bridgetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/clanker-desktop/clanker/app/engine"
	protocol "github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/inject"
	"github.com/clanker-desktop/clanker/tests/browser"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// hostScript stands in Wails' message handler (browser.WailsHost) on the test page. It
// forwards each event to the CDP binding (so events reach Go and survive reloads) and notes
// when message events were posted, for the latency benchmark.
var hostScript = browser.WailsHost(`(function(bind){
  window.__msgPostedAt = [];
  return function(s){
    if (s.indexOf('"type":"message"') > 0) window.__msgPostedAt.push(performance.now());
    bind(s);
  };
})(window.__clankerBinding)`)

// host is one tab wired to the bridge: decoded events in arrival order.
type host struct {
	t      testing.TB
	ctx    context.Context
	mu     sync.Mutex
	events []protocol.Envelope
	bad    []string
	nextID int
}

// injectMode says when the bridge is injected.
type injectMode int

const (
	atDocumentStart injectMode = iota // like the desktop shell's user script
	afterLoad                         // like WindowExecJS after OnDomReady
	noBridge                          // the test injects it itself
)

// newHost prepares a tab: the binding, the host function, and (atDocumentStart) the bridge
// on every new document.
func newHost(t testing.TB, ctx context.Context, mode injectMode) *host {
	t.Helper()
	h := &host{t: t, ctx: ctx}
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*runtime.EventBindingCalled); ok && e.Name == "__clankerBinding" {
			env, err := protocol.DecodeEvent([]byte(e.Payload))
			h.mu.Lock()
			if err != nil {
				h.bad = append(h.bad, fmt.Sprintf("%v (event %.300s)", err, e.Payload))
			} else {
				h.events = append(h.events, env)
			}
			h.mu.Unlock()
		}
	})
	actions := []chromedp.Action{
		runtime.Enable(),
		runtime.AddBinding("__clankerBinding"),
		chromedp.ActionFunc(func(ctx context.Context) error {
			_, err := page.AddScriptToEvaluateOnNewDocument(hostScript).Do(ctx)
			return err
		}),
	}
	if mode == atDocumentStart {
		actions = append(actions, chromedp.ActionFunc(func(ctx context.Context) error {
			_, err := page.AddScriptToEvaluateOnNewDocument(inject.Script()).Do(ctx)
			return err
		}))
	}
	browser.Run(t, ctx, "install test host", actions...)
	t.Cleanup(func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, b := range h.bad {
			t.Errorf("the bridge sent an event Go refuses: %s", b)
		}
	})
	return h
}

// newBrowser starts Chromium and, at cleanup, leaves the page first so an open event
// stream (the simulator's) does not hold up the harness's graceful browser shutdown.
func newBrowser(t testing.TB) *browser.Browser {
	t.Helper()
	b := browser.New(t)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(b.Context(), 5*time.Second)
		defer cancel()
		_ = chromedp.Run(ctx, chromedp.Navigate("about:blank"))
	})
	return b
}

// inject runs the bridge in the current document (after load).
func (h *host) inject() {
	h.t.Helper()
	browser.Run(h.t, h.ctx, "inject bridge", chromedp.Evaluate(inject.Script(), nil))
}

// all returns a copy of the events so far.
func (h *host) all() []protocol.Envelope {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]protocol.Envelope(nil), h.events...)
}

// mark returns the current event count; waits and queries can start from it.
func (h *host) mark() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.events)
}

// since returns the events after mark.
func (h *host) since(mark int) []protocol.Envelope {
	all := h.all()
	if mark > len(all) {
		return nil
	}
	return all[mark:]
}

// waitFor polls until some event after mark satisfies match, and returns it.
// minWait is the shortest time waitFor waits for a condition.
const minWait = 45 * time.Second

func (h *host) waitFor(mark int, what string, timeout time.Duration, match func(protocol.Event) bool) protocol.Event {
	h.t.Helper()
	// A wait is a bound on a condition, not a performance claim: on CI's two loaded cores
	// under the race detector the page can take many seconds to render, so every wait gets
	// at least minWait. A condition that holds ends the wait at once.
	if timeout < minWait {
		timeout = minWait
	}
	var found protocol.Event
	testkit.WaitFor(h.t, timeout, what, func() (bool, string) {
		evs := h.since(mark)
		for _, e := range evs {
			if match(e.Event) {
				found = e.Event
				return true, ""
			}
		}
		return false, "events since mark: " + summary(evs)
	})
	return found
}

// summary lists event types (and ids for messages) for failure messages.
func summary(evs []protocol.Envelope) string {
	var parts []string
	for _, e := range evs {
		s := e.Type
		switch ev := e.Event.(type) {
		case protocol.NewMessage:
			s += "(" + ev.Message.ID + ")"
		case protocol.PageState:
			s += "(" + ev.State + ")"
		case protocol.Result:
			s += "(" + ev.ID + " " + ev.Code + ")"
		case protocol.Conversation:
			s += fmt.Sprintf("(%s, %d msgs)", ev.ConversationID, len(ev.Messages))
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// waitConversation waits for the settled conversation event for id.
func (h *host) waitConversation(mark int, id string) protocol.Conversation {
	h.t.Helper()
	return h.waitFor(mark, "conversation "+id, 15*time.Second, func(e protocol.Event) bool {
		c, ok := e.(protocol.Conversation)
		return ok && c.ConversationID == id
	}).(protocol.Conversation)
}

// waitState waits for a page_state event with the given state.
func (h *host) waitState(mark int, state string, timeout time.Duration) protocol.PageState {
	h.t.Helper()
	return h.waitFor(mark, "page_state "+state, timeout, func(e protocol.Event) bool {
		p, ok := e.(protocol.PageState)
		return ok && p.State == state
	}).(protocol.PageState)
}

// send encodes a command as the desktop shell would and runs it in the page.
func (h *host) send(args protocol.CommandArgs) string {
	h.t.Helper()
	h.mu.Lock()
	h.nextID++
	id := fmt.Sprintf("c%d", h.nextID)
	h.mu.Unlock()
	js, err := protocol.EncodeCommand(id, args)
	if err != nil {
		h.t.Fatalf("encode %s: %v", args.CommandType(), err)
	}
	browser.Run(h.t, h.ctx, "run command "+args.CommandType(), chromedp.Evaluate(js, nil))
	return id
}

// do sends a command and waits for its result.
func (h *host) do(args protocol.CommandArgs) protocol.Result {
	h.t.Helper()
	m := h.mark()
	id := h.send(args)
	return h.result(m, id)
}

func (h *host) result(mark int, id string) protocol.Result {
	h.t.Helper()
	return h.waitFor(mark, "result of "+id, 10*time.Second, func(e protocol.Event) bool {
		r, ok := e.(protocol.Result)
		return ok && r.ID == id
	}).(protocol.Result)
}

// mustOK fails unless the command succeeded, and returns its data.
func (h *host) mustOK(args protocol.CommandArgs) json.RawMessage {
	h.t.Helper()
	r := h.do(args)
	if !r.OK {
		h.t.Fatalf("%s failed: %s %s", args.CommandType(), r.Code, r.Error)
	}
	return r.Data
}

// messages returns the NewMessage events after mark.
func (h *host) newMessages(mark int) []protocol.Message {
	var out []protocol.Message
	for _, e := range h.since(mark) {
		if m, ok := e.Event.(protocol.NewMessage); ok {
			out = append(out, m.Message)
		}
	}
	return out
}

// count returns how many events after mark have the given type.
func (h *host) count(mark int, typ string) int {
	n := 0
	for _, e := range h.since(mark) {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// eval runs JS and decodes its result into out (may be nil).
func eval(t testing.TB, ctx context.Context, js string, out any) {
	t.Helper()
	browser.Run(t, ctx, "evaluate "+engine.Clip(js, 60), chromedp.Evaluate(js, out))
}

// view returns what the events after mark say about message id, latest word last: the
// conversation baseline, the new-message or history report, then every message_update
// (a late label, an image's src). ok is false when no event mentioned it.
func (h *host) view(mark int, id string) (m protocol.Message, ok bool) {
	for _, e := range h.since(mark) {
		var msgs []protocol.Message
		switch ev := e.Event.(type) {
		case protocol.Conversation:
			msgs = ev.Messages
		case protocol.History:
			msgs = ev.Messages
		case protocol.NewMessage:
			msgs = []protocol.Message{ev.Message}
		case protocol.MessageUpdate:
			msgs = []protocol.Message{ev.Message}
		}
		for _, x := range msgs {
			if x.ID == id {
				m, ok = x, true
			}
		}
	}
	return m, ok
}

// waitView waits until what the events after mark say about message id satisfies match
// (for instance until its label, however late, has named the sender) and returns it.
func (h *host) waitView(mark int, id, what string, match func(protocol.Message) bool) protocol.Message {
	h.t.Helper()
	var got protocol.Message
	h.waitFor(mark, what, minWait, func(protocol.Event) bool {
		m, ok := h.view(mark, id)
		got = m
		return ok && match(m)
	})
	return got
}
