package bridgetest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	protocol "github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/tests/browser"
)

// appendJS adds one labelled row at the bottom and removes the top one (the page keeps a
// fixed window, as Google's does), then waits one task so the observer has run, and
// returns how long after the append the bridge posted the row's message event.
const appendJS = `(async function(i){
  var before = window.__msgPostedAt.length;
  var t0 = performance.now();
  fx.append({id: 'n' + i, label: fx.L('Jane Doe', 'bench message ' + i), text: 'bench message ' + i});
  fx.removeFirst();
  await new Promise(function(r){ setTimeout(r, 0); });
  if (window.__msgPostedAt.length !== before + 1) return -1;
  return window.__msgPostedAt[before] - t0;
})(%d)`

func taskSeconds(b *testing.B, ctx context.Context) float64 {
	b.Helper()
	var ms []*performance.Metric
	browser.Run(b, ctx, "performance metrics", chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		ms, err = performance.GetMetrics().Do(ctx)
		return err
	}))
	for _, m := range ms {
		if m.Name == "TaskDuration" {
			return m.Value
		}
	}
	b.Fatal("no TaskDuration metric")
	return 0
}

// bridgeStats reads the bridge's cost counters: milliseconds spent in its mutation
// observer, and the part of that spent handing events to the host.
func bridgeStats(b *testing.B, h *host) (observerMs, postMs float64) {
	b.Helper()
	var s struct {
		ObserverMs float64 `json:"observerMs"`
		PostMs     float64 `json:"postMs"`
	}
	if err := json.Unmarshal(h.mustOK(protocol.Stats{}), &s); err != nil {
		b.Fatal(err)
	}
	return s.ObserverMs, s.PostMs
}

// BenchmarkBridgeNewMessage measures, per new message row, with 40 and with 400 rows
// rendered: latency-us (row appended to event posted, in-page clock), bridge-us (time
// spent in the bridge's mutation observer), post-us (the part of it spent in the host's
// post function, here the CDP binding), own-us (bridge-us without post-us: the bridge's
// own parsing and bookkeeping) and task-us (all renderer main-thread work,
// from CDP Performance TaskDuration, including the page's own append and layout).
func BenchmarkBridgeNewMessage(b *testing.B) {
	for _, rows := range []int{40, 400} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			srv := startFixture(b)
			br := newBrowser(b)
			h := newHost(b, br.Context(), atDocumentStart)
			browser.Run(b, h.ctx, "open bench page", performance.Enable(),
				chromedp.Navigate(fmt.Sprintf("%s/web/conversations/BENCH?rows=%d", srv.URL, rows)))
			c := h.waitFor(0, "bench conversation", 20*time.Second, func(e protocol.Event) bool {
				c, ok := e.(protocol.Conversation)
				return ok && c.ConversationID == "BENCH"
			}).(protocol.Conversation)
			if len(c.Messages) != rows {
				b.Fatalf("bench conversation has %d rows, want %d", len(c.Messages), rows)
			}
			obs0, post0 := bridgeStats(b, h)
			task0 := taskSeconds(b, h.ctx)
			m := h.mark()
			var latency float64
			n := 0
			for b.Loop() {
				var l float64
				browser.Run(b, h.ctx, "append row", chromedp.Evaluate(fmt.Sprintf(appendJS, n), &l,
					func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
				if l < 0 {
					b.Fatalf("row %d produced no message event", n)
				}
				latency += l
				n++
			}
			b.StopTimer()
			task1 := taskSeconds(b, h.ctx)
			obs1, post1 := bridgeStats(b, h)
			// Every appended row must have been reported once, as new.
			deadline := time.Now().Add(10 * time.Second)
			for len(h.newMessages(m)) < n && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if got := len(h.newMessages(m)); got != n {
				b.Fatalf("%d rows appended, %d message events", n, got)
			}
			b.ReportMetric(latency*1000/float64(n), "latency-us")
			b.ReportMetric((obs1-obs0)*1000/float64(n), "bridge-us")
			b.ReportMetric((post1-post0)*1000/float64(n), "post-us")
			b.ReportMetric(((obs1-obs0)-(post1-post0))*1000/float64(n), "own-us")
			b.ReportMetric((task1-task0)*1e6/float64(n), "task-us")
		})
	}
}
