package run

import (
	"context"
	"log/slog"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/menus"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/app/sqlite"
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

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20 s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
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

// The first-run banner says the settings window has opened only while it is open: once
// it closes with the settings incomplete the banner says where to find Settings, and
// reopening it brings the first text back.
func TestFirstRunBannerFollowsTheSettingsWindow(t *testing.T) {
	a := settingsApp(t)
	a.firstRun()
	if got := a.link.BannerText(); got != FirstRunBanner {
		t.Fatalf("banner at first run = %q, want the first-run text", got)
	}
	a.nt.mu.Lock()
	cmd := a.nt.settingsCmd
	a.nt.mu.Unlock()
	if cmd == nil {
		t.Fatal("first run did not open the settings window")
	}
	_ = cmd.Process.Kill() // the user closes the window
	waitFor(t, "the banner changes once the settings window closed", func() bool { return a.link.BannerText() == FirstRunClosedBanner })

	if err := a.OpenSettings(); err != nil {
		t.Fatal(err)
	}
	if got := a.link.BannerText(); got != FirstRunBanner {
		t.Fatalf("banner after reopening Settings = %q, want the first-run text again", got)
	}
	a.stopSettings()
}
