// Command menuapp runs the desktop Shell with the Clanker menus but no tray, over a fake
// Controller, for the e2e tests of the app menu and the page's right-click menu: the
// test presses keys and clicks with xdotool, sets the status the fake reports through a
// loopback control API, and reads back which Controller methods ran, the zoom level and
// the native menus as GTK shows them.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/menus"
	"github.com/clanker-desktop/clanker/app/desktop/window"
	"github.com/clanker-desktop/clanker/app/engine"
)

// fakeController records every call and reports the status the test set.
type fakeController struct {
	shell *window.Shell

	mu      sync.Mutex
	status  menus.Status
	calls   []string
	shown   []string // texts handed to ShowText
	confirm bool     // the answer the confirmation "dialog" gives
	asked   []string
	hooks   []func(menus.Status)
}

func (f *fakeController) record(c string) {
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()
}

func (f *fakeController) Status() menus.Status {
	f.mu.Lock()
	st := f.status
	f.mu.Unlock()
	if f.shell != nil {
		st.WindowVisible = f.shell.Visible()
	}
	return st
}

func (f *fakeController) OnStatus(fn func(menus.Status)) func() {
	f.mu.Lock()
	f.hooks = append(f.hooks, fn)
	f.mu.Unlock()
	return func() {}
}

func (f *fakeController) publish() {
	f.mu.Lock()
	hooks := append([]func(menus.Status){}, f.hooks...)
	f.mu.Unlock()
	st := f.Status()
	for _, fn := range hooks {
		fn(st)
	}
}

func (f *fakeController) SetMode(m engine.Mode) error {
	f.record("SetMode " + string(m))
	f.mu.Lock()
	f.status.Mode = m
	f.mu.Unlock()
	f.publish()
	return nil
}
func (f *fakeController) DeactivateAll() error     { f.record("DeactivateAll"); return nil }
func (f *fakeController) PurgeConversation() error { f.record("PurgeConversation"); return nil }
func (f *fakeController) PurgeAll() error          { f.record("PurgeAll"); return nil }
func (f *fakeController) Diagnostics(sanitised bool) (string, error) {
	f.record(fmt.Sprintf("Diagnostics sanitised=%v", sanitised))
	if sanitised {
		return "conversation c-1: mode active (sanitised)", nil
	}
	return "conversation c-1 (Alice): mode active", nil
}
func (f *fakeController) OpenSettings() error { f.record("OpenSettings"); return nil }
func (f *fakeController) ShowWindow() error {
	f.record("ShowWindow")
	err := f.shell.Show()
	f.publish()
	return err
}
func (f *fakeController) HideWindow() error {
	f.record("HideWindow")
	err := f.shell.Hide()
	f.publish()
	return err
}
func (f *fakeController) Quit() error { f.record("Quit"); return f.shell.Quit() }

func main() {
	target := flag.String("target", "", "page to show")
	readyFile := flag.String("ready-file", "", "file to write the control URL to once ready")
	hidden := flag.Bool("hidden", false, "start hidden")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))

	fake := &fakeController{status: menus.Status{
		ConversationID: "c-1", ConversationName: "Alice", Mode: engine.ModeDeactivated,
	}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "menuapp:", err)
		os.Exit(2)
	}
	var shell *window.Shell
	shell, err = window.New(window.Options{
		TargetURL:   *target,
		Title:       "Clanker menu test",
		Version:     "v9.9.9-menutest",
		StartHidden: *hidden,
		HideOnClose: true,
		Logger:      log,
		Menus: &menus.MenuOptions{
			Controller: fake,
			NoTray:     true,
			Confirm: func(title, msg string) bool {
				fake.mu.Lock()
				defer fake.mu.Unlock()
				fake.asked = append(fake.asked, title)
				return fake.confirm
			},
			ShowText: func(title, text string) {
				fake.mu.Lock()
				fake.shown = append(fake.shown, title+"\n"+text)
				fake.mu.Unlock()
			},
		},
		OnReady: func() {
			go http.Serve(ln, control(fake, shell)) //nolint:errcheck // ends with the process
			if *readyFile != "" {
				_ = os.WriteFile(*readyFile, []byte("http://"+ln.Addr().String()), 0o600)
			}
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "menuapp:", err)
		os.Exit(2)
	}
	fake.shell = shell
	if err := shell.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "menuapp:", err)
		os.Exit(1)
	}
	log.Info("menuapp: clean exit")
}

func control(f *fakeController, shell *window.Shell) http.Handler {
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
	mux.HandleFunc("GET /state", func(w http.ResponseWriter, r *http.Request) {
		st := f.Status()
		f.mu.Lock()
		defer f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"calls": f.calls, "shown": f.shown, "asked": f.asked,
			"visible": st.WindowVisible, "pid": os.Getpid(),
		})
	})
	mux.HandleFunc("POST /status", func(w http.ResponseWriter, r *http.Request) {
		var st menus.Status
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&st); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.status = st
		f.mu.Unlock()
		f.publish()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /confirm", func(w http.ResponseWriter, r *http.Request) {
		a := r.URL.Query().Get("answer")
		if a != "yes" && a != "no" {
			http.Error(w, errors.New("answer must be yes or no").Error(), http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.confirm = a == "yes"
		f.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}
