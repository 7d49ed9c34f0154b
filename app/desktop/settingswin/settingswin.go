package settingswin

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"sync/atomic"

	"github.com/clanker-desktop/clanker/app/desktop/internal/appearance"
	"github.com/clanker-desktop/clanker/app/desktop/internal/native"
	"github.com/clanker-desktop/clanker/app/desktop/internal/wailslog"
	"github.com/clanker-desktop/clanker/app/engine"
	settingsui "github.com/clanker-desktop/clanker/frontend/settings"
	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// SettingsOptions configure the settings window process (`clanker settings`). The window
// opens nothing itself: app/run passes the store (opened with the app's keychain choice)
// and the model client's probe.
type SettingsOptions struct {
	// Store is the app's store; the caller opens and closes it.
	Store SettingsStore
	// Probe answers Test connection.
	Probe engine.ConnectionProbe
	// Diagnostics is a text for the Diagnostics view (the main app passes the snapshot
	// it rendered when the user chose Diagnostics > Show ... state).
	Diagnostics string
	// ShowDiagnostics opens the window on the Diagnostics view.
	ShowDiagnostics bool
	// Demo says these are the demo's settings (see SettingsService.Demo).
	Demo bool
	// Memory carries out memory edits (see SettingsService.Memory).
	Memory MemoryEditor
	// KeyNote says why the API key sits in the database file (see SettingsService.KeyNote).
	KeyNote func() string
	// Updates says what the update check found (see SettingsService.Updates).
	Updates func(engine.Updates) UpdateView
	// OnReady is called once the window is up (tests write a ready file).
	OnReady func()
	Logger  *slog.Logger
}

// RunSettingsWindow opens the settings window and blocks until it is closed. It runs in
// its own process, apart from the Messages window, so the page there can never reach
// the bound service. Saves go to the store; the running app watches it and applies them.
func RunSettingsWindow(o SettingsOptions) (err error) {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	if o.Store == nil || o.Probe == nil {
		return errors.New("settings window: no store or no connection probe given")
	}
	svc := &SettingsService{Store: o.Store, Probe: o.Probe, Diagnostics: o.Diagnostics, StartOnDiagnostics: o.ShowDiagnostics,
		Demo: o.Demo, Memory: o.Memory, KeyNote: o.KeyNote, Updates: o.Updates, Log: log.With("component", "settings")}
	// Links open in the user's browser through Wails' runtime, once the window has its
	// context; a click before that is told so.
	var wailsCtx atomic.Pointer[context.Context]
	svc.OpenURL = func(link string) error {
		ctx := wailsCtx.Load()
		if ctx == nil {
			return errors.New("the window is not ready to open links yet")
		}
		runtime.BrowserOpenURL(*ctx, link)
		return nil
	}
	assets, err := fs.Sub(settingsui.FS, ".")
	if err != nil {
		return err
	}
	defer wailslog.CatchDisplayFailure(&err)
	native.UseCPURendering(log)
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
			wailsCtx.Store(&ctx)
			// Light or dark as the desktop prefers, like the main window (its own process).
			go appearance.Follow(ctx, log)
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
