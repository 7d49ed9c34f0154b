package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Chaos seed 60000465: Clanker's half-typed reply stayed in c1's box when the user switched
// away. Back in c1 the page first reported a view that still carried the old pane's rows (issue
// 33's lingering pane), which the engine rightly does not believe; but it also left its own
// text in the box until a view it believed came, seconds later, and the user was typing into
// the box by then. The text is Clanker's whatever the rows say: it is taken out as soon as the
// conversation is shown, believed or not.
func TestPartialTextLeftInABoxIsTakenOutWhileTheViewIsStillDoubted(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		const reply = "sure, seven works for me and I will bring the salad"
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: reply}, nil })
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "dinner at seven?"))
		typingStarted(h, 3)
		bob := in("Bob", "hello")
		h.open("c2", bob)
		left := box(h, "c1")
		if !strings.HasPrefix(left, engine.Prefix) {
			t.Fatalf("c1's box holds %q after the switch; the test needs Clanker's partial text left there", left)
		}
		h.wait(5 * time.Second)
		// The first report of c1 still carries c2's rows (an id recorded in c2).
		h.page.Lock()
		h.page.Lingering, h.page.LingerViews = []engine.Message{bob}, 1
		h.page.Unlock()
		h.reopen("c1")
		if s := h.snap(); s.Foreground != nil {
			t.Fatalf("the view carrying c2's row was believed: %+v", s.Foreground)
		}
		if got := box(h, "c1"); got != "" {
			t.Fatalf("c1's box holds %q while its view is doubted; Clanker's text must be taken out at once", got)
		}
		h.userTypes("c1", "ok")
		if got := box(h, "c1"); got != "ok" {
			t.Fatalf("c1's box holds %q once the user typed there, want only the user's %q", got, "ok")
		}
		h.userEmpties("c1", false)
		h.wait(30 * time.Second)
		h.wantSent("once c1 is reported consistently", "c1|"+engine.Prefix+reply)
	})
}
