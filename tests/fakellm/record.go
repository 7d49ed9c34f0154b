package fakellm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/clanker-desktop/clanker/app/demo/model"
)

// Endpoint identifies which API a request hit.
type Endpoint string

// The endpoints the server answers.
const (
	EndpointChat      Endpoint = "chat.completions"
	EndpointResponses Endpoint = "responses"
	EndpointModels    Endpoint = "models"
)

// Outcome says how the server finished a request, so tests can tell a cancelled wait from an
// answer.
type Outcome string

// The outcomes a recorded request can have. A request still being handled has OutcomePending.
const (
	OutcomePending  Outcome = ""
	OutcomeAnswered Outcome = "answered" // a full response was written
	OutcomeRejected Outcome = "rejected" // the server refused the request itself (bad JSON, wrong key)
	OutcomeCanceled Outcome = "canceled" // the client gave up (or the server closed) first
	OutcomeDropped  Outcome = "dropped"  // the connection was closed on purpose
	OutcomeBroken   Outcome = "broken"   // writing the response failed
)

// Part is one content part of a message. Plain string content is recorded as a single "text" part.
type Part struct {
	// Type is the part type as sent: "text", "image_url", "input_text", "input_image", ...
	Type string
	// Text is the text of a text part.
	Text string
	// ImageURL is the image URL of an image part (usually a data: URL), whether it was sent as a
	// string or as {"url": ...}.
	ImageURL string
	// Detail is the image detail hint ("high", "low", "auto"), if any.
	Detail string
	// Raw is the part exactly as sent.
	Raw json.RawMessage
}

// IsImage reports whether the part carries an image.
func (p Part) IsImage() bool { return p.ImageURL != "" || strings.Contains(p.Type, "image") }

// Message is one chat message (chat completions "messages" or Responses API "input" items).
type Message struct {
	Role  string
	Parts []Part
	// Raw is the message exactly as sent.
	Raw json.RawMessage
}

// Text joins the message's text parts with newlines.
func (m Message) Text() string {
	var texts []string
	for _, p := range m.Parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// Request is everything recorded about one request, decoded for assertions. Raw fields keep the
// original bytes so nothing is lost when the decoding here is too lenient or too strict.
type Request struct {
	// Seq numbers requests from 1 in arrival order.
	Seq      int
	Received time.Time
	Method   string
	Path     string
	Endpoint Endpoint
	Header   http.Header
	Body     []byte
	// DecodeError is set when the body was not a JSON object; the other decoded fields are then
	// empty.
	DecodeError string

	Model string
	// Messages are the chat completions "messages" or the Responses API "input" array; a string
	// "input" becomes one user message.
	Messages []Message
	// Instructions is the Responses API "instructions" field.
	Instructions string
	// Tools holds each entry of "tools" as sent.
	Tools []json.RawMessage
	// ResponseFormat is "response_format" (chat) or "text" (Responses API) as sent.
	ResponseFormat json.RawMessage
	// MaxTokens is max_tokens, max_completion_tokens or max_output_tokens, whichever was sent;
	// MaxTokensField names it.
	MaxTokens      *int64
	MaxTokensField string
	Temperature    *float64
	// Fields holds every top-level field as sent, for anything not decoded above.
	Fields map[string]json.RawMessage

	// Outcome is how the server finished the request; Status is the HTTP status it sent (0 when
	// none was sent).
	Outcome Outcome
	Status  int
}

// Authorization returns the Authorization header as sent.
func (r Request) Authorization() string { return r.Header.Get("Authorization") }

// APIKey returns the bearer token from the Authorization header, or "" if there is none.
func (r Request) APIKey() string {
	a := r.Authorization()
	if len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
		return strings.TrimSpace(a[7:])
	}
	return ""
}

// Images returns every image part of every message, in order.
func (r Request) Images() []Part {
	var out []Part
	for _, m := range r.Messages {
		for _, p := range m.Parts {
			if p.IsImage() {
				out = append(out, p)
			}
		}
	}
	return out
}

// LastUserText returns the text of the last message with role "user", or "".
func (r Request) LastUserText() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Text()
		}
	}
	return ""
}

// personaMessages is the request as the demo persona (app/demo/model) reads it.
func (r Request) personaMessages() []model.Message {
	out := make([]model.Message, 0, len(r.Messages))
	for _, m := range r.Messages {
		pm := model.Message{Role: m.Role}
		for _, p := range m.Parts {
			if p.IsImage() {
				pm.Images++
			} else {
				pm.Texts = append(pm.Texts, p.Text)
			}
		}
		out = append(out, pm)
	}
	return out
}

