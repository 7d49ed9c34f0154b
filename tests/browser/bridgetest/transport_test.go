package bridgetest

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	protocol "github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/inject"
	"github.com/clanker-desktop/clanker/tests/browser"
)

// TestWailsTransportsWrapEventsForTheRuntime stands in Wails' two page-side channels and
// checks the bridge picks each and sends what Wails' dispatcher expects: 'EE' + JSON of
// {name: "clanker:event", data: [eventJSON]}.
func TestWailsTransportsWrapEventsForTheRuntime(t *testing.T) {
	for _, c := range []struct{ name, setup string }{
		{"webkit", `window.webkit = {messageHandlers: {external: {postMessage: function(s){ window.__wailsBinding(s); }}}};`},
		{"webview2", `window.chrome = window.chrome || {}; window.chrome.webview = {postMessage: function(s){ window.__wailsBinding(s); }};`},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := startFixture(t)
			b := newBrowser(t)
			ctx := b.Context()
			var mu sync.Mutex
			var raw []string
			chromedp.ListenTarget(ctx, func(ev any) {
				if e, ok := ev.(*runtime.EventBindingCalled); ok && e.Name == "__wailsBinding" {
					mu.Lock()
					raw = append(raw, e.Payload)
					mu.Unlock()
				}
			})
			browser.Run(t, ctx, "install Wails stand-in",
				runtime.Enable(), runtime.AddBinding("__wailsBinding"),
				chromedp.ActionFunc(func(ctx2 context.Context) error {
					if _, err := page.AddScriptToEvaluateOnNewDocument(c.setup).Do(ctx2); err != nil {
						return err
					}
					_, err := page.AddScriptToEvaluateOnNewDocument(inject.Script()).Do(ctx2)
					return err
				}),
				chromedp.Navigate(srv.URL+"/web/conversations/CONV_A"))
			deadline := time.Now().Add(minWait)
			var sawConversation bool
			for !sawConversation && time.Now().Before(deadline) {
				mu.Lock()
				msgs := append([]string(nil), raw...)
				mu.Unlock()
				for i, m := range msgs {
					if !strings.HasPrefix(m, "EE") {
						t.Fatalf("message %q does not start with Wails' EE prefix", m[:min(len(m), 40)])
					}
					var w struct {
						Name string   `json:"name"`
						Data []string `json:"data"`
					}
					if err := json.Unmarshal([]byte(m[2:]), &w); err != nil || w.Name != "clanker:event" || len(w.Data) != 1 {
						t.Fatalf("message %.80s is not {name: clanker:event, data: [event]}: %v", m, err)
					}
					env, err := protocol.DecodeEvent([]byte(w.Data[0]))
					if err != nil {
						t.Fatalf("event inside the Wails message is refused: %v", err)
					}
					if i == 0 {
						if h, ok := env.Event.(protocol.Hello); !ok || h.Transport != c.name {
							t.Fatalf("first event %+v, want hello naming transport %s", env.Event, c.name)
						}
					}
					if _, ok := env.Event.(protocol.Conversation); ok {
						sawConversation = true
					}
				}
				time.Sleep(50 * time.Millisecond)
			}
			if !sawConversation {
				t.Fatal("no conversation event arrived over the Wails channel")
			}
		})
	}
}

func TestOversizedSnapshotStaysUnderTheEventCapAndTruncatesLongTexts(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/BENCH?rows=400&long=4500", atDocumentStart)
	c := h.waitConversation(0, "BENCH")
	if c.Omitted == 0 || len(c.Messages)+c.Omitted != 400 {
		t.Fatalf("snapshot of 400 rows of 4500 characters has %d messages and %d omitted; want some omitted, 400 in all", len(c.Messages), c.Omitted)
	}
	last := c.Messages[len(c.Messages)-1]
	if last.ID != "r399" || !last.TextTruncated || len([]rune(last.Text)) != protocol.MaxTextLen {
		t.Errorf("newest row %s truncated=%v len=%d, want r399 truncated to %d", last.ID, last.TextTruncated, len([]rune(last.Text)), protocol.MaxTextLen)
	}
}

func TestBackNavigationReportsThePreviousConversation(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	m := h.mark()
	h.mustOK(protocol.Navigate{ConversationID: "CONV_B"})
	h.waitConversation(m, "CONV_B")
	m = h.mark()
	eval(t, h.ctx, `history.back(), 1`, nil)
	c := h.waitConversation(m, "CONV_A")
	if len(c.Messages) != 2 || c.Messages[0].ID != "a1" {
		t.Errorf("after back: %s", dump(c.Messages))
	}
}
