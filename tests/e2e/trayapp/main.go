// Command trayapp runs the desktop Shell with the Clanker menu (tray) over a fake
// Controller, for the e2e tray tests: the test drives the tray over D-Bus, sets the
// status the fake reports through a loopback control API, and reads back which
// Controller methods the clicks called.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"

	"github.com/clanker-desktop/clanker/app/desktop/menus"
	"github.com/clanker-desktop/clanker/app/desktop/session"
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
	dataDir := flag.String("data", "", "data directory for the single-instance claim (none when empty)")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))

	fake := &fakeController{status: menus.Status{
		ConversationID: "c-1", ConversationName: "Alice", Mode: engine.ModeDeactivated,
	}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "trayapp:", err)
		os.Exit(2)
	}
	shell, err := window.New(window.Options{
		TargetURL:   *target,
		Title:       "Clanker tray test",
		StartHidden: *hidden,
		HideOnClose: true,
		Logger:      log,
		Menus: &menus.MenuOptions{
			Controller: fake,
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
			go http.Serve(ln, control(fake)) //nolint:errcheck // ends with the process
			if *readyFile != "" {
				_ = os.WriteFile(*readyFile, []byte("http://"+ln.Addr().String()), 0o600)
			}
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "trayapp:", err)
		os.Exit(2)
	}
	fake.shell = shell
	if *dataDir != "" {
		inst, err := session.AcquireInstance(*dataDir, func() { _ = fake.ShowWindow() }, log)
		if errors.Is(err, session.ErrAlreadyRunning) {
			log.Info("trayapp: already running; asked the first instance to come forward")
			return
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "trayapp:", err)
			os.Exit(2)
		}
		defer inst.Close()
	}
	if err := shell.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "trayapp:", err)
		os.Exit(1)
	}
	log.Info("trayapp: clean exit")
}

func control(f *fakeController) http.Handler {
	mux := http.NewServeMux()
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
