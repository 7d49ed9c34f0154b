// Command trayapp runs the desktop Shell with the Clanker menu (tray) over a fake
// Controller, for the e2e tray tests: the test drives the tray over D-Bus, sets the
// status the fake reports through a loopback control API, and reads back which
// Controller methods the clicks called.
package main

import (
	"errors"
	"flag"
	"log/slog"
	"net/http"
	"os"

	"github.com/clanker-desktop/clanker/app/desktop/menus"
	"github.com/clanker-desktop/clanker/app/desktop/session"
	"github.com/clanker-desktop/clanker/app/desktop/window"
	"github.com/clanker-desktop/clanker/tests/e2e/internal/appkit"
)

func main() {
	target := flag.String("target", "", "page to show")
	readyFile := flag.String("ready-file", "", "file to write the control URL to once ready")
	hidden := flag.Bool("hidden", false, "start hidden")
	dataDir := flag.String("data", "", "data directory for the single-instance claim (none when empty)")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))

	fake := appkit.NewController()
	ln := appkit.Listen("trayapp")
	mux := http.NewServeMux()
	fake.Routes(mux)
	shell, err := window.New(window.Options{
		TargetURL:   *target,
		Title:       "Clanker tray test",
		StartHidden: *hidden,
		HideOnClose: true,
		Logger:      log,
		Menus:       &menus.MenuOptions{Controller: fake, Confirm: fake.Confirm, ShowText: fake.ShowText},
		OnReady:     func() { appkit.ServeControl(ln, mux, *readyFile) },
	})
	if err != nil {
		appkit.Fail("trayapp", 2, err)
	}
	fake.Shell = shell
	if *dataDir != "" {
		inst, err := session.AcquireInstance(*dataDir, func() { _ = fake.ShowWindow() }, log)
		if errors.Is(err, session.ErrAlreadyRunning) {
			log.Info("trayapp: already running; asked the first instance to come forward")
			return
		}
		if err != nil {
			appkit.Fail("trayapp", 2, err)
		}
		defer inst.Close()
	}
	if err := shell.Run(); err != nil {
		appkit.Fail("trayapp", 1, err)
	}
	log.Info("trayapp: clean exit")
}
