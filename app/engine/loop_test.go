package engine

import (
	"strings"
	"testing"
	"time"
)

// Tests for the conversation loop: nothing the user or Clanker started is lost, and nothing
// traps the user.

func bannersWith(h *harness, key string) []Command {
	var out []Command
	for _, c := range h.page.commands(CmdBanner) {
		if c.Key == key {
			out = append(out, c)
		}
	}
	return out
}

// A request refused before it was sent because the stored settings cannot be used (an http://
// endpoint that is not loopback, say) shows a banner instead of a toast per message, keeps the
// conversation's mode, and the banner goes when the settings are saved again.
func TestUnusableStoredSettingsShowABannerKeepTheModeAndClearOnSave(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		const why = "Clanker's AI settings cannot be used, so nothing was sent: use https:// for anything else. Open Settings to fix them."
		h.llm.set(0, func(LLMRequest) (Reply, error) {
			return Reply{}, &LLMError{Class: ErrSettings, UserText: why}
		})
		h.store.setMode("c1", ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "what's up"))
		h.wait(5 * time.Second)
		h.wantRequests(1, "one refused request")
		h.wantSent("after a refused request")
		if b := bannersWith(h, BannerSettings); len(b) != 1 || b[0].Text != why {
			t.Fatalf("want one settings banner saying %q, got %+v", why, b)
		}
		if n := len(h.page.commands(CmdToast)); n != 0 {
			t.Fatalf("want no toast for unusable settings, got %d", n)
		}
		if h.store.mode("c1") != ModeActive {
			t.Fatalf("the mode changed to %q; fixing the settings must be enough", h.store.mode("c1"))
		}
		h.llm.set(0, nil)
		h.send(SettingsChanged{Settings: testSettings()})
		b := bannersWith(h, BannerSettings)
		if last := b[len(b)-1]; last.Text != "" {
			t.Fatalf("want the settings banner removed after a save, got %+v", b)
		}
		h.receive("c1", in("Ann", "and now?"))
		h.wait(10 * time.Second)
		h.wantSent("after the fix", "c1|"+Prefix+"ok")
		if !strings.HasPrefix(h.page.sentTexts()[0].text, Prefix) {
			t.Fatal("reply without prefix")
		}
	})
}
