package run

import (
	"context"
	"errors"
	"log/slog"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/menus"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/app/sqlite"
	"github.com/clanker-desktop/clanker/tests/enginefake"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// settingsApp is an App with a store, a page link and settings processes replaced by
// `sleep`, a stand-in that runs until it is ended.
func settingsApp(t *testing.T) *App {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in settings process is the Unix sleep command")
	}
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep command to stand in for the settings window")
	}
	a := &App{log: slog.New(slog.DiscardHandler), listeners: map[int]func(menus.Status){}}
	a.ctx, a.cancel = context.WithCancel(context.Background())
	t.Cleanup(a.cancel)
	s, err := sqlite.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s.Secrets = nil
	t.Cleanup(func() { _ = s.Close() })
	a.store = s
	a.link, err = page.NewLink(page.LinkConfig{
		Exec:   func(string) error { return nil },
		Events: func(engine.Event) error { return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.link.Close)
	if err := a.reload(); err != nil {
		t.Fatal(err)
	}
	a.settingsExec = func([]string) *exec.Cmd { return exec.Command("sleep", "600") }
	return a
}

// Quitting ends every settings process the app started (the settings window and a
// diagnostics view), and none starts afterwards.
func TestSettingsProcessesEndWithTheApp(t *testing.T) {
	a := settingsApp(t)
	if err := a.startSettings(""); err != nil {
		t.Fatal(err)
	}
	if err := a.startSettings("Clanker: conversation state\n\n{}"); err != nil {
		t.Fatal(err)
	}
	a.nt.mu.Lock()
	var procs []*exec.Cmd
	for c := range a.nt.children {
		procs = append(procs, c)
	}
	a.nt.mu.Unlock()
	if len(procs) != 2 {
		t.Fatalf("%d settings processes running, want 2", len(procs))
	}
	a.stopSettings()
	for _, c := range procs {
		if c.ProcessState == nil {
			t.Errorf("settings process %d still running after Quit", c.Process.Pid)
		}
	}
	if err := a.startSettings(""); err == nil {
		t.Error("a settings window started after the app began quitting")
	}
	a.stopSettings() // a second call (Close after Run) finds nothing to do
}

// A first start opens the settings window by itself, and the page shows one banner of one
// sentence, the engine's, which says where to enter what is missing: in the open settings
// window, then, once it closed with the settings incomplete, in Settings; reopening it
// brings the first wording back.
func TestFirstRunOpensTheSettingsWindowAndTheEnginesBannerFollowsIt(t *testing.T) {
	a := settingsApp(t)
	cur := a.cur.Load()
	var err error
	a.eng, err = engine.New(engine.Config{Page: a.link, Store: a.store.Engine(), LLM: notAsked, Logger: a.log, Settings: &cur.st, HasAPIKey: cur.hasKey})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = a.eng.Run(a.ctx) }()
	const closed = "Clanker is not set up yet: open Settings and enter the endpoint, an API key, a model and your name."
	const open = "To start, Clanker needs the endpoint, an API key, a model and your name: enter them in the settings window."
	testkit.Until(t, 20*time.Second, "the engine's banner at start", func() bool { return a.link.BannerText() == closed })
	a.firstRun()
	a.nt.mu.Lock()
	cmd := a.nt.settingsCmd
	a.nt.mu.Unlock()
	if cmd == nil {
		t.Fatal("first run did not open the settings window")
	}
	testkit.Until(t, 20*time.Second, "the banner to say the settings window is open", func() bool { return a.link.BannerText() == open })
	_ = cmd.Process.Kill() // the user closes the window
	testkit.Until(t, 20*time.Second, "the banner to say where Settings is once the window closed", func() bool { return a.link.BannerText() == closed })

	if err := a.OpenSettings(); err != nil {
		t.Fatal(err)
	}
	testkit.Until(t, 20*time.Second, "the banner after reopening Settings", func() bool { return a.link.BannerText() == open })
	a.stopSettings()
}

// notAsked is a model that is never asked: the engine here is unconfigured.
var notAsked = &enginefake.LLM{Respond: func(engine.LLMRequest) (engine.Reply, error) {
	return engine.Reply{}, errors.New("not asked")
}}
