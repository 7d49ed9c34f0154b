package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// controlRoutes serve the JSON control API under /__sim/. Every handler changes the state under
// the lock and tells the connected pages what to render.
func (s *Server) controlRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /__sim/conversations", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		writeJSON(w, s.sidebarLocked())
	})
	mux.HandleFunc("POST /__sim/conversations", func(w http.ResponseWriter, r *http.Request) {
		var nc NewConversation
		if !readJSON(w, r, &nc) {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		c, err := s.createLocked(nc)
		if err != nil {
			http.Error(w, "create conversation: "+err.Error(), http.StatusBadRequest)
			return
		}
		s.publishLocked(event{Type: "sidebar", Sidebar: s.sidebarLocked()})
		writeJSON(w, *c)
	})
	mux.HandleFunc("GET /__sim/conversations/{id}/messages", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.conv(id) == nil {
			http.Error(w, fmt.Sprintf("no conversation %q", id), http.StatusNotFound)
			return
		}
		out := []Message{}
		for _, m := range s.msgs[id] {
			out = append(out, *m)
		}
		writeJSON(w, out)
	})
	mux.HandleFunc("POST /__sim/deliver", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Conversation string  `json:"conversation"`
			Message      Message `json:"message"`
		}
		if !readJSON(w, r, &req) {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		m, err := s.addLocked(req.Conversation, req.Message, false)
		if err != nil {
			http.Error(w, "deliver: "+err.Error(), http.StatusBadRequest)
			return
		}
		v := s.viewLocked(m)
		typ := "message"
		if req.Message.Reaction != nil {
			typ = "update"
		}
		s.publishLocked(event{Type: typ, Conversation: req.Conversation, Row: &v, Sidebar: s.sidebarLocked()})
		writeJSON(w, *m)
	})
	mux.HandleFunc("POST /__sim/draft", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Text string `json:"text"`
		}
		if !readJSON(w, r, &req) {
			return
		}
		s.pageCommand(w, event{Type: "draft", Text: req.Text})
	})
	mux.HandleFunc("POST /__sim/click", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Conversation string `json:"conversation"`
		}
		if !readJSON(w, r, &req) {
			return
		}
		s.mu.Lock()
		ok := s.conv(req.Conversation) != nil
		s.mu.Unlock()
		if !ok {
			http.Error(w, fmt.Sprintf("click: no conversation %q", req.Conversation), http.StatusNotFound)
			return
		}
		s.pageCommand(w, event{Type: "click", Conversation: req.Conversation})
	})
	mux.HandleFunc("POST /__sim/load-older", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Count int `json:"count"`
		}
		if !readJSON(w, r, &req) {
			return
		}
		if req.Count <= 0 || req.Count > 1000 {
			http.Error(w, fmt.Sprintf("load older: count %d must be 1..1000", req.Count), http.StatusBadRequest)
			return
		}
		s.pageCommand(w, event{Type: "loadOlder", Count: req.Count})
	})
	mux.HandleFunc("POST /__sim/swap-pending", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Mode SwapMode `json:"mode"`
		}
		if !readJSON(w, r, &req) {
			return
		}
		if req.Mode != SwapInPlace && req.Mode != SwapReplace {
			http.Error(w, fmt.Sprintf("swap pending: unknown mode %q (want %q or %q)", req.Mode, SwapInPlace, SwapReplace), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		swaps := []Swap{}
		for _, c := range s.convs {
			for _, m := range s.msgs[c.ID] {
				if m.Pending {
					swaps = append(swaps, s.swapLocked(m, req.Mode))
				}
			}
		}
		writeJSON(w, swaps)
	})
	mux.HandleFunc("GET /__sim/sent", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		writeJSON(w, append([]Send{}, s.sent...))
	})
	mux.HandleFunc("GET /__sim/rejected", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		writeJSON(w, append([]Send{}, s.rejected...))
	})
	mux.HandleFunc("POST /__sim/reset", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.resetLocked()
		s.publishLocked(event{Type: "reload"})
		s.log.Info("simulator reset")
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /__sim/variant", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Variants []Variant `json:"variants"`
		}
		if !readJSON(w, r, &req) {
			return
		}
		for _, v := range req.Variants {
			if !knownVariants[v] {
				http.Error(w, fmt.Sprintf("set variant: unknown variant %q", v), http.StatusBadRequest)
				return
			}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.variants = slices.Clone(req.Variants)
		s.signedIn = !s.hasVariant(VariantSignedOut)
		s.signInOrigin = ""
		s.publishLocked(event{Type: "reload"})
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /__sim/status", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		st := Status{SignedIn: s.signedIn, Variants: s.variantsOrEmpty(), OpenConversation: s.openConv,
			SignInOrigin: s.signInOrigin, Pages: s.hub.count(), Pending: []string{}}
		for _, c := range s.convs {
			for _, m := range s.msgs[c.ID] {
				if m.Pending {
					st.Pending = append(st.Pending, m.ID)
				}
			}
		}
		writeJSON(w, st)
	})
}

