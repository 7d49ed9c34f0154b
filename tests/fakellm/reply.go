package fakellm

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ErrorShape selects how an error body is laid out. Providers disagree, and the LLM client has to
// classify all of them, so the fake can speak each dialect.
type ErrorShape int

const (
	// ShapeOpenAI is {"error":{"message","type","param","code"}}. Code may be a string, a number or
	// null; several OpenAI-compatible providers send a numeric code.
	ShapeOpenAI ErrorShape = iota
	// ShapeXAI is xAI's flat body {"code":"<text>","error":"<message>"}, where "error" is a plain
	// string rather than an object.
	ShapeXAI
	// ShapeAnthropic is {"type":"error","error":{"type","message"}}.
	ShapeAnthropic
)

// String names the shape for test logs.
func (s ErrorShape) String() string {
	switch s {
	case ShapeOpenAI:
		return "openai"
	case ShapeXAI:
		return "xai"
	case ShapeAnthropic:
		return "anthropic"
	}
	return "ErrorShape(" + strconv.Itoa(int(s)) + ")"
}

// APIError is the content of a scripted error body. Which fields appear depends on the Shape.
type APIError struct {
	Shape   ErrorShape
	Message string
	// Type is error.type (OpenAI, Anthropic). Ignored by ShapeXAI.
	Type string
	// Param is error.param (OpenAI only); empty is sent as null.
	Param string
	// Code is error.code for OpenAI (string, number such as 429, or nil for null) and the
	// top-level "code" for xAI. Ignored by ShapeAnthropic.
	Code any
}

// Body renders the error body exactly as the server sends it.
func (e APIError) Body() []byte {
	var v any
	switch e.Shape {
	case ShapeXAI:
		v = struct {
			Code  any    `json:"code"`
			Error string `json:"error"`
		}{e.Code, e.Message}
	case ShapeAnthropic:
		v = struct {
			Type  string `json:"type"`
			Error struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}{Type: "error", Error: struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		}{e.Type, e.Message}}
	default:
		var param any
		if e.Param != "" {
			param = e.Param
		}
		v = map[string]any{"error": map[string]any{
			"message": e.Message,
			"type":    e.Type,
			"param":   param,
			"code":    e.Code,
		}}
	}
	b, err := json.Marshal(v)
	if err != nil {
		// Only an unencodable Code (a channel, a func) gets here; that is a bug in the test.
		panic("fakellm: cannot encode scripted error: " + err.Error())
	}
	return b
}

// Drop selects a way of breaking the connection instead of answering normally.
type Drop int

const (
	// NoDrop answers normally.
	NoDrop Drop = iota
	// DropBeforeResponse hijacks the connection and closes it without sending a byte.
	DropBeforeResponse
	// DropMidBody sends the status line, headers (with the full Content-Length) and the first
	// half of the body, then closes the connection.
	DropMidBody
)

// Usage is the token accounting reported in a successful reply.
type Usage struct {
	PromptTokens     int64
	CompletionTokens int64
}

// Reply scripts one answer. The zero Reply answers 200 with empty content; the constructors below
// build the common cases and can be adjusted with the With* methods.
type Reply struct {
	// Content is the assistant text: choices[0].message.content for chat completions and the
	// output_text part for the Responses API. It may be any string, including broken JSON and
	// invalid UTF-8 (sent as raw bytes inside the JSON string).
	Content string
	// Demo computes Content from the request with the demo persona (model.Reply in
	// app/demo/model), ignoring Content.
	Demo bool
	// AskForImage computes Content from the request: {"requestImage": ref} for the last
	// image reference the request shows ("[IMAGE: ref]"), or {"response": null} when it
	// shows none, ignoring Content. It is how a test has the model ask to see a picture whose
	// reference (a blob: URL of the page) it cannot know in advance.
	AskForImage bool
	// FinishReason defaults to "stop". "length" makes the Responses API answer status
	// "incomplete" with reason "max_output_tokens".
	FinishReason string
	// Model overrides the model echoed in the reply (default: the requested model).
	Model string
	// Usage overrides the token counts (default: a deterministic estimate from the text sizes).
	Usage *Usage

	// Latency delays the answer. The wait ends early, with nothing sent, when the client gives
	// up (request context cancelled) or the server closes.
	Latency time.Duration
	// Hang never answers: the handler blocks until the client gives up or the server closes.
	Hang bool
	// Drip sends the body in DripChunk-byte pieces (default 16) with Drip between them.
	Drip      time.Duration
	DripChunk int
	// Drop breaks the connection instead of (or in the middle of) answering.
	Drop Drop

	// Status is the HTTP status; 0 means 200. At 400 and above Error (if set) is the body.
	Status int
	// Error is the error body for Status >= 400.
	Error *APIError
	// Header adds response headers, e.g. Retry-After.
	Header http.Header
	// RawBody, when non-nil, is sent verbatim instead of any generated body, with ContentType
	// (default application/json). It is how malformed envelopes and odd bytes are scripted.
	RawBody     []byte
	ContentType string
}

