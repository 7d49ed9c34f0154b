package settingswin

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/clanker-desktop/clanker/app/desktop/internal/wailslog"
	"github.com/clanker-desktop/clanker/app/sqlite"
	settingsui "github.com/clanker-desktop/clanker/frontend/settings"
	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

// SettingsOptions configure the settings window process (`clanker settings`).
type SettingsOptions struct {
	// DataDir is the app's data directory; the store is opened there unless Store is set.
	DataDir string
	// Store, when set, is used instead of opening DataDir (the caller closes it).
	Store SettingsStore
	// Diagnostics is a text for the Diagnostics view (the main app passes the snapshot
	// it rendered when the user chose Diagnostics > Show ... state).
	Diagnostics string
	// ShowDiagnostics opens the window on the Diagnostics view.
	ShowDiagnostics bool
	// OnReady is called once the window is up (tests write a ready file).
	OnReady func()
	Logger  *slog.Logger
}

// RunSettingsWindow opens the settings window and blocks until it is closed. It runs in
// its own process, apart from the Messages window, so the page there can never reach
// the bound service. Saves go to the store; the running app watches it and applies them.
func RunSettingsWindow(o SettingsOptions) error {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	store := o.Store
	if store == nil {
		if o.DataDir == "" {
			return errors.New("settings window: no data directory given")
		}
		st, err := sqlite.Open(o.DataDir)
		if err != nil {
			return fmt.Errorf("settings window: open the store: %w", err)
		}
		st.Log = log
		defer st.Close()
		store = st
	}
	svc := &SettingsService{Store: store, Diagnostics: o.Diagnostics, StartOnDiagnostics: o.ShowDiagnostics,
		Log: log.With("component", "settings")}
	assets, err := fs.Sub(settingsui.FS, ".")
	if err != nil {
		return err
	}
	err = wails.Run(&options.App{
		Title:       "Clanker settings",
		Width:       720,
		Height:      860,
		MinWidth:    480,
		MinHeight:   400,
		AssetServer: &assetserver.Options{Assets: assets},
		Bind:        []any{svc},
		Logger:      wailslog.New(log),
		LogLevel:    3,
		Linux: &linux.Options{
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
			ProgramName:      "clanker",
		},
		OnStartup: func(ctx context.Context) {
			if o.OnReady != nil {
				go o.OnReady()
			}
		},
	})
	if err != nil {
		return fmt.Errorf("settings window: %w", err)
	}
	return nil
}