// ToolTypes returns the "type" of each tool, e.g. ["web_search"].
func (r Request) ToolTypes() []string {
	var out []string
	for _, t := range r.Tools {
		var v struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(t, &v)
		out = append(out, v.Type)
	}
	return out
}

// clone returns a deep enough copy that callers cannot disturb the recording.
func (r Request) clone() Request {
	c := r
	c.Header = r.Header.Clone()
	c.Body = bytes.Clone(r.Body)
	c.Messages = make([]Message, len(r.Messages))
	for i, m := range r.Messages {
		m.Parts = append([]Part(nil), m.Parts...)
		c.Messages[i] = m
	}
	c.Tools = append([]json.RawMessage(nil), r.Tools...)
	if r.Fields != nil {
		c.Fields = make(map[string]json.RawMessage, len(r.Fields))
		for k, v := range r.Fields {
			c.Fields[k] = v
		}
	}
	return c
}

// decodeBody fills the decoded fields of r from r.Body. It is lenient: fields of an unexpected
// type are skipped (they stay visible in Fields) rather than failing the whole request, because
// the point is to show tests what the client sent.
func (r *Request) decodeBody() error {
	if r.Endpoint == EndpointModels || len(bytes.TrimSpace(r.Body)) == 0 {
		return nil
	}
	if err := json.Unmarshal(r.Body, &r.Fields); err != nil {
		return fmt.Errorf("request body is not a JSON object: %w", err)
	}
	f := r.Fields
	_ = json.Unmarshal(f["model"], &r.Model)
	_ = json.Unmarshal(f["instructions"], &r.Instructions)
	if raw, ok := f["temperature"]; ok {
		var t float64
		if json.Unmarshal(raw, &t) == nil {
			r.Temperature = &t
		}
	}
	for _, name := range []string{"max_tokens", "max_completion_tokens", "max_output_tokens"} {
		if raw, ok := f[name]; ok {
			var n int64
			if json.Unmarshal(raw, &n) == nil {
				r.MaxTokens, r.MaxTokensField = &n, name
				break
			}
		}
	}
	if raw, ok := f["response_format"]; ok {
		r.ResponseFormat = raw
	} else if raw, ok := f["text"]; ok && r.Endpoint == EndpointResponses {
		r.ResponseFormat = raw
	}
	_ = json.Unmarshal(f["tools"], &r.Tools)

	msgs := f["messages"]
	if r.Endpoint == EndpointResponses {
		msgs = f["input"]
		var s string
		if json.Unmarshal(msgs, &s) == nil {
			r.Messages = []Message{{Role: "user", Parts: []Part{{Type: "text", Text: s}}, Raw: msgs}}
			return nil
		}
	}
	var raws []json.RawMessage
	_ = json.Unmarshal(msgs, &raws)
	for _, raw := range raws {
		r.Messages = append(r.Messages, decodeMessage(raw))
	}
	return nil
}

func decodeMessage(raw json.RawMessage) Message {
	var m struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(raw, &m)
	msg := Message{Role: m.Role, Raw: raw}
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		msg.Parts = []Part{{Type: "text", Text: s, Raw: m.Content}}
		return msg
	}
	var parts []json.RawMessage
	_ = json.Unmarshal(m.Content, &parts)
	for _, p := range parts {
		msg.Parts = append(msg.Parts, decodePart(p))
	}
	return msg
}

func decodePart(raw json.RawMessage) Part {
	var p struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		ImageURL json.RawMessage `json:"image_url"`
		Detail   string          `json:"detail"`
	}
	_ = json.Unmarshal(raw, &p)
	part := Part{Type: p.Type, Text: p.Text, Detail: p.Detail, Raw: raw}
	// Chat completions nest {"url","detail"}; the Responses API (and xAI everywhere) use a bare
	// string next to "detail".
	var url string
	if json.Unmarshal(p.ImageURL, &url) == nil {
		part.ImageURL = url
	} else {
		var obj struct {
			URL    string `json:"url"`
			Detail string `json:"detail"`
		}
		if json.Unmarshal(p.ImageURL, &obj) == nil {
			part.ImageURL = obj.URL
			if obj.Detail != "" {
				part.Detail = obj.Detail
			}
		}
	}
	return part
}
