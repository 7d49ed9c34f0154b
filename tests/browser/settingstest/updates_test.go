package settingstest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/clanker-desktop/clanker/app/desktop/settingswin"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

const releasePage = "https://github.com/clanker-desktop/clanker/releases/tag/v1.3.0"

// withUpdate gives the window an update check that found 1.3.0 (while checks are on) and
// records the pages it opens. What the app's check finds is app/update's and app/run's
// tests; here it is the window's part: showing it, linking to it, the opt-out and the feed.
func withUpdate(opened *[]string, mu *sync.Mutex) func(*settingswin.SettingsService) {
	return func(s *settingswin.SettingsService) {
		s.Updates = func(u engine.Updates) settingswin.UpdateView {
			if !u.Check {
				return settingswin.UpdateView{Status: "Update checks are off."}
			}
			return settingswin.UpdateView{Available: "Clanker 1.3.0 is available", URL: releasePage,
				Status: "Last checked 2026-03-01 12:00: Clanker 1.3.0 is available (this is 1.2.0)."}
		}
		s.OpenURL = func(u string) error {
			mu.Lock()
			defer mu.Unlock()
			*opened = append(*opened, u)
			return nil
		}
	}
}

func TestTheSettingsWindowSaysAnUpdateIsAvailableWithALink(t *testing.T) {
	var mu sync.Mutex
	var opened []string
	f := setup(t, withUpdate(&opened, &mu))
	f.waitText(t, "#updateBanner", "Clanker 1.3.0 is available")
	f.waitText(t, "#updateStatus", "Last checked")
	f.run(t, chromedp.Click("#updateLink", chromedp.ByQuery))
	f.waitText(t, "#updateResult", "Opened in your browser")
	mu.Lock()
	got := append([]string(nil), opened...)
	mu.Unlock()
	if len(got) != 1 || got[0] != releasePage {
		t.Fatalf("the update link opened %q, want only %s", got, releasePage)
	}
}

// Unticking the check and saving stores the opt-out, and the notice goes.
func TestUpdateChecksCanBeTurnedOff(t *testing.T) {
	var mu sync.Mutex
	var opened []string
	f := setup(t, withUpdate(&opened, &mu))
	var checked bool
	f.run(t, chromedp.Evaluate(`document.getElementById('updatesCheck').checked`, &checked))
	if !checked {
		t.Fatal("update checks should be on by default")
	}
	f.run(t, chromedp.Click("#updatesCheck", chromedp.ByQuery), chromedp.Click("#save", chromedp.ByQuery))
	f.waitText(t, "#saveResult", "Saved")
	st, err := f.store.Settings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Updates.Check {
		t.Fatal("after unticking and saving, update checks are still on in the store")
	}
	f.waitText(t, "#updateStatus", "Update checks are off.")
	testkit.WaitFor(t, 30*time.Second, "the update banner to go", func() (bool, string) {
		var hidden bool
		f.run(t, chromedp.Evaluate(`document.getElementById('updateBanner').hidden`, &hidden))
		return hidden, "it is still shown"
	})
}

// The feed is configurable; an address that is not https is refused with the settings
// package's sentence and nothing is stored.
func TestTheReleaseFeedIsCheckedLikeTheEndpoint(t *testing.T) {
	f := setup(t)
	f.run(t, setValue("#updateFeed", "http://releases.example.com/latest"))
	f.waitText(t, `.err[data-for="updateFeed"]`, "The release feed must be an https address")
	f.run(t, chromedp.Click("#save", chromedp.ByQuery))
	f.waitText(t, "#saveResult", "Not saved")
	f.run(t, setValue("#updateFeed", "https://releases.example.com/clanker/latest.json"), chromedp.Click("#save", chromedp.ByQuery))
	f.waitText(t, "#saveResult", "Saved")
	st, err := f.store.Settings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Updates.Feed != "https://releases.example.com/clanker/latest.json" {
		t.Fatalf("stored feed %q", st.Updates.Feed)
	}
}

// The demo's window (no update check behind it) says the demo never looks.
func TestTheDemoWindowSaysItNeverChecks(t *testing.T) {
	f := setup(t, func(s *settingswin.SettingsService) { s.Demo = true })
	got := f.waitText(t, "#updateStatus", "never looks for updates")
	if strings.Contains(got, "available") {
		t.Fatalf("demo: %q", got)
	}
}
