package simctl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/clanker-desktop/clanker/app/demo/sim"
)

// Server is a simulator that also serves the JSON control API.
type Server struct{ *sim.Server }

// Start starts a simulator (see sim.Start) with the control API mounted on its app origin.
// It returns once the simulator's media are drawn: a page draws the app only after it has
// them, and drawing the 12-megapixel photo takes tens of seconds under the race detector on
// a loaded machine, past the bridge's 10 s threshold for an unrecognised page. Tests then see
// the page's own timing; a test that wants a page slower than any threshold holds it
// (Server.HoldPages).
func Start(opts sim.Options) (*Server, error) {
	opts.Mount = Routes
	s, err := sim.Start(opts)
	if err != nil {
		return nil, err
	}
	srv := &Server{s}
	if _, err := srv.Control().Media(sim.MediaPhoto); err != nil {
		s.Close()
		return nil, err
	}
	return srv, nil
}

// Control returns a typed client of this simulator's control API.
func (s *Server) Control() *Control { return NewControl(s.URL()) }

// Routes serves the JSON control API under /__sim/ on mux, each route one call of the
// simulator's Go API. It fits sim.Options.Mount.
func Routes(s *sim.Server, mux *http.ServeMux) {
	mux.HandleFunc("GET /__sim/conversations", route(func(_ *http.Request, _ struct{}) (any, error) {
		return s.Conversations(), nil
	}))
	mux.HandleFunc("POST /__sim/conversations", route(func(_ *http.Request, nc sim.NewConversation) (any, error) {
		return s.CreateConversation(nc)
	}))
	mux.HandleFunc("GET /__sim/conversations/{id}/messages", route(func(r *http.Request, _ struct{}) (any, error) {
		return s.Messages(r.PathValue("id"))
	}))
	mux.HandleFunc("POST /__sim/deliver", route(func(_ *http.Request, in struct {
		Conversation string      `json:"conversation"`
		Message      sim.Message `json:"message"`
	}) (any, error) {
		return s.Deliver(in.Conversation, in.Message)
	}))
	mux.HandleFunc("POST /__sim/draft", route(func(_ *http.Request, in struct {
		Text string `json:"text"`
	}) (any, error) {
		return nil, s.UserTypesDraft(in.Text)
	}))
	mux.HandleFunc("POST /__sim/click", route(func(_ *http.Request, in struct {
		Conversation string `json:"conversation"`
	}) (any, error) {
		return nil, s.ClickConversation(in.Conversation)
	}))
	mux.HandleFunc("POST /__sim/load-older", route(func(_ *http.Request, in struct {
		Count int `json:"count"`
	}) (any, error) {
		return nil, s.LoadOlder(in.Count)
	}))
	mux.HandleFunc("POST /__sim/behave", route(func(_ *http.Request, b sim.Behaviour) (any, error) {
		return nil, s.Behave(b)
	}))
	mux.HandleFunc("GET /__sim/truth", route(func(_ *http.Request, _ struct{}) (any, error) {
		return s.Truth(), nil
	}))
	mux.HandleFunc("POST /__sim/swap-pending", route(func(_ *http.Request, in struct {
		Mode sim.SwapMode `json:"mode"`
	}) (any, error) {
		return s.SwapPendingIDs(in.Mode)
	}))
	mux.HandleFunc("GET /__sim/sent", route(func(_ *http.Request, _ struct{}) (any, error) {
		return s.Sent(), nil
	}))
	mux.HandleFunc("GET /__sim/rejected", route(func(_ *http.Request, _ struct{}) (any, error) {
		return s.Rejected(), nil
	}))
	mux.HandleFunc("POST /__sim/reset", route(func(_ *http.Request, _ struct{}) (any, error) {
		s.Reset()
		return nil, nil
	}))
	mux.HandleFunc("POST /__sim/variant", route(func(_ *http.Request, in struct {
		Variants []sim.Variant `json:"variants"`
	}) (any, error) {
		return nil, s.SetVariant(in.Variants...)
	}))
	mux.HandleFunc("POST /__sim/linger", route(func(_ *http.Request, in struct {
		MS int `json:"ms"`
	}) (any, error) {
		return nil, s.SetLinger(in.MS)
	}))
	mux.HandleFunc("POST /__sim/hold", route(func(_ *http.Request, _ struct{}) (any, error) {
		s.HoldPages()
		return nil, nil
	}))
	mux.HandleFunc("POST /__sim/release", route(func(_ *http.Request, _ struct{}) (any, error) {
		s.ReleasePages()
		return nil, nil
	}))
	mux.HandleFunc("GET /__sim/status", route(func(_ *http.Request, _ struct{}) (any, error) {
		return s.Status(), nil
	}))
}

