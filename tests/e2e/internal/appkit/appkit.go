// Package appkit holds what the e2e test apps (menuapp, trayapp, shellapp) share: a
// menus.Controller that records every call and reports the Status the test sets, and the
// loopback control API each app is driven through.
package appkit

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"

	"github.com/clanker-desktop/clanker/app/desktop/menus"
	"github.com/clanker-desktop/clanker/app/desktop/window"
	"github.com/clanker-desktop/clanker/app/engine"
)

// Fail reports a setup failure of the app named name and exits with code, which the test
// sees in the app's output.
func Fail(name string, code int, err error) {
	fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
	os.Exit(code)
}

// Listen opens the loopback listener of the app's control API (exit code 2 when it cannot).
func Listen(name string) net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		Fail(name, 2, err)
	}
	return ln
}

// ServeControl serves h on ln and then writes the control URL to readyFile (when set). The
// apps call it from the shell's OnReady, so a test starts driving only once the window is up.
func ServeControl(ln net.Listener, h http.Handler, readyFile string) {
	go http.Serve(ln, h) //nolint:errcheck // ends with the process
	if readyFile != "" {
		_ = os.WriteFile(readyFile, []byte("http://"+ln.Addr().String()), 0o600)
	}
}

// Controller is a menus.Controller that records every call (SetMode, Quit, ...) and reports
// the Status the test set. Show, Hide and Quit act on Shell, which the app sets once the shell
// exists.
type Controller struct {
	Shell *window.Shell

	mu      sync.Mutex
	status  menus.Status
	calls   []string
	shown   []string // texts handed to ShowText
	confirm bool     // the answer the confirmation "dialog" gives
	asked   []string
	hooks   []func(menus.Status)
}

// NewController starts with Alice's conversation (c-1) on screen, Deactivated.
func NewController() *Controller {
	return &Controller{status: menus.Status{ConversationID: "c-1", ConversationName: "Alice", Mode: engine.ModeDeactivated}}
}

var _ menus.Controller = (*Controller)(nil)

func (f *Controller) record(c string) {
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()
}

// Status implements menus.Controller: the status the test set, with the window's real
// visibility.
func (f *Controller) Status() menus.Status {
	f.mu.Lock()
	st := f.status
	f.mu.Unlock()
	if f.Shell != nil {
		st.WindowVisible = f.Shell.Visible()
	}
	return st
}

// OnStatus implements menus.Controller.
func (f *Controller) OnStatus(fn func(menus.Status)) func() {
	f.mu.Lock()
	f.hooks = append(f.hooks, fn)
	f.mu.Unlock()
	return func() {}
}

func (f *Controller) publish() {
	f.mu.Lock()
	hooks := append([]func(menus.Status){}, f.hooks...)
	f.mu.Unlock()
	st := f.Status()
	for _, fn := range hooks {
		fn(st)
	}
}

// SetMode implements menus.Controller; the new mode is reported from then on.
func (f *Controller) SetMode(m engine.Mode) error {
	f.record("SetMode " + string(m))
	f.mu.Lock()
	f.status.Mode = m
	f.mu.Unlock()
	f.publish()
	return nil
}

// DeactivateAll implements menus.Controller.
func (f *Controller) DeactivateAll() error { f.record("DeactivateAll"); return nil }

// PurgeConversation implements menus.Controller.
func (f *Controller) PurgeConversation() error { f.record("PurgeConversation"); return nil }

// PurgeAll implements menus.Controller.
func (f *Controller) PurgeAll() error { f.record("PurgeAll"); return nil }

// Diagnostics implements menus.Controller with a fixed text that says which kind it is.
func (f *Controller) Diagnostics(sanitised bool) (string, error) {
	f.record(fmt.Sprintf("Diagnostics sanitised=%v", sanitised))
	if sanitised {
		return "conversation c-1: mode active (sanitised)", nil
	}
	return "conversation c-1 (Alice): mode active", nil
}

// OpenSettings implements menus.Controller.
func (f *Controller) OpenSettings() error { f.record("OpenSettings"); return nil }

// OpenUpdate implements menus.Controller: it records the page it would open.
func (f *Controller) OpenUpdate() error {
	f.record("OpenUpdate " + f.Status().Update.URL)
	return nil
}

// ShowWindow implements menus.Controller.
func (f *Controller) ShowWindow() error {
	f.record("ShowWindow")
	err := f.Shell.Show()
	f.publish()
	return err
}

// HideWindow implements menus.Controller.
func (f *Controller) HideWindow() error {
	f.record("HideWindow")
	err := f.Shell.Hide()
	f.publish()
	return err
}

// Quit implements menus.Controller.
func (f *Controller) Quit() error { f.record("Quit"); return f.Shell.Quit() }

// Confirm stands in for the confirmation dialog: it records the title and gives the answer
// the test set with POST /confirm.
func (f *Controller) Confirm(title, _ string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, title)
	return f.confirm
}

// ShowText stands in for the text window: it records what would be shown.
func (f *Controller) ShowText(title, text string) {
	f.mu.Lock()
	f.shown = append(f.shown, title+"\n"+text)
	f.mu.Unlock()
}

// Routes adds the controller's part of the control API to mux: GET /state (calls, shown
// texts, asked confirmations, visibility, pid), POST /status (a menus.Status to report from
// now on; with ?draw=only, a status handed to the menus to draw while Status keeps
// answering the previous one) and POST /confirm?answer=yes|no.
func (f *Controller) Routes(mux *http.ServeMux) {
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
		if r.URL.Query().Get("draw") == "only" {
			// The menus are told st while the controller keeps answering the status it
			// had: a listener's copy that is out of date by the time anyone reads it
			// again, as the app's can be for a moment while the engine catches up.
			f.mu.Lock()
			hooks := append([]func(menus.Status){}, f.hooks...)
			f.mu.Unlock()
			for _, fn := range hooks {
				fn(st)
			}
			w.WriteHeader(http.StatusNoContent)
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
			http.Error(w, "answer must be yes or no", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.confirm = a == "yes"
		f.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
}
