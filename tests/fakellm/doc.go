// Package fakellm is a fake OpenAI-compatible LLM server on 127.0.0.1 for Clanker's tests. It
// exists so the LLM client, the engine and the full app can be proven against every
// answer a real provider can give (good JSON, prose, truncation, each provider's error dialect,
// dropped and hung connections) without touching the network.
//
// # Starting
//
//	srv, baseURL := fakellm.StartNew(fakellm.Config{}) // baseURL = "http://127.0.0.1:PORT/v1"
//	defer srv.Close()
//	client := openai.NewClient(option.WithBaseURL(baseURL), option.WithAPIKey("test-key"),
//		option.WithMaxRetries(0))
//
// Endpoints: POST /chat/completions, POST /responses and GET /models, served under /v1, at the
// root, and under Config.BasePath when set (BaseURL then uses BasePath). Unknown paths get an
// OpenAI-shaped 404. Config.APIKey, when set, makes requests without that bearer token fail with
// an OpenAI-shaped 401. Streaming is not supported.
//
// # Scripting
//
// Generation requests (chat completions and responses) take scripted replies from a FIFO queue
// (Enqueue); when it is empty they get the default (SetDefault or Config.Default, otherwise the
// demo persona). /models has its own queue (EnqueueModels) for failures; its listing comes from
// Config.Models. A Reply is plain data; the constructors cover the usual cases:
//
//	JSONReply(response, summary)  valid Clanker JSON {"response": ..., "summary": ...}
//	NullReply()                   {"response": null}
//	Text(s)                       any content: prose, fenced JSON, "null"
//	Truncated(s)                  finish_reason "length" (Responses API: status "incomplete")
//	Malformed()                   Clanker-looking JSON content that does not parse
//	MalformedBody()               a 200 whose envelope is not JSON
//	InvalidUTF8()                 content with raw invalid UTF-8 bytes inside the JSON string
//	Huge(n)                       content of n bytes
//	OpenAIError(status, type, code, msg)  {"error":{"message","type","param","code"}}; code may be
//	                                      a string, a number (e.g. 429) or nil
//	XAIError(status, code, msg)           {"code": code, "error": msg}
//	AnthropicError(status, type, msg)     {"type":"error","error":{"type","message"}}
//	Dropped()                     hijack the connection and close it without a byte
//	DroppedMidBody(s)             send headers and half the body, then close
//	Hung()                        never answer; released when the client gives up or on Close
//	Demo()                        the demo persona (see below)
//	AskForLastImage()             {"requestImage": ref} for the last "[IMAGE: ref]" the request
//	                              shows ({"response": null} without one)
//
// and modifiers: WithLatency(d) (the wait ends early when the client cancels), WithUsage(p, c),
// WithHeader(k, v), WithRetryAfter(sec), WithDrip(every, chunk) (slow body). Any Reply field can
// also be set directly, e.g. Reply{Status: 503, RawBody: []byte("upstream down"),
// ContentType: "text/plain"}.
//
// # Recording
//
// Every request is recorded, including rejected ones, and can be read with Requests() (copies)
// or awaited with WaitForRequests(n, timeout). A Request holds the method, path, endpoint,
// headers (Authorization() and APIKey()), raw body, and decoded model, messages (role and content
// parts, with image parts' data URLs whether sent as a string or {"url"}), instructions, tools,
// response_format (or the Responses API "text"), max tokens (and which field carried it),
// temperature and every top-level field. Outcome and Status say how the server finished it;
// WaitIdle(timeout) waits until nothing is being handled, which proves a cancelled client
// released its handler.
//
// Requests are recorded on arrival, before the reply is played, so a client can see its answer
// before Outcome is filled in; call WaitIdle before asserting on Outcome or Status.
//
// # What openai-go v3 makes of each error shape
//
// OpenAI- and Anthropic-shaped bodies become *openai.Error with StatusCode, Type and Message set
// (a numeric error.code arrives as the string "429"). xAI's flat body does not: the call fails
// with *json.UnmarshalTypeError and no status, so a client that must classify xAI errors needs
// option.WithResponseInto to read the status and body. A non-JSON error body becomes an
// *openai.Error with empty fields. Transport failures (Dropped, DroppedMidBody, Hung with a
// client timeout) are plain errors, never *openai.Error. openai-go retries 408/409/429/5xx and
// dropped connections twice by default; tests usually pass option.WithMaxRetries(0).
//
// # Demo persona
//
// Demo() plays the persona of the demo model `clanker demo` ships (app/demo/model, which has its
// own small server): {"response": null} unless the last user message addresses Clanker by name,
// otherwise valid Clanker JSON that says it is the demo model; an image gets an acknowledgement.
// Bodies use fixed ids ("chatcmpl-fake-<seq>") and a fixed created time.
//
// The package is for tests and demos only: it trusts its scripts, not its clients, and never
// logs message bodies.
package fakellm
