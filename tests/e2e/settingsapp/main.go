// Command settingsapp runs the settings window process as the app does (run.SettingsWindow,
// with the key kept in the database) on a data directory, for the e2e test that it starts
// and renders.
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/clanker-desktop/clanker/app/run"
)

func main() {
	dataDir := flag.String("data", "", "data directory")
	readyFile := flag.String("ready-file", "", "file written once the window is up")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	err := run.SettingsWindow(run.SettingsWindowOptions{
		DataDir:    *dataDir,
		NoKeychain: true,
		Logger:     log,
		OnReady: func() {
			if *readyFile != "" {
				_ = os.WriteFile(*readyFile, []byte("up"), 0o600)
			}
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "settingsapp:", err)
		os.Exit(1)
	}
}
