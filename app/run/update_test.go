package run

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/update"
)

// The demo never asks the network anything by itself: it has no update checker. The app has
// one, which knows this build's version and the data folder.
func TestTheDemoHasNoUpdateChecker(t *testing.T) {
	settings := func() engine.Updates { return engine.Updates{Check: true} }
	if c := newUpdateChecker(Options{Demo: true, Version: "1.2.0"}, t.TempDir(), settings, nil, slog.Default()); c != nil {
		t.Fatal("the demo got an update checker")
	}
	dir := t.TempDir()
	c := newUpdateChecker(Options{Version: "1.2.0"}, dir, settings, nil, slog.Default())
	if c == nil || c.Version != "1.2.0" || c.Dir != dir || c.Fetch == nil {
		t.Fatalf("the app's update checker: %+v", c)
	}
}

// What the settings window says, from the state file the app's checker writes.
func TestTheSettingsWindowsUpdateSentences(t *testing.T) {
	on := engine.Updates{Check: true}
	page := update.ReleasesPage + "/tag/v1.3.0"
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.Local)
	for _, c := range []struct {
		name      string
		version   string
		u         engine.Updates
		state     *update.State
		available string
		status    string
	}{
		{"a development build", "dev", on, nil, "", "No update checks: this is a development build"},
		{"checks off", "1.2.0", engine.Updates{}, &update.State{CheckedAt: at, Latest: "1.3.0", URL: page}, "", "Update checks are off."},
		{"not checked yet", "1.2.0", on, nil, "", "Not checked yet"},
		{"a newer release", "1.2.0", on, &update.State{CheckedAt: at, Latest: "1.3.0", URL: page}, "Clanker 1.3.0 is available",
			"Last checked 2026-03-01 12:00: Clanker 1.3.0 is available (this is 1.2.0)."},
		{"up to date", "1.3.0", on, &update.State{CheckedAt: at, Latest: "1.3.0", URL: page}, "", "this is the newest version."},
		{"the feed was down", "1.2.0", on, &update.State{CheckedAt: at, Error: "the release feed could not be reached"}, "",
			"Last checked 2026-03-01 12:00: the release feed could not be reached. The next check is a day later."},
	} {
		dir := t.TempDir()
		if c.state != nil {
			if err := update.SaveState(dir, *c.state); err != nil {
				t.Fatal(err)
			}
		}
		v := UpdateView(dir, c.version, c.u)
		if v.Available != c.available || !strings.Contains(v.Status, c.status) {
			t.Errorf("%s: %+v; want available %q and a status containing %q", c.name, v, c.available, c.status)
		}
		if c.available != "" && v.URL != page {
			t.Errorf("%s: link %q, want %s", c.name, v.URL, page)
		}
	}
}
