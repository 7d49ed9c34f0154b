package model

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// Name is the model name the demo server reports and the demo settings use.
const Name = "clanker-demo"

// maxBody bounds a request body; the app's requests with one optimised image stay far
// below it.
const maxBody = 32 << 20

// created is the fixed "created" time of every answer (2024-01-01T00:00:00Z), so answers
// are reproducible.
const created = 1704067200

// Server is the demo model on loopback: an OpenAI-compatible Chat Completions endpoint
// answering with Lively.
type Server struct {
	srv  *http.Server
	base string
	seq  atomic.Int64
	log  *slog.Logger
}

// Start listens on a free loopback port and serves the demo model until Close.
func Start(log *slog.Logger) (*Server, error) {
	if log == nil {
		log = slog.Default()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("demo model: listen on loopback: %w", err)
	}
	s := &Server{base: "http://" + ln.Addr().String() + "/v1", log: log}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// BaseURL is what an OpenAI client takes as its endpoint: "http://127.0.0.1:PORT/v1".
func (s *Server) BaseURL() string { return s.base }

// Close stops the server.
func (s *Server) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		_ = s.srv.Close()
	}
}

// chatRequest is the part of a Chat Completions request the persona reads.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// contentPart is one part of array content: text, or an image in either the Chat
// Completions ("image_url") or the xAI ("input_image") spelling.
type contentPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// messages turns the request into what the persona reads. Content is a string or an
// array of parts.
func (r chatRequest) messages() []Message {
	out := make([]Message, 0, len(r.Messages))
	for _, m := range r.Messages {
		msg := Message{Role: m.Role}
		var text string
		var parts []contentPart
		switch {
		case json.Unmarshal(m.Content, &text) == nil:
			msg.Texts = []string{text}
		case json.Unmarshal(m.Content, &parts) == nil:
			for _, p := range parts {
				if strings.Contains(p.Type, "image") {
					msg.Images++
				} else {
					msg.Texts = append(msg.Texts, p.Text)
				}
			}
		}
		out = append(out, msg)
	}
	return out
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	var req chatRequest
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		s.log.Warn("demo model: unreadable request", "err", err)
		writeError(w, http.StatusBadRequest, "the demo model could not read the request: "+err.Error())
		return
	}
	content := Lively(req.messages())
	model := req.Model
	if model == "" {
		model = Name
	}
	type message struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	type choice struct {
		Index        int     `json:"index"`
		Message      message `json:"message"`
		FinishReason string  `json:"finish_reason"`
	}
	type usage struct {
		Prompt     int `json:"prompt_tokens"`
		Completion int `json:"completion_tokens"`
		Total      int `json:"total_tokens"`
	}
	// Token counts are the usual four-bytes-per-token estimate, so the usage records of
	// the demo look plausible.
	in, out := len(body)/4+1, len(content)/4+1
	writeJSON(w, struct {
		ID      string   `json:"id"`
		Object  string   `json:"object"`
		Created int64    `json:"created"`
		Model   string   `json:"model"`
		Choices []choice `json:"choices"`
		Usage   usage    `json:"usage"`
	}{
		ID: fmt.Sprintf("chatcmpl-demo-%d", s.seq.Add(1)), Object: "chat.completion", Created: created, Model: model,
		Choices: []choice{{Message: message{Role: "assistant", Content: content}, FinishReason: "stop"}},
		Usage:   usage{Prompt: in, Completion: out, Total: in + out},
	})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers in the OpenAI error shape, which the app's client understands.
func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": msg, "type": "invalid_request_error", "param": nil, "code": nil,
	}})
}
