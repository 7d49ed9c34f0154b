// Command shellapp runs the desktop Shell on its own, for the e2e tests: it shows a test
// page, records what the Shell reports, and lets the test drive the Shell over a small
// loopback HTTP control API. It is the platform layer without Clanker's logic.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/window"
	"github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/tests/e2e/internal/appkit"
)

type recorder struct {
	mu       sync.Mutex
	events   []string
	loads    []window.LoadEvent
	popups   []string
	geometry []window.Geometry
	external []string
}

func (r *recorder) add(fn func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fn()
}

func main() {
	target := flag.String("target", "", "page to show")
	scriptFile := flag.String("script", "", "file with the user script")
	readyFile := flag.String("ready-file", "", "file to write the control URL to once the shell is ready")
	hidden := flag.Bool("hidden", false, "start hidden")
	retry := flag.Duration("offline-retry", -1, "offline page automatic retry (negative: off)")
	geo := flag.String("geometry", "", "start geometry x,y,w,h")
	flag.Parse()

	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	var script string
	if *scriptFile != "" {
		b, err := os.ReadFile(*scriptFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "shellapp:", err)
			os.Exit(2)
		}
		script = string(b)
	}
	var g *window.Geometry
	if *geo != "" {
		var v window.Geometry
		if _, err := fmt.Sscanf(*geo, "%d,%d,%d,%d", &v.X, &v.Y, &v.Width, &v.Height); err != nil {
			fmt.Fprintln(os.Stderr, "shellapp: -geometry:", err)
			os.Exit(2)
		}
		g = &v
	}

	rec := &recorder{}
	var shell *window.Shell
	ln := appkit.Listen("shellapp")
	shell, err := window.New(window.Options{
		TargetURL:    *target,
		Title:        "Clanker shell test",
		Geometry:     g,
		StartHidden:  *hidden,
		UserScript:   script,
		OfflineRetry: *retry,
		Logger:       log,
		OpenExternal: func(url string) {
			rec.add(func() { rec.external = append(rec.external, url) })
		},
		OnEvent: func(raw []byte) {
			rec.add(func() { rec.events = append(rec.events, string(raw)) })
		},
		OnLoad: func(e window.LoadEvent) {
			rec.add(func() { rec.loads = append(rec.loads, e) })
		},
		OnPopup: func(e window.PopupEvent) {
			rec.add(func() { rec.popups = append(rec.popups, e.String()) })
		},
		OnGeometry: func(g window.Geometry) {
			rec.add(func() { rec.geometry = append(rec.geometry, g) })
		},
		OnReady: func() { appkit.ServeControl(ln, control(shell, rec), *readyFile) },
	})
	if err != nil {
		appkit.Fail("shellapp", 2, err)
	}
	if err := shell.Run(); err != nil {
		appkit.Fail("shellapp", 1, err)
	}
}

func control(shell *window.Shell, rec *recorder) http.Handler {
	mux := http.NewServeMux()
	body := func(r *http.Request) string {
		b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		return string(b)
	}
	reply := func(w http.ResponseWriter, err error) {
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
	ctx := func(r *http.Request) (context.Context, context.CancelFunc) {
		return context.WithTimeout(r.Context(), 10*time.Second)
	}
	mux.HandleFunc("GET /state", func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		setup := ""
		if err := shell.SetupError(); err != nil {
			setup = err.Error()
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"events":     rec.events,
			"loads":      rec.loads,
			"popups":     rec.popups,
			"openPopups": shell.OpenPopups(),
			"geometry":   rec.geometry,
			"external":   rec.external,
			"lastGeo":    shell.Geometry(),
			"setupError": setup,
			"pid":        os.Getpid(),
		})
	})
	mux.HandleFunc("POST /exec", func(w http.ResponseWriter, r *http.Request) { reply(w, shell.ExecJS(body(r))) })
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		// The text travels as the app sends it: inside a bridge command built by
		// page.EncodeCommand, run with ExecJS; the test page's stand-in bridge echoes it.
		js, err := page.EncodeCommand("echo1", page.InsertText{ConversationID: "echo", Text: body(r)})
		if err == nil {
			err = shell.ExecJS(js)
		}
		reply(w, err)
	})
	mux.HandleFunc("POST /enter", func(w http.ResponseWriter, r *http.Request) {
		c, cancel := ctx(r)
		defer cancel()
		reply(w, shell.Input().PressEnter(c))
	})
	mux.HandleFunc("POST /reload", func(w http.ResponseWriter, r *http.Request) {
		c, cancel := ctx(r)
		defer cancel()
		reply(w, shell.Reload(c))
	})
	mux.HandleFunc("POST /hide", func(w http.ResponseWriter, r *http.Request) { reply(w, shell.Hide()) })
	mux.HandleFunc("POST /show", func(w http.ResponseWriter, r *http.Request) { reply(w, shell.Show()) })
	mux.HandleFunc("POST /quit", func(w http.ResponseWriter, r *http.Request) { reply(w, shell.Quit()) })
	return mux
}
