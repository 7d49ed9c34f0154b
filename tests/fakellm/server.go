package fakellm

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/clanker-desktop/clanker/app/demo/model"
)

// MaxRequestBody caps how much of a request body is read; a bigger body is rejected with 413 so a
// runaway client cannot exhaust the test process.
const MaxRequestBody = 64 << 20

// Config configures a Server. The zero Config is ready to use.
type Config struct {
	// BasePath is an extra prefix the endpoints are served under, e.g. "/api/openai". The paths
	// under "/v1" and at the root ("/chat/completions") are always served too.
	BasePath string
	// APIKey, when set, makes every request without "Authorization: Bearer <APIKey>" fail with an
	// OpenAI-shaped 401 (recorded, and no scripted reply is used up).
	APIKey string
	// Models is what /models lists (default: DefaultModels).
	Models []string
	// Default answers generation requests when the queue is empty (default: Demo()).
	Default *Reply
}

// DefaultModels is the model list served when Config.Models is empty.
var DefaultModels = []string{"fake-model", "fake-model-mini", "clanker-demo"}

// Server is a fake OpenAI-compatible server on 127.0.0.1. All methods are safe for concurrent use.
type Server struct {
	cfg  Config
	ts   *httptest.Server
	done chan struct{} // closed by Close to release hung handlers

	mu        sync.Mutex
	queue     []Reply // generation endpoints (chat completions, responses)
	modelsQ   []Reply // the models endpoint
	def       Reply
	requests  []Request
	inFlight  int
	changed   chan struct{} // closed and replaced on every recording change
	closeOnce sync.Once
}

// New creates a server that is not listening yet; call Start.
func New(cfg Config) *Server {
	s := &Server{cfg: cfg, done: make(chan struct{}), changed: make(chan struct{}), def: Demo()}
	if cfg.Default != nil {
		s.def = *cfg.Default
	}
	if len(s.cfg.Models) == 0 {
		s.cfg.Models = DefaultModels
	}
	s.cfg.BasePath = "/" + strings.Trim(cfg.BasePath, "/")
	if s.cfg.BasePath == "/" {
		s.cfg.BasePath = ""
	}
	return s
}

// Start listens on a free loopback port and returns the base URL to give an OpenAI client
// ("http://127.0.0.1:<port>/v1", or with BasePath instead of /v1 when one is configured).
func (s *Server) Start() string {
	s.ts = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	return s.BaseURL()
}

// StartNew is New(cfg) followed by Start, for the common case.
func StartNew(cfg Config) (*Server, string) {
	s := New(cfg)
	return s, s.Start()
}

// BaseURL returns the base URL for clients (see Start).
func (s *Server) BaseURL() string {
	if s.cfg.BasePath != "" {
		return s.ts.URL + s.cfg.BasePath
	}
	return s.ts.URL + "/v1"
}

// RootURL returns the server's origin, "http://127.0.0.1:<port>".
func (s *Server) RootURL() string { return s.ts.URL }

// Close releases every waiting handler and shuts the server down. It is safe to call twice.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		if s.ts != nil {
			s.ts.CloseClientConnections()
			s.ts.Close()
		}
	})
}

// Enqueue appends scripted replies for the generation endpoints (chat completions and
// responses); each request takes the next one, first in first out.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// EnqueueModels appends scripted replies for /models. Only the failure fields (Status, Error,
// Header, Latency, Hang, Drip, Drop, RawBody) matter there; the listing comes from Config.Models.
func (s *Server) EnqueueModels(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.modelsQ = append(s.modelsQ, replies...)
}

// SetDefault changes the reply used when the generation queue is empty.
func (s *Server) SetDefault(r Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.def = r
}

// Pending returns how many scripted generation replies have not been used yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Requests returns a copy of every request recorded so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		out[i] = r.clone()
	}
	return out
}

// Reset forgets recorded requests and scripted replies and restores the configured default.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests, s.queue, s.modelsQ = nil, nil, nil
	s.def = Demo()
	if s.cfg.Default != nil {
		s.def = *s.cfg.Default
	}
	s.notifyLocked()
}

// WaitForRequests waits until at least n requests have arrived and returns them, or returns an
// error saying how many arrived before timeout.
func (s *Server) WaitForRequests(n int, timeout time.Duration) ([]Request, error) {
	if err := s.waitFor(timeout, func() bool { return len(s.requests) >= n }); err != nil {
		got := len(s.Requests())
		return s.Requests(), fmt.Errorf("fakellm: waited %v for %d requests, got %d", timeout, n, got)
	}
	return s.Requests(), nil
}

// WaitIdle waits until no request is being handled (every recorded request has an Outcome). It
// lets a test prove the server stopped waiting once the client gave up.
func (s *Server) WaitIdle(timeout time.Duration) error {
	if err := s.waitFor(timeout, func() bool { return s.inFlight == 0 }); err != nil {
		return fmt.Errorf("fakellm: still handling requests after %v", timeout)
	}
	return nil
}