// route adapts one control call to HTTP. A POST body is decoded strictly into In (unknown
// fields and trailing data are errors; an empty body is the zero In). The result is written
// as JSON, or 204 when there is none; an error is a 4xx with the error's sentence: 404 for
// an unknown conversation, 409 when no page can carry out the command, 400 otherwise.
func route[In any](call func(r *http.Request, in In) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in In
		if r.Method == http.MethodPost {
			dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
			dec.DisallowUnknownFields()
			err := dec.Decode(&in)
			switch {
			case errors.Is(err, io.EOF):
			case err != nil:
				http.Error(w, "bad JSON body: "+err.Error(), http.StatusBadRequest)
				return
			case dec.More():
				http.Error(w, "bad JSON body: trailing data after the object", http.StatusBadRequest)
				return
			}
		}
		out, err := call(r, in)
		var unknown sim.UnknownConversationError
		switch {
		case errors.As(err, &unknown):
			http.Error(w, err.Error(), http.StatusNotFound)
		case errors.Is(err, sim.ErrNoPage):
			http.Error(w, err.Error(), http.StatusConflict)
		case err != nil:
			http.Error(w, err.Error(), http.StatusBadRequest)
		case out == nil:
			w.WriteHeader(http.StatusNoContent)
		default:
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "no-store")
			_ = json.NewEncoder(w).Encode(out)
		}
	}
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
func (c *Control) CreateConversation(nc sim.NewConversation) (sim.Conversation, error) {
	var out sim.Conversation
	err := c.do("POST", "/__sim/conversations", nc, &out)
	return out, err
}

// Conversations lists the conversations in sidebar order, with snippets.
func (c *Control) Conversations() ([]sim.Conversation, error) {
	var out []sim.Conversation
	err := c.do("GET", "/__sim/conversations", nil, &out)
	return out, err
}

// ConversationByName returns the first conversation with that sidebar name.
func (c *Control) ConversationByName(name string) (sim.Conversation, error) {
	cs, err := c.Conversations()
	if err != nil {
		return sim.Conversation{}, err
	}
	for _, cv := range cs {
		if cv.Name == name {
			return cv, nil
		}
	}
	return sim.Conversation{}, fmt.Errorf("sim control: no conversation named %q", name)
}

// Messages returns every stored message of a conversation, oldest first (not only the DOM window).
func (c *Control) Messages(conv string) ([]sim.Message, error) {
	var out []sim.Message
	err := c.do("GET", "/__sim/conversations/"+conv+"/messages", nil, &out)
	return out, err
}

// Deliver adds a remote participant's message (text, image, attachment, tombstone, reply) to a
// conversation, or applies m.Reaction to an existing message, and returns the stored message.
func (c *Control) Deliver(conv string, m sim.Message) (sim.Message, error) {
	var out sim.Message
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

// Behave makes the page carry out one behaviour (see sim.Behaviour).
func (c *Control) Behave(b sim.Behaviour) error {
	return c.do("POST", "/__sim/behave", b, nil)
}

// Truth returns the page's ground-truth records so far (sim.Options.Truth).
func (c *Control) Truth() ([]sim.TruthRecord, error) {
	var out []sim.TruthRecord
	err := c.do("GET", "/__sim/truth", nil, &out)
	return out, err
}

// SwapPendingIDs gives every pending tmp_ message its permanent id now, shown the given way.
func (c *Control) SwapPendingIDs(mode sim.SwapMode) ([]sim.Swap, error) {
	var out []sim.Swap
	err := c.do("POST", "/__sim/swap-pending", map[string]sim.SwapMode{"mode": mode}, &out)
	return out, err
}

// Sent is the log of sends the page accepted (trusted input), oldest first.
func (c *Control) Sent() ([]sim.Send, error) {
	var out []sim.Send
	err := c.do("GET", "/__sim/sent", nil, &out)
	return out, err
}

// Rejected is the log of untrusted send attempts the page ignored, oldest first.
func (c *Control) Rejected() ([]sim.Send, error) {
	var out []sim.Send
	err := c.do("GET", "/__sim/rejected", nil, &out)
	return out, err
}

// Media returns the bytes of one of the simulator's images (sim.MediaPhoto, MediaChart,
// MediaGIF) as the page loads them, from GET /__sim/media/{name}. The first call draws them,
// which takes tens of seconds for the 12-megapixel photo under the race detector on a loaded
// machine: the wait is not the control API's 10 s.
func (c *Control) Media(name string) ([]byte, error) {
	resp, err := (&http.Client{Timeout: 5 * time.Minute}).Get(c.base + "/__sim/media/" + name)
	if err != nil {
		return nil, fmt.Errorf("sim media %s: %w", name, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("sim media %s: %w", name, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("sim media %s: %s: %s", name, resp.Status, strings.TrimSpace(string(b)))
	}
	return b, nil
}

// Reset restores the start state (clock, ids, demo content, logs, variants) and re-renders pages.
func (c *Control) Reset() error { return c.do("POST", "/__sim/reset", nil, nil) }

// SetVariant replaces the active page variants (none = the normal page) and re-renders pages.
func (c *Control) SetVariant(vs ...sim.Variant) error {
	if vs == nil {
		vs = []sim.Variant{}
	}
	return c.do("POST", "/__sim/variant", map[string][]sim.Variant{"variants": vs}, nil)
}

// SetLinger sets how long the linger variant keeps old panes, in milliseconds, and
// re-renders pages.
func (c *Control) SetLinger(ms int) error {
	return c.do("POST", "/__sim/linger", map[string]int{"ms": ms}, nil)
}

// HoldPages keeps pages loaded from now on blank (no app drawn) until ReleasePages.
func (c *Control) HoldPages() error { return c.do("POST", "/__sim/hold", nil, nil) }

// ReleasePages lets held pages draw the app.
func (c *Control) ReleasePages() error { return c.do("POST", "/__sim/release", nil, nil) }

// Status reports sign-in, variants, the open conversation, connected pages and pending ids.
func (c *Control) Status() (sim.Status, error) {
	var out sim.Status
	err := c.do("GET", "/__sim/status", nil, &out)
	return out, err
}
