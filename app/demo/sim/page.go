package sim

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// pageRoutes are the endpoints the simulator's own page script talks to. Go code changes the
// state through the Server's methods instead; the page uses these.
func (s *Server) pageRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /__sim/page/state", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		held := s.held
		s.mu.Unlock()
		if held != nil {
			select {
			case <-held:
			case <-r.Context().Done():
				return
			}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		writeJSON(w, map[string]any{
			"signedIn":       s.signedIn,
			"variants":       s.variantsOrEmpty(),
			"accountsOrigin": s.accURL,
			"window":         s.opts.Window,
			"slowDelayMs":    s.opts.SlowDelay.Milliseconds(),
			"media":          []string{MediaPhoto, MediaChart, MediaGIF},
			"sidebar":        s.pageSidebarLocked(),
			"seed":           s.opts.Seed,
			"lingerMs":       s.opts.LingerMS,
			"truth":          s.opts.Truth,
		})
	})
	mux.HandleFunc("GET /__sim/page/messages", func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("conversation")
		s.mu.Lock()
		defer s.mu.Unlock()
		c := s.conv(id)
		if c == nil {
			http.Error(w, fmt.Sprintf("no conversation %q", id), http.StatusNotFound)
			return
		}
		writeJSON(w, map[string]any{"conversation": *c, "rows": s.rowsLocked(id)})
	})
	mux.HandleFunc("GET /__sim/page/events", s.serveEvents)
	mux.HandleFunc("GET /__sim/page/search", s.pageSearch)
	mux.HandleFunc("POST /__sim/page/truth", s.pageTruth)
	mux.HandleFunc("POST /__sim/page/send", s.pageSend)
	mux.HandleFunc("POST /__sim/page/open", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Conversation string `json:"conversation"`
		}
		if !readJSON(w, r, &req) {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.openConv = req.Conversation
		if c := s.conv(req.Conversation); c != nil && c.Unread {
			c.Unread = false
			s.publishLocked(event{Type: "sidebar", Sidebar: s.pageSidebarLocked()})
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /__sim/page/notifications", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Permission string `json:"permission"`
			Tried      int    `json:"tried"`
		}
		if !readJSON(w, r, &req) {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.log.Debug("the page reported its web-notification permission", "permission", req.Permission, "tried", req.Tried)
		s.notePermission = req.Permission
		s.notesTried = max(s.notesTried, req.Tried)
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /__sim/page/signin", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Origin  string `json:"origin"`
			Account string `json:"account"`
		}
		if !readJSON(w, r, &req) {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if req.Origin != s.accURL {
			http.Error(w, fmt.Sprintf("sign-in message came from %q, not the accounts origin", req.Origin), http.StatusForbidden)
			return
		}
		s.signedIn = true
		s.signInOrigin = req.Origin
		s.log.Info("signed in through the accounts popup", "origin", req.Origin)
		w.WriteHeader(http.StatusNoContent)
	})
}

func (s *Server) variantsOrEmpty() []Variant {
	if s.variants == nil {
		return []Variant{}
	}
	return s.variants
}

// pageSend records a send attempt reported by the page. Only attempts the page saw as trusted
// (event.isTrusted) become messages; the others are logged as rejected and change nothing.
func (s *Server) pageSend(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Conversation string `json:"conversation"`
		Text         string `json:"text"`
		Trusted      bool   `json:"trusted"`
		Via          string `json:"via"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	if req.Via != "enter" && req.Via != "click" {
		http.Error(w, fmt.Sprintf("unknown send path %q (want enter or click)", req.Via), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := Send{Conversation: req.Conversation, Text: req.Text, Trusted: req.Trusted, Via: req.Via,
		At: s.now, Wall: time.Now()}
	if !req.Trusted {
		s.rejected = append(s.rejected, rec)
		s.log.Info("rejected an untrusted send", "conversation", req.Conversation, "via", req.Via)
		writeJSON(w, rec)
		return
	}
	text := strings.TrimSpace(req.Text)
	if text == "" {
		http.Error(w, "nothing to send: the compose box is empty", http.StatusBadRequest)
		return
	}
	c := s.conv(req.Conversation)
	if c == nil {
		http.Error(w, fmt.Sprintf("no conversation %q", req.Conversation), http.StatusNotFound)
		return
	}
	status := "SMS"
	if c.RCS {
		status = ""
	}
	m, err := s.addLocked(req.Conversation, Message{Text: text, Status: status}, true)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	m.ID = s.ids.pending()
	m.Pending = true
	rec.Text, rec.MessageID, rec.At = text, m.ID, m.Time
	s.sent = append(s.sent, rec)
	v := s.viewLocked(m)
	s.publishLocked(event{Type: "message", Conversation: m.Conversation, Row: &v, Sidebar: s.pageSidebarLocked()})
	s.confirmLaterLocked(m.Conversation, m.ID)
	s.log.Info("page sent a message", "conversation", req.Conversation, "via", req.Via, "id", m.ID)
	writeJSON(w, rec)
}

// serveEvents streams page events (Server-Sent Events). The subscriber is registered before the
// response starts, so a page that fetches its state after the stream opens misses nothing.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	ch := s.hub.subscribe()
	if ch == nil {
		http.Error(w, "simulator closed", http.StatusServiceUnavailable)
		return
	}
	defer s.hub.unsubscribe(ch)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, ": connected\n\n")
	fl.Flush()
	ping := time.NewTicker(15 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case b, ok := <-ch:
			if !ok {
				return
			}
			fmt.Fprintf(w, "data: %s\n\n", b)
			fl.Flush()
		case <-ping.C:
			fmt.Fprint(w, ": ping\n\n")
			fl.Flush()
		}
	}
}

// hub fans page events out to every connected page.
type hub struct {
	mu     sync.Mutex
	subs   map[chan []byte]bool
	closed bool
}

func newHub() *hub { return &hub{subs: map[chan []byte]bool{}} }

func (h *hub) subscribe() chan []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	ch := make(chan []byte, 1024)
	h.subs[ch] = true
	return ch
}

func (h *hub) unsubscribe(ch chan []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs[ch] {
		delete(h.subs, ch)
		close(ch)
	}
}

func (h *hub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// publish never blocks: a page that stopped reading loses its stream (and reconnects).
func (h *hub) publish(b []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- b:
		default:
			delete(h.subs, ch)
			close(ch)
		}
	}
}

func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for ch := range h.subs {
		delete(h.subs, ch)
		close(ch)
	}
}
