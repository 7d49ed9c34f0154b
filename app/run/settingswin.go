package run

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/clanker-desktop/clanker/app/desktop/session"
	"github.com/clanker-desktop/clanker/app/desktop/settingswin"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/llm"
	"github.com/clanker-desktop/clanker/app/sqlite"
)

// SettingsWindowOptions configure `clanker settings`, the settings window's own process.
type SettingsWindowOptions struct {
	// DataDir is the data directory as DataDir resolved it (the demo's with --demo).
	DataDir string
	// NoKeychain keeps the API key in the database, as the app itself was told.
	NoKeychain bool
	// Diagnostics is the snapshot the main app passed for the Diagnostics view.
	Diagnostics string
	// ShowDiagnostics opens the window on the Diagnostics view.
	ShowDiagnostics bool
	// Demo says these are the demo's settings (`clanker demo`): with no endpoint stored,
	// the window says the demo model answers instead of "not set up".
	Demo bool
	// Version is this build's version, which the update check compares releases with.
	Version string
	// OnReady is called once the window is up (tests write a ready file).
	OnReady func()
	Logger  *slog.Logger
}

// SettingsWindow runs the settings window on the app's store and blocks until it is
// closed. The store is opened here with the same keychain choice as the app, so a key
// saved in the window lands where the app reads it, and Test connection goes through the
// app's own model client (llm.Probe): the window itself opens nothing.
func SettingsWindow(o SettingsWindowOptions) error {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	if o.DataDir == "" {
		return fmt.Errorf("settings window: no data directory given")
	}
	// The app repairs a damaged database; the settings window, its own process, never does.
	s, err := OpenStoreNoRepair(o.DataDir, o.NoKeychain, log)
	if err != nil {
		return err
	}
	defer s.Close()
	var updates func(engine.Updates) settingswin.UpdateView
	if !o.Demo {
		updates = func(u engine.Updates) settingswin.UpdateView { return UpdateView(o.DataDir, o.Version, u) }
	}
	return settingswin.RunSettingsWindow(settingswin.SettingsOptions{
		Store:           s,
		Probe:           llm.Probe{Logger: log.With("component", "settings")},
		Diagnostics:     o.Diagnostics,
		ShowDiagnostics: o.ShowDiagnostics,
		Demo:            o.Demo,
		Memory: sqlite.MemoryEditor{Store: s, AppRunning: func() bool {
			return session.InstanceRunning(o.DataDir)
		}},
		KeyNote: func() string { return KeyNote(context.Background(), s) },
		Updates: updates,
		OnReady: o.OnReady,
		Logger:  log,
	})
}
