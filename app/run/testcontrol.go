//go:build testcontrol

package run

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/clanker-desktop/clanker/app/run/testctl"
)

// The test control is how the full-app tests look inside the running app and act as
// the tray would (hide, show, set a mode) without a desktop session. Only test builds
// carry it: this file needs the testcontrol build tag, which the full-app tests set when
// they build the app, and release builds get testcontrol_off.go instead. It starts only
// when --test-control names a file; it listens on 127.0.0.1, and every request must
// carry the random token written (0600) to that file, so other local users and web pages
// cannot use it. It exposes no settings and no key.

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
		ts := testctl.Status{PageState: a.link.PageState(), Current: a.link.Current(), Banner: a.link.BannerText(),
			Mode: string(st.Mode), Hidden: a.hidden.Load(), Popups: a.shell.OpenPopups(), Configured: len(st.Missing) == 0, Commands: a.link.Sent(),
			Inactive: string(a.cur.Load().st.InactiveMode), Unread: st.Unread, Waiting: st.WaitingForDraft, Notify: []string{}, Focused: a.focused.Load(), Hint: a.link.HintShown(), Sidebar: a.link.SidebarSize()}
		rel := a.idle.Released()
		ts.MemoryReleases, ts.MemoryReleaseDue = rel.Count, rel.Due
		ts.DeepMemoryReleases, ts.DeepMemoryReleaseDue = rel.Deep, rel.DeepDue
		ts.PageProcessReleases = a.shell.WebProcessReleases()
		ts.PageMessagesDropped = a.shell.DroppedPageMessages()
		if sp, err := a.shell.Spelling(); err == nil {
			ts.Spelling, ts.SpellLanguages = sp.On, sp.Languages
		}
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
				ts.Draft = snap.Foreground.Draft
				ts.Pending = snap.Foreground.Pending
				if !snap.Foreground.Switching {
					ts.EngineOn = string(snap.Foreground.ID)
				}
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(ts)
	})
	// In the demo the simulator runs inside the app, so the tests read its group, the
	// group's rows and its send logs (what the page accepted as trusted input, and what it refused) here.
	mux.HandleFunc("GET /demo", func(w http.ResponseWriter, r *http.Request) {
		if a.sim == nil {
			http.Error(w, "not a demo: the app runs without the built-in simulator", http.StatusNotFound)
			return
		}
		group := a.sim.ScriptGroup()
		msgs, err := a.sim.Messages(group)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"group": group, "messages": msgs, "sent": a.sim.Sent(), "rejected": a.sim.Rejected()})
	})
	mux.HandleFunc("POST /hide", func(w http.ResponseWriter, r *http.Request) { answer(w, a.HideWindow()) })
	// The body runs as script in the page the window shows, as if the page ran it: how
	// the tests make the Messages page post what a hostile page could.
	mux.HandleFunc("POST /page-script", func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		if err == nil {
			err = a.shell.ExecJS(string(b))
		}
		answer(w, err)
	})
	mux.HandleFunc("POST /reload", func(w http.ResponseWriter, r *http.Request) { answer(w, a.shell.Reload(r.Context())) })
	mux.HandleFunc("POST /show", func(w http.ResponseWriter, r *http.Request) { answer(w, a.ShowWindow()) })
	// The window's native menus as GTK shows them (the menu bar, or with ?popup=1 the menus
	// open on screen), so a test that drives them with real keys can see where it is.
	mux.HandleFunc("GET /menu", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		text, err := a.shell.NativeMenuText(ctx, r.URL.Query().Get("popup") == "1")
		if err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, text)
	})
	// The memory benchmark compares like with like: the Go heap is collected and its free
	// pages handed back to the OS before each sample, so a figure is what the app keeps,
	// not how far the collector happened to lag behind.
	mux.HandleFunc("POST /gc", func(w http.ResponseWriter, r *http.Request) {
		debug.FreeOSMemory() // runs a full collection first
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]uint64{
			"heapInuse": ms.HeapInuse, "heapSys": ms.HeapSys, "heapReleased": ms.HeapReleased,
			"stackInuse": ms.StackInuse, "sys": ms.Sys, "goroutines": uint64(runtime.NumGoroutine()),
		})
	})
	// A test checks what a deep idle release hands back without waiting minutes for one:
	// this runs the release the idle timer would (deep=1: the deep one) and returns when
	// the app's side is done; the page's process answers on its own (PageProcessReleases).
	mux.HandleFunc("POST /release-memory", func(w http.ResponseWriter, r *http.Request) {
		a.shell.ReleaseMemory(r.URL.Query().Get("deep") == "1")
		w.WriteHeader(http.StatusNoContent)
	})
	// The soak benchmark follows the Go side over time without disturbing it: the figures as
	// they stand, no collection run for the reading.
	mux.HandleFunc("GET /memstats", func(w http.ResponseWriter, r *http.Request) {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]uint64{
			"heapInuse": ms.HeapInuse, "heapAlloc": ms.HeapAlloc, "heapSys": ms.HeapSys, "heapReleased": ms.HeapReleased,
			"stackInuse": ms.StackInuse, "sys": ms.Sys, "numGC": uint64(ms.NumGC), "goroutines": uint64(runtime.NumGoroutine()),
		})
	})
	rects := &rectQueries{waiting: map[string]chan []byte{}}
	base := "http://" + ln.Addr().String()
	mux.HandleFunc("GET /rect", func(w http.ResponseWriter, r *http.Request) { rects.query(w, r, a, base) })
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// The page posts a measured rectangle back here. It cannot know the token;
			// the one-time random name of the query stands in for it.
			if r.Method == http.MethodPost && len(r.URL.Path) > len(rectResultPath) && r.URL.Path[:len(rectResultPath)] == rectResultPath {
				rects.deliver(w, r, r.URL.Path[len(rectResultPath):])
				return
			}
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