// pageCommand forwards a command the page itself carries out (typing, clicking, loading older rows).
func (s *Server) pageCommand(w http.ResponseWriter, e event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hub.count() == 0 {
		http.Error(w, e.Type+": no page is connected to carry it out", http.StatusConflict)
		return
	}
	s.publishLocked(e)
	w.WriteHeader(http.StatusNoContent)
}

// Control is a typed client of the JSON control API. It works against any simulator URL,
// in this process or another (make sim).
type Control struct {
	base string
	hc   *http.Client
}

// NewControl returns a client for the simulator at base (e.g. "http://127.0.0.1:8377").
func NewControl(base string) *Control {
	return &Control{base: strings.TrimRight(base, "/"), hc: &http.Client{Timeout: 10 * time.Second}}
}

func (c *Control) do(method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("sim control %s: encode request: %w", path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		return fmt.Errorf("sim control %s: %w", path, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("sim control %s: %w", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("sim control %s: read response: %w", path, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("sim control %s: %s: %s", path, resp.Status, strings.TrimSpace(string(b)))
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("sim control %s: decode response: %w", path, err)
		}
	}
	return nil
}

// CreateConversation adds a conversation to the sidebar and returns it with its new id.
func (c *Control) CreateConversation(nc NewConversation) (Conversation, error) {
	var out Conversation
	err := c.do("POST", "/__sim/conversations", nc, &out)
	return out, err
}

// Conversations lists the conversations in sidebar order, with snippets.
func (c *Control) Conversations() ([]Conversation, error) {
	var out []Conversation
	err := c.do("GET", "/__sim/conversations", nil, &out)
	return out, err
}

// ConversationByName returns the first conversation with that sidebar name.
func (c *Control) ConversationByName(name string) (Conversation, error) {
	cs, err := c.Conversations()
	if err != nil {
		return Conversation{}, err
	}
	for _, cv := range cs {
		if cv.Name == name {
			return cv, nil
		}
	}
	return Conversation{}, fmt.Errorf("sim control: no conversation named %q", name)
}

// Messages returns every stored message of a conversation, oldest first (not only the DOM window).
func (c *Control) Messages(conv string) ([]Message, error) {
	var out []Message
	err := c.do("GET", "/__sim/conversations/"+conv+"/messages", nil, &out)
	return out, err
}

// Deliver adds a remote participant's message (text, image, attachment, tombstone, reply) to a
// conversation, or applies m.Reaction to an existing message, and returns the stored message.
func (c *Control) Deliver(conv string, m Message) (Message, error) {
	var out Message
	err := c.do("POST", "/__sim/deliver", map[string]any{"conversation": conv, "message": m}, &out)
	return out, err
}

// UserTypesDraft makes the page put text in the compose box as if the user had typed it.
func (c *Control) UserTypesDraft(text string) error {
	return c.do("POST", "/__sim/draft", map[string]string{"text": text}, nil)
}

// ClickConversation makes the page click that conversation's sidebar link, as the user would.
func (c *Control) ClickConversation(conv string) error {
	return c.do("POST", "/__sim/click", map[string]string{"conversation": conv}, nil)
}

// LoadOlder makes the page insert up to n older rows at the top of the open conversation.
func (c *Control) LoadOlder(n int) error {
	return c.do("POST", "/__sim/load-older", map[string]int{"count": n}, nil)
}

// SwapPendingIDs gives every pending tmp_ message its permanent id now, shown the given way.
func (c *Control) SwapPendingIDs(mode SwapMode) ([]Swap, error) {
	var out []Swap
	err := c.do("POST", "/__sim/swap-pending", map[string]SwapMode{"mode": mode}, &out)
	return out, err
}

// Sent is the log of sends the page accepted (trusted input), oldest first.
func (c *Control) Sent() ([]Send, error) {
	var out []Send
	err := c.do("GET", "/__sim/sent", nil, &out)
	return out, err
}

// Rejected is the log of untrusted send attempts the page ignored, oldest first.
func (c *Control) Rejected() ([]Send, error) {
	var out []Send
	err := c.do("GET", "/__sim/rejected", nil, &out)
	return out, err
}

// Reset restores the start state (clock, ids, demo content, logs, variants) and re-renders pages.
func (c *Control) Reset() error { return c.do("POST", "/__sim/reset", nil, nil) }

// SetVariant replaces the active page variants (none = the normal page) and re-renders pages.
func (c *Control) SetVariant(vs ...Variant) error {
	if vs == nil {
		vs = []Variant{}
	}
	return c.do("POST", "/__sim/variant", map[string][]Variant{"variants": vs}, nil)
}

// Status reports sign-in, variants, the open conversation, connected pages and pending ids.
func (c *Control) Status() (Status, error) {
	var out Status
	err := c.do("GET", "/__sim/status", nil, &out)
	return out, err
}
