package window

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/internal/native"
	"github.com/clanker-desktop/clanker/frontend/bootstrap"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// The page in the web view: what it posts to Go (bridge and bootstrap events), the
// scripts Go runs in it, and the trusted native input into it.

// onDomReady re-runs the user script when a load finished without it (the guard makes it
// a no-op when the document-start copy ran).
func (s *Shell) onDomReady(ctx context.Context) {
	if s.script != "" {
		runtime.WindowExecJS(ctx, s.script)
	}
}

// onPageEvent hands the payload over as bytes. The bridge sends the JSON text as a
// string (exact bytes); anything else is re-encoded so the receiver still gets JSON.
func (s *Shell) onPageEvent(data ...any) {
	if s.opts.OnEvent == nil || len(data) == 0 {
		return
	}
	var raw []byte
	switch v := data[0].(type) {
	case string:
		raw = []byte(v)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			s.log.Warn("page event dropped: cannot re-encode", "err", err)
			return
		}
		raw = b
	}
	s.opts.OnEvent(raw)
}

func (s *Shell) onBootEvent(data ...any) {
	if len(data) == 0 {
		return
	}
	var st struct {
		State  string `json:"state"`
		Reason string `json:"reason"`
	}
	if v, ok := data[0].(string); ok && len(v) < 4096 && json.Unmarshal([]byte(v), &st) == nil {
		s.log.Info("bootstrap page", "state", st.State, "reason", st.Reason)
	}
}

// serveBootConfig answers the bootstrap page. It waits for the native setup so the
// target never loads before the user agent and the document-start script are in place.
func (s *Shell) serveBootConfig(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != bootstrap.ConfigPath {
		http.NotFound(w, r)
		return
	}
	select {
	case <-s.ready:
	case <-time.After(20 * time.Second):
	case <-r.Context().Done():
		return
	}
	retry := int(s.opts.OfflineRetry / time.Second)
	if s.opts.OfflineRetry < 0 {
		retry = 0
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"target":       s.opts.TargetURL,
		"title":        s.opts.Title,
		"retrySeconds": retry,
	})
}

// ExecJS runs JavaScript in whatever page the main window shows. It is fire-and-forget:
// results come back as page events. Text that carries data must be built so no value can
// end its string literal (page.EncodeCommand does this for bridge commands).
func (s *Shell) ExecJS(js string) error {
	ctx, err := s.wailsCtx()
	if err != nil {
		return err
	}
	runtime.WindowExecJS(ctx, js)
	return nil
}

// Input is the trusted native input of the main window.
func (s *Shell) Input() NativeInput { return s.plat.Input() }

// DroppedPageMessages is how many messages pages posted to Wails that the platform's
// guard kept from it (the Messages page may post only the bridge's events).
func (s *Shell) DroppedPageMessages() uint64 { return native.DroppedPageMessages() }