func (s *Server) waitFor(timeout time.Duration, cond func() bool) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		ok, ch := cond(), s.changed
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-deadline.C:
			return errors.New("timeout")
		}
	}
}

func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// route maps a request path to an endpoint, accepting /v1/X, BasePath/X and /X.
func (s *Server) route(path string) (Endpoint, bool) {
	rest := path
	switch {
	case s.cfg.BasePath != "" && strings.HasPrefix(path, s.cfg.BasePath+"/"):
		rest = strings.TrimPrefix(path, s.cfg.BasePath)
	case strings.HasPrefix(path, "/v1/"):
		rest = strings.TrimPrefix(path, "/v1")
	}
	switch strings.TrimSuffix(rest, "/") {
	case "/chat/completions":
		return EndpointChat, true
	case "/responses":
		return EndpointResponses, true
	case "/models":
		return EndpointModels, true
	}
	return "", false
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	ep, ok := s.route(r.URL.Path)
	if !ok {
		writeRaw(w, http.StatusNotFound, "application/json", APIError{Shape: ShapeOpenAI,
			Type: "invalid_request_error", Code: "unknown_url",
			Message: "fakellm: no endpoint at " + r.Method + " " + r.URL.Path}.Body())
		return
	}
	wantMethod := http.MethodPost
	if ep == EndpointModels {
		wantMethod = http.MethodGet
	}

	body, readErr := io.ReadAll(io.LimitReader(r.Body, MaxRequestBody+1))
	rec := Request{
		Received: time.Now(),
		Method:   r.Method,
		Path:     r.URL.Path,
		Endpoint: ep,
		Header:   r.Header.Clone(),
		Body:     body,
	}
	var reject *APIError
	status := 0
	switch {
	case readErr != nil:
		status, reject = http.StatusBadRequest, &APIError{Type: "invalid_request_error", Message: "fakellm: reading request body: " + readErr.Error()}
	case len(body) > MaxRequestBody:
		status, reject = http.StatusRequestEntityTooLarge, &APIError{Type: "invalid_request_error", Message: fmt.Sprintf("fakellm: request body over %d bytes", MaxRequestBody)}
	case r.Method != wantMethod:
		status, reject = http.StatusMethodNotAllowed, &APIError{Type: "invalid_request_error", Message: "fakellm: " + string(ep) + " wants " + wantMethod + ", got " + r.Method}
	default:
		if err := rec.decodeBody(); err != nil {
			rec.DecodeError = err.Error()
			status, reject = http.StatusBadRequest, &APIError{Type: "invalid_request_error", Message: "fakellm: " + err.Error()}
		} else if s.cfg.APIKey != "" && rec.APIKey() != s.cfg.APIKey {
			status, reject = http.StatusUnauthorized, &APIError{Type: "invalid_request_error", Code: "invalid_api_key", Message: "fakellm: incorrect API key provided"}
		}
	}

	s.mu.Lock()
	rec.Seq = len(s.requests) + 1
	idx := len(s.requests)
	s.requests = append(s.requests, rec)
	s.inFlight++
	var reply Reply
	if reject == nil {
		q := &s.queue
		if ep == EndpointModels {
			q = &s.modelsQ
		}
		if len(*q) > 0 {
			reply, *q = (*q)[0], (*q)[1:]
		} else if ep != EndpointModels {
			reply = s.def
		}
	}
	s.notifyLocked()
	s.mu.Unlock()

	outcome, sent := OutcomeRejected, status
	if reject != nil {
		writeRaw(w, status, "application/json", reject.Body())
	} else {
		outcome, sent = s.answer(w, r, ep, rec, reply)
	}

	s.mu.Lock()
	s.requests[idx].Outcome, s.requests[idx].Status = outcome, sent
	s.inFlight--
	s.notifyLocked()
	s.mu.Unlock()
}

