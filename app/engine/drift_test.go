package engine_test

import (
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Issue 27.7: selector drift in what decides who said what or which rows are new fails
// closed. Clanker stops acting (no requests, no typing, no visits), says so in a banner, keeps
// the page usable, and resumes by itself once the self-test passes again.
func TestSelectorDriftPausesClankerUntilThePageCanBeReadAgain(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = true })
		h.store.SetMode("c1", engine.ModeAvailable)
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) {
			return engine.Reply{Text: "a long enough answer to be typed step by step"}, nil
		})
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "clanker, first?"))
		for i := 0; i < 100 && len(h.page.Commands(engine.CmdTypeText)) < 3; i++ {
			h.wait(100 * time.Millisecond)
		}
		h.send(engine.PageDrift{Failing: []string{"messageCore", "senderLabel"}})
		steps := len(h.page.Commands(engine.CmdTypeText))
		h.receive("c1", in("Bob", "clanker, second?"))
		h.wait(5 * time.Minute)
		h.wantRequests(1, "nothing asked while the page cannot be read")
		h.wantSent("nothing posted while paused")
		if got := len(h.page.Commands(engine.CmdTypeText)); got != steps {
			t.Fatalf("Clanker kept typing after the page changed: %d steps, then %d", steps, got)
		}
		if h.page.Box["c1"] != "" {
			t.Fatalf("Clanker's partial text was left in the box: %q", h.page.Box["c1"])
		}
		banner := func() string {
			text := ""
			for _, c := range h.page.Commands(engine.CmdBanner) {
				if c.Key == engine.BannerPaused {
					text = c.Text
				}
			}
			return text
		}
		if banner() != engine.PausedText {
			t.Fatalf("want the paused banner, got %q", banner())
		}
		h.send(engine.PageDrift{})
		if banner() != "" {
			t.Fatalf("want the banner removed on resume, got %q", banner())
		}
		h.wait(time.Minute)
		h.wantRequests(1, "what came while paused is released, not answered from an unreadable page")
		h.receive("c1", in("Ann", "clanker, third?"))
		h.wait(time.Minute)
		h.wantRequests(2, "a mention after the resume is answered")
		if got := answers(h, "c1"); len(got) != 1 {
			t.Fatalf("want the mention after the resume answered, got %q", got)
		}
	})
}
