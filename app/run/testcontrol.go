//go:build testcontrol

package run

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"sort"
	"time"
)

// The test control is how the full-app tests look inside the running app and act as
// the tray would (hide, show, set a mode) without a desktop session. Only test builds
// carry it: this file needs the testcontrol build tag, which the full-app tests set when
// they build the app, and release builds get testcontrol_off.go instead. It starts only
// when --test-control names a file; it listens on 127.0.0.1, and every request must
// carry the random token written (0600) to that file, so other local users and web pages
// cannot use it. It exposes no settings and no key.

type testStatus struct {
	PageState     string         `json:"pageState"`
	Current       string         `json:"current"`
	Banner        string         `json:"banner"`
	Mode          string         `json:"mode"`
	Hidden        bool           `json:"hidden"`
	Popups        int            `json:"popups"`
	Configured    bool           `json:"configured"`
	InFlight      bool           `json:"inFlight"`
	Sending       bool           `json:"sending"`
	QueuedSends   int            `json:"queuedSends"`
	Visiting      string         `json:"visiting"`
	EngineFGDraft bool           `json:"draft"`
	Commands      map[string]int `json:"commands"`
	Pending       bool           `json:"pending"`
	// Inactive is the inactive-conversation policy the app runs with now, so a test can
	// wait for a saved change to be applied before it relies on it.
	Inactive string `json:"inactive"`
	// Notify lists the notifications the applied settings ask for: errors, incoming,
	// hide-content.
	Notify []string `json:"notify"`
	// Unread is the tray's count of messages that came while the window was hidden.
	Unread int `json:"unread"`
}

func (a *App) startTestControl(file string) error {
	var tok [16]byte
	if _, err := rand.Read(tok[:]); err != nil {
		return err
	}
	token := hex.EncodeToString(tok[:])
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("test control: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		st := a.Status()
		ts := testStatus{PageState: a.link.PageState(), Current: a.link.Current(), Banner: a.link.BannerText(),
			Mode: string(st.Mode), Hidden: a.hidden.Load(), Popups: a.shell.OpenPopups(), Configured: len(st.Missing) == 0, Commands: a.link.Sent(),
			Inactive: string(a.cur.Load().st.InactiveMode), Unread: st.Unread, Notify: []string{}}
		ns := a.cur.Load().st.Notifications
		for name, on := range map[string]bool{"errors": ns.Errors, "incoming": ns.IncomingWhileHidden, "hide-content": ns.HideContent} {
			if on {
				ts.Notify = append(ts.Notify, name)
			}
		}
		sort.Strings(ts.Notify)
		if snap, err := a.snapshot(); err == nil {
			ts.InFlight = snap.InFlight != nil
			ts.Sending = snap.Sending
			ts.QueuedSends = snap.QueuedSends
			ts.Visiting = string(snap.Visiting)
			if snap.Foreground != nil {
				ts.EngineFGDraft = snap.Foreground.Draft
				ts.Pending = snap.Foreground.Pending
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(ts)
	})
	mux.HandleFunc("POST /hide", func(w http.ResponseWriter, r *http.Request) { answer(w, a.HideWindow()) })
	mux.HandleFunc("POST /reload", func(w http.ResponseWriter, r *http.Request) { answer(w, a.shell.Reload(r.Context())) })
	mux.HandleFunc("POST /show", func(w http.ResponseWriter, r *http.Request) { answer(w, a.ShowWindow()) })
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if subtle.ConstantTimeCompare([]byte(r.Header.Get("X-Clanker-Token")), []byte(token)) != 1 {
				http.Error(w, "wrong or missing token", http.StatusForbidden)
				return
			}
			mux.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: 5 * time.Second,
	}
	go func() { _ = srv.Serve(ln) }()
	a.closers = append(a.closers, func() { _ = srv.Close() })
	go func() {
		<-a.ctx.Done()
		_ = srv.Close()
	}()
	url := "http://" + ln.Addr().String() + " " + token
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, []byte(url), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

func answer(w http.ResponseWriter, err error) {
	if err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