// answer plays one scripted reply and reports how it ended and which status went out.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, ep Endpoint, rec Request, reply Reply) (Outcome, int) {
	ctx := r.Context()
	if reply.Hang {
		select {
		case <-ctx.Done():
		case <-s.done:
		}
		return OutcomeCanceled, 0
	}
	if reply.Latency > 0 && !s.sleep(ctx, reply.Latency) {
		return OutcomeCanceled, 0
	}
	if reply.Drop == DropBeforeResponse {
		if conn := hijack(w); conn != nil {
			conn.Close()
		}
		return OutcomeDropped, 0
	}

	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	contentType := "application/json"
	var body []byte
	switch {
	case reply.RawBody != nil:
		body = reply.RawBody
		if reply.ContentType != "" {
			contentType = reply.ContentType
		}
	case status >= 400:
		if reply.Error != nil {
			body = reply.Error.Body()
		}
	case ep == EndpointModels:
		body = s.modelsBody()
	default:
		content := reply.Content
		if reply.Demo {
			content = model.Reply(rec.personaMessages())
		}
		if reply.AskForImage {
			content = askForLastImage(rec)
		}
		body = completionBody(ep, rec, reply, content)
	}

	for k, vs := range reply.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}

	if reply.Drop == DropMidBody {
		conn := hijack(w)
		if conn == nil {
			return OutcomeBroken, 0
		}
		defer conn.Close()
		bw := bufio.NewWriter(conn)
		fmt.Fprintf(bw, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n", status, http.StatusText(status), contentType, len(body))
		for k, vs := range reply.Header {
			for _, v := range vs {
				fmt.Fprintf(bw, "%s: %s\r\n", k, v)
			}
		}
		bw.WriteString("\r\n")
		bw.Write(body[:len(body)/2])
		bw.Flush()
		return OutcomeDropped, status
	}

	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if reply.Drip <= 0 {
		if _, err := w.Write(body); err != nil {
			return OutcomeBroken, status
		}
		return OutcomeAnswered, status
	}
	chunk := reply.DripChunk
	if chunk <= 0 {
		chunk = 16
	}
	flusher, _ := w.(http.Flusher)
	for len(body) > 0 {
		n := min(chunk, len(body))
		if _, err := w.Write(body[:n]); err != nil {
			return OutcomeBroken, status
		}
		if flusher != nil {
			flusher.Flush()
		}
		body = body[n:]
		if len(body) > 0 && !s.sleep(ctx, reply.Drip) {
			return OutcomeCanceled, status
		}
	}
	return OutcomeAnswered, status
}

// sleep waits d and reports true, or reports false as soon as the client gives up or the server
// closes.
func (s *Server) sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.done:
		return false
	}
}

func (s *Server) modelsBody() []byte {
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list"}
	for _, id := range s.cfg.Models {
		list.Data = append(list.Data, model{ID: id, Object: "model", Created: fixedCreated, OwnedBy: "fakellm"})
	}
	return []byte(mustJSON(list))
}

// fixedCreated is the "created" time of everything the server makes up, so bodies are
// reproducible (2024-01-01T00:00:00Z).
const fixedCreated = 1704067200

// contentPlaceholder stands in for content that json.Marshal would alter (invalid UTF-8) until
// the raw bytes are spliced in.
const contentPlaceholder = "\x60fakellm-content-placeholder\x60"

func completionBody(ep Endpoint, rec Request, reply Reply, content string) []byte {
	model := reply.Model
	if model == "" {
		model = rec.Model
	}
	if model == "" {
		model = "fake-model"
	}
	usage := Usage{PromptTokens: int64(len(rec.Body)/4 + 1), CompletionTokens: int64(len(content)/4 + 1)}
	if reply.Usage != nil {
		usage = *reply.Usage
	}
	finish := reply.FinishReason
	if finish == "" {
		finish = "stop"
	}
	raw := !utf8.ValidString(content)
	text := content
	if raw {
		text = contentPlaceholder
	}

	var v any
	if ep == EndpointResponses {
		status, incomplete := "completed", any(nil)
		if finish == "length" {
			status, incomplete = "incomplete", map[string]any{"reason": "max_output_tokens"}
		}
		v = map[string]any{
			"id":                 fmt.Sprintf("resp_fake_%d", rec.Seq),
			"object":             "response",
			"created_at":         fixedCreated,
			"status":             status,
			"incomplete_details": incomplete,
			"model":              model,
			"output": []any{map[string]any{
				"type":   "message",
				"id":     fmt.Sprintf("msg_fake_%d", rec.Seq),
				"status": status,
				"role":   "assistant",
				"content": []any{map[string]any{
					"type":        "output_text",
					"text":        text,
					"annotations": []any{},
				}},
			}},
			"usage": map[string]any{
				"input_tokens":  usage.PromptTokens,
				"output_tokens": usage.CompletionTokens,
				"total_tokens":  usage.PromptTokens + usage.CompletionTokens,
			},
		}
	} else {
		v = map[string]any{
			"id":      fmt.Sprintf("chatcmpl-fake-%d", rec.Seq),
			"object":  "chat.completion",
			"created": fixedCreated,
			"model":   model,
			"choices": []any{map[string]any{
				"index":         0,
				"message":       map[string]any{"role": "assistant", "content": text, "refusal": nil},
				"finish_reason": finish,
				"logprobs":      nil,
			}},
			"usage": map[string]any{
				"prompt_tokens":     usage.PromptTokens,
				"completion_tokens": usage.CompletionTokens,
				"total_tokens":      usage.PromptTokens + usage.CompletionTokens,
			},
		}
	}
	body := []byte(mustJSON(v))
	if raw {
		body = bytes.Replace(body, []byte(mustJSON(contentPlaceholder)), rawJSONString(content), 1)
	}
	return body
}

// rawJSONString quotes s as a JSON string but copies bytes that are not valid UTF-8 through
// unchanged, which json.Marshal would replace with U+FFFD.
func rawJSONString(s string) []byte {
	var b bytes.Buffer
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.Bytes()
}

func writeRaw(w http.ResponseWriter, status int, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// hijack takes over the raw connection, or returns nil if the writer cannot be hijacked.
func hijack(w http.ResponseWriter) net.Conn {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return nil
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return nil
	}
	return conn
}
