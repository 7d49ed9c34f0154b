// Command menuapp runs the desktop Shell with the Clanker menus but no tray, over a fake
// Controller, for the e2e tests of the app menu and the page's right-click menu: the
// test presses keys and clicks with xdotool, sets the status the fake reports through a
// loopback control API, and reads back which Controller methods ran, the zoom level and
// the native menus as GTK shows them.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/menus"
	"github.com/clanker-desktop/clanker/app/desktop/window"
	"github.com/clanker-desktop/clanker/tests/e2e/internal/appkit"
)

func main() {
	target := flag.String("target", "", "page to show")
	readyFile := flag.String("ready-file", "", "file to write the control URL to once ready")
	hidden := flag.Bool("hidden", false, "start hidden")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))

	fake := appkit.NewController()
	ln := appkit.Listen("menuapp")
	var shell *window.Shell
	shell, err := window.New(window.Options{
		TargetURL:   *target,
		Title:       "Clanker menu test",
		Version:     "v9.9.9-menutest",
		StartHidden: *hidden,
		HideOnClose: true,
		Logger:      log,
		Menus:       &menus.MenuOptions{Controller: fake, NoTray: true, Confirm: fake.Confirm, ShowText: fake.ShowText},
		OnReady:     func() { appkit.ServeControl(ln, control(fake, shell), *readyFile) },
	})
	if err != nil {
		appkit.Fail("menuapp", 2, err)
	}
	fake.Shell = shell
	if err := shell.Run(); err != nil {
		appkit.Fail("menuapp", 1, err)
	}
	log.Info("menuapp: clean exit")
}

// control adds the menu test's own routes to the controller's: the native menus as GTK shows
// them, the zoom level, and activating a right-click menu item.
func control(f *appkit.Controller, shell *window.Shell) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /menu", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		text, err := shell.NativeMenuText(ctx, r.URL.Query().Get("popup") == "1")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = io.WriteString(w, text)
	})
	mux.HandleFunc("GET /zoom", func(w http.ResponseWriter, r *http.Request) {
		z, err := shell.Zoom(r.Context())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprintf(w, "%.2f", z)
	})
	mux.HandleFunc("POST /zoom", func(w http.ResponseWriter, r *http.Request) {
		z, err := strconv.ParseFloat(r.URL.Query().Get("level"), 64)
		if err == nil {
			err = shell.SetZoom(z)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /activate", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if err := shell.ActivateContextMenuItem(r.Context(), q.Get("name"), q.Get("target")); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	f.Routes(mux)
	return mux
}