// JSONReply answers with valid Clanker JSON {"response": response, "summary": summary}; an empty
// summary is omitted.
func JSONReply(response, summary string) Reply {
	m := map[string]any{"response": response}
	if summary != "" {
		m["summary"] = summary
	}
	return Reply{Content: mustJSON(m)}
}

// NullReply answers {"response": null}, the model choosing not to speak.
func NullReply() Reply {
	return Reply{Content: `{"response": null}`}
}

// Text answers with arbitrary content, e.g. prose, fenced JSON or a bare literal.
func Text(content string) Reply {
	return Reply{Content: content}
}

// Truncated answers with content cut off by the token limit: finish_reason "length".
func Truncated(content string) Reply {
	return Reply{Content: content, FinishReason: "length"}
}

// Malformed answers with content that looks like Clanker JSON but does not parse.
func Malformed() Reply {
	return Reply{Content: `{"response": "sure, here is my answer", "summary": `}
}

// MalformedBody answers 200 with an envelope that is not JSON at all, so the client cannot even
// find the choices.
func MalformedBody() Reply {
	return Reply{RawBody: []byte(`{"id":"chatcmpl-broken","choices":[{"message":{"content":"cut`)}
}

// InvalidUTF8 answers with content holding invalid UTF-8 bytes inside the JSON string.
func InvalidUTF8() Reply {
	return Reply{Content: "{\"response\": \"bad \xff\xfe bytes \xc3\x28 here\"}"}
}

// Huge answers with content of n bytes: a valid Clanker JSON reply padded to size.
func Huge(n int) Reply {
	const head, tail = `{"response": "`, `"}`
	pad := max(n-len(head)-len(tail), 0)
	return Reply{Content: head + strings.Repeat("x", pad) + tail}
}

// OpenAIError answers status with an OpenAI-shaped error body. code may be a string, a number or
// nil.
func OpenAIError(status int, typ string, code any, message string) Reply {
	return Reply{Status: status, Error: &APIError{Shape: ShapeOpenAI, Type: typ, Code: code, Message: message}}
}

// XAIError answers status with xAI's flat error body {"code","error"}.
func XAIError(status int, code, message string) Reply {
	return Reply{Status: status, Error: &APIError{Shape: ShapeXAI, Code: code, Message: message}}
}

// AnthropicError answers status with an Anthropic-shaped error body.
func AnthropicError(status int, typ, message string) Reply {
	return Reply{Status: status, Error: &APIError{Shape: ShapeAnthropic, Type: typ, Message: message}}
}

// Dropped closes the connection without answering.
func Dropped() Reply { return Reply{Drop: DropBeforeResponse} }

// DroppedMidBody closes the connection halfway through a successful body carrying content.
func DroppedMidBody(content string) Reply { return Reply{Content: content, Drop: DropMidBody} }

// Hung never answers; the client must time out.
func Hung() Reply { return Reply{Hang: true} }

// Demo answers with the demo persona.
func Demo() Reply { return Reply{Demo: true} }

// AskForLastImage asks to see the last image the request shows (see Reply.AskForImage).
func AskForLastImage() Reply { return Reply{AskForImage: true} }

// WithLatency returns r delayed by d.
func (r Reply) WithLatency(d time.Duration) Reply { r.Latency = d; return r }

// WithUsage returns r reporting the given token counts.
func (r Reply) WithUsage(prompt, completion int64) Reply {
	r.Usage = &Usage{PromptTokens: prompt, CompletionTokens: completion}
	return r
}

// WithHeader returns r with an extra response header (e.g. "Retry-After", "2").
func (r Reply) WithHeader(key, value string) Reply {
	h := r.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Add(key, value)
	r.Header = h
	return r
}

// WithRetryAfter returns r with a Retry-After header of whole seconds.
func (r Reply) WithRetryAfter(seconds int) Reply {
	return r.WithHeader("Retry-After", strconv.Itoa(seconds))
}

// WithDrip returns r sending its body chunk bytes at a time with every pause between chunks.
func (r Reply) WithDrip(every time.Duration, chunk int) Reply {
	r.Drip, r.DripChunk = every, chunk
	return r
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic("fakellm: " + err.Error())
	}
	return string(b)
}

// imageRefRE finds an image reference as the app's prompt shows it: "Name: [IMAGE: ref]".
var imageRefRE = regexp.MustCompile(`\[IMAGE: (\S+)\]`)

// askForLastImage is the content of an AskForImage reply to rec.
func askForLastImage(rec Request) string {
	ref := ""
	for _, m := range rec.Messages {
		for _, match := range imageRefRE.FindAllStringSubmatch(m.Text(), -1) {
			ref = match[1]
		}
	}
	if ref == "" {
		return `{"response": null}`
	}
	return mustJSON(map[string]string{"requestImage": ref})
}