// rectResultPath is where the page posts a measured rectangle, followed by the query's
// one-time name.
const rectResultPath = "/rect-result/"

// rectQueries lets a full-app test find where an element of the page is, so it can
// click it with real X input. WindowExecJS cannot return a value, so the measuring script
// posts its answer back to the test control under a one-time random name that only
// the waiting query knows.
type rectQueries struct {
	mu      sync.Mutex
	waiting map[string]chan []byte
}

// query measures the first element matching ?selector= with getBoundingClientRect
// (CSS pixels relative to the page's viewport) and answers with it and the viewport's
// size, or found=false when nothing matches. Elements inside the bridge's closed shadow
// root cannot be reached this way.
func (q *rectQueries) query(w http.ResponseWriter, r *http.Request, a *App, base string) {
	sel := r.URL.Query().Get("selector")
	if sel == "" {
		http.Error(w, "give the element's CSS selector as ?selector=", http.StatusBadRequest)
		return
	}
	var n [16]byte
	if _, err := rand.Read(n[:]); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	name := hex.EncodeToString(n[:])
	ch := make(chan []byte, 1)
	q.mu.Lock()
	q.waiting[name] = ch
	q.mu.Unlock()
	defer func() {
		q.mu.Lock()
		delete(q.waiting, name)
		q.mu.Unlock()
	}()
	// json.Marshal gives string literals no value can break out of (it escapes <, >, &
	// and the JavaScript line separators).
	selJS, _ := json.Marshal(sel)
	urlJS, _ := json.Marshal(base + rectResultPath + name)
	js := `(function(){try{var e=document.querySelector(` + string(selJS) + `),r=e?e.getBoundingClientRect():null;` +
		`fetch(` + string(urlJS) + `,{method:'POST',mode:'no-cors',body:JSON.stringify({found:!!e,` +
		`x:r?r.left:0,y:r?r.top:0,width:r?r.width:0,height:r?r.height:0,` +
		`innerWidth:window.innerWidth,innerHeight:window.innerHeight})});}catch(_){}})();`
	if a.shell == nil {
		http.Error(w, "the window is not up yet; try again", http.StatusConflict)
		return
	}
	if err := a.shell.ExecJS(js); err != nil {
		http.Error(w, "run the measuring script: "+err.Error(), http.StatusConflict)
		return
	}
	select {
	case b := <-ch:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	case <-time.After(10 * time.Second):
		http.Error(w, "the page did not answer the measurement within 10 s", http.StatusGatewayTimeout)
	case <-r.Context().Done():
	}
}

// deliver hands a measurement the page posted to the query waiting under name.
func (q *rectQueries) deliver(w http.ResponseWriter, r *http.Request, name string) {
	b, err := io.ReadAll(io.LimitReader(r.Body, 4096))
	if err != nil || !json.Valid(b) {
		http.Error(w, "bad measurement", http.StatusBadRequest)
		return
	}
	q.mu.Lock()
	ch := q.waiting[name]
	q.mu.Unlock()
	if ch == nil {
		http.Error(w, "no such query", http.StatusNotFound)
		return
	}
	select {
	case ch <- b:
	default:
	}
	w.WriteHeader(http.StatusNoContent)
}
