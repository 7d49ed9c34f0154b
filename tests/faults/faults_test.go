package faults

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/fakellm"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

const testKey = "sk-faults-0123456789abcdef"

// notice is the notification a fault must produce over two triggering messages in a row.
type notice int

const (
	noNotice  notice = iota // nothing shown (silence, rate limit, success)
	toastOnce               // one toast for two failures in a row (server, network trouble)
	toastEach               // a toast for each failure (model, not found, unknown)
	banner                  // the deactivation banner and no toast
)

func (n notice) String() string {
	return [...]string{"none", "toast once", "toast each", "banner"}[n]
}

// fault is one row of the corpus: what the fake model server does, and what the user must see.
type fault struct {
	name string
	// queue is played first; every request after it gets def.
	queue []fakellm.Reply
	def   fakellm.Reply
	// posted is the exact list of texts sent for the two triggers (nil: nothing sent).
	posted      []string
	deactivated bool
	note        notice
	// noteHas, when set, must appear in every toast or banner shown.
	noteHas string
}

func good(text string) fakellm.Reply { return fakellm.JSONReply(text, "") }

func status(code int, body string, ct string) fakellm.Reply {
	return fakellm.Reply{Status: code, RawBody: []byte(body), ContentType: ct}
}

func sent(texts ...string) []string {
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = engine.Prefix + t
	}
	return out
}

// faultTable is the corpus played under testing/synctest: everything the server answers at once
// (statuses, bodies, drops). Slow and hung servers are in slowFaults, on the real clock.
func faultTable() []fault {
	longWords := strings.Repeat("word ", 1000)
	capped := strings.Repeat("word ", 318) + "word…"
	xs := strings.Repeat("x", 1599) + "…"
	ok := good("all good")
	return []fault{
		// 400: a bad request is an unknown failure, shown every time; Anthropic's empty
		// credit balance (a 400) is a quota problem.
		{name: "400 OpenAI invalid_request_error string code", def: fakellm.OpenAIError(400, "invalid_request_error", "invalid_value", "Invalid value for 'temperature'"), note: toastEach, noteHas: "Invalid value"},
		{name: "400 xAI", def: fakellm.XAIError(400, "Client specified an invalid argument", "Incorrect request body"), note: toastEach, noteHas: "Incorrect request body"},
		{name: "400 Anthropic credit balance too low", def: fakellm.AnthropicError(400, "invalid_request_error", "Your credit balance is too low to access the Anthropic API."), deactivated: true, note: banner, noteHas: "quota"},
		// 401/403: the key is wrong or lacks permission.
		{name: "401 OpenAI invalid_api_key", def: fakellm.OpenAIError(401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided"), deactivated: true, note: banner, noteHas: "Invalid API key"},
		{name: "401 xAI", def: fakellm.XAIError(401, "Unauthenticated", "Incorrect API key provided"), deactivated: true, note: banner, noteHas: "Invalid API key"},
		{name: "401 Anthropic authentication_error", def: fakellm.AnthropicError(401, "authentication_error", "invalid x-api-key"), deactivated: true, note: banner, noteHas: "Invalid API key"},
		{name: "401 OpenAI numeric code", def: fakellm.OpenAIError(401, "", 401, "Unauthorized"), deactivated: true, note: banner, noteHas: "Invalid API key"},
		{name: "402 OpenAI payment required", def: fakellm.OpenAIError(402, "billing_error", "payment_required", "Payment required"), deactivated: true, note: banner, noteHas: "Payment required"},
		{name: "402 xAI", def: fakellm.XAIError(402, "Payment Required", "Your team has no credits"), deactivated: true, note: banner, noteHas: "Payment required"},
		{name: "403 OpenAI permission denied", def: fakellm.OpenAIError(403, "invalid_request_error", "unsupported_country_region_territory", "Country, region, or territory not supported"), deactivated: true, note: banner, noteHas: "Access denied"},
		{name: "403 xAI out of credits", def: fakellm.XAIError(403, "Forbidden", "Your team has run out of credits"), deactivated: true, note: banner, noteHas: "quota"},
		{name: "403 Anthropic permission_error", def: fakellm.AnthropicError(403, "permission_error", "Your API key does not have permission to use the specified resource."), deactivated: true, note: banner, noteHas: "Access denied"},
		// 404: a wrong model or endpoint, shown every time.
		{name: "404 OpenAI model_not_found", def: fakellm.OpenAIError(404, "invalid_request_error", "model_not_found", "The model `gpt-9` does not exist"), note: toastEach, noteHas: "not found"},
		{name: "404 xAI", def: fakellm.XAIError(404, "Some requested entity was not found", "The model grok-9 does not exist"), note: toastEach, noteHas: "not found"},
		{name: "404 Anthropic not_found_error", def: fakellm.AnthropicError(404, "not_found_error", "model: claude-9"), note: toastEach, noteHas: "not found"},
		{name: "404 HTML page", def: status(404, "<html><body>Not Found</body></html>", "text/html"), note: toastEach, noteHas: "not found"},
		// Other 4xx are unknown failures: shown every time, nothing deactivated.
		{name: "408 OpenAI timeout", def: fakellm.OpenAIError(408, "timeout", nil, "Request timed out"), note: toastEach, noteHas: "Request timed out"},
		{name: "409 OpenAI conflict", def: fakellm.OpenAIError(409, "invalid_request_error", "conflict", "Conflict"), note: toastEach, noteHas: "Conflict"},
		{name: "413 Anthropic request_too_large", def: fakellm.AnthropicError(413, "request_too_large", "Request exceeds the maximum allowed number of bytes."), note: toastEach, noteHas: "maximum allowed"},
		{name: "413 plain text", def: status(413, "request entity too large", "text/plain"), note: toastEach, noteHas: "too large"},
		{name: "422 xAI invalid argument", def: fakellm.XAIError(422, "Client specified an invalid argument", "Failed to deserialize the JSON body"), note: toastEach, noteHas: "deserialize"},
		// 429: rate limits are retried and then only logged; a quota 429 deactivates.
		{name: "429 OpenAI rate limit without Retry-After, always", def: fakellm.OpenAIError(429, "requests", "rate_limit_exceeded", "Rate limit reached"), note: noNotice},
		{name: "429 OpenAI numeric code", def: fakellm.OpenAIError(429, "", 429, "Too many requests"), note: noNotice},
		{name: "429 xAI", def: fakellm.XAIError(429, "Too many requests", "Too many requests, slow down"), note: noNotice},
		{name: "429 Anthropic rate_limit_error", def: fakellm.AnthropicError(429, "rate_limit_error", "This request would exceed the rate limit for your organization"), note: noNotice},
		// Rate-limit wording that says "exceeded" is still a rate limit, never quota: the
		// extension's "exceeded ... limit" rule switched Clanker off on a passing rate limit.
		{name: "429 Anthropic 'exceeded your per-minute rate limit'", def: fakellm.AnthropicError(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"), note: noNotice},
		{name: "429 xAI 'exceeded the rate limit'", def: fakellm.XAIError(429, "Too many requests", "You have exceeded the rate limit"), note: noNotice},
		{name: "429 Retry-After 7 s then success", queue: []fakellm.Reply{fakellm.OpenAIError(429, "requests", "rate_limit_exceeded", "Rate limit reached").WithRetryAfter(7)}, def: ok, posted: sent("all good", "all good")},
		{name: "429 retry-after-ms then success", queue: []fakellm.Reply{fakellm.AnthropicError(429, "rate_limit_error", "slow down").WithHeader("Retry-After-Ms", "1500")}, def: ok, posted: sent("all good", "all good")},
		{name: "429 Retry-After too long to wait", def: fakellm.OpenAIError(429, "requests", "rate_limit_exceeded", "Rate limit reached").WithRetryAfter(3600), note: noNotice},
		{name: "429 OpenAI insufficient_quota", def: fakellm.OpenAIError(429, "insufficient_quota", "insufficient_quota", "You exceeded your current quota, please check your plan and billing details."), deactivated: true, note: banner, noteHas: "quota"},
		// 5xx: passing server trouble is shown once per streak.
		{name: "500 OpenAI server_error", def: fakellm.OpenAIError(500, "server_error", nil, "The server had an error"), note: toastOnce, noteHas: "500"},
		{name: "500 xAI", def: fakellm.XAIError(500, "Internal error", "Service temporarily unavailable"), note: toastOnce, noteHas: "500"},
		{name: "502 HTML from a proxy", def: status(502, "<html><h1>502 Bad Gateway</h1></html>", "text/html"), note: toastOnce, noteHas: "502"},
		{name: "503 OpenAI numeric code", def: fakellm.OpenAIError(503, "server_error", 503, "Service Unavailable"), note: toastOnce, noteHas: "503"},
		{name: "503 xAI", def: fakellm.XAIError(503, "Service Unavailable", "The service is currently unavailable"), note: toastOnce, noteHas: "503"},
		{name: "504 plain text", def: status(504, "upstream request timeout", "text/plain"), note: toastOnce, noteHas: "504"},
		{name: "529 Anthropic overloaded_error", def: fakellm.AnthropicError(529, "overloaded_error", "Overloaded"), note: toastOnce, noteHas: "529"},
		{name: "500 then success: the streak ends", queue: []fakellm.Reply{fakellm.OpenAIError(500, "server_error", nil, "boom")}, def: ok, posted: sent("all good"), note: toastOnce, noteHas: "500"},
		// Broken connections.
		{name: "connection dropped before the response", def: fakellm.Dropped(), note: toastOnce, noteHas: "Cannot reach"},
		{name: "connection dropped mid body", def: fakellm.DroppedMidBody(`{"response": "half of this never arrives"}`), note: toastOnce, noteHas: "Cannot reach"},
		// Bodies.
		{name: "huge body (4 MB one-word reply) is capped", def: fakellm.Huge(4 << 20), posted: sent(xs, xs)},
		{name: "oversized reply is cut at a word", def: good(longWords), posted: sent(capped, capped)},
		// Bytes that are not text come out of the JSON decoder as U+FFFD: a garbled answer is
		// not posted with holes in it.
		{name: "invalid UTF-8 in the content", def: fakellm.InvalidUTF8(), note: toastEach, noteHas: "garbled"},
		{name: "envelope is not JSON", def: fakellm.MalformedBody(), note: toastEach, noteHas: "could not read"},
		// A captive portal's HTML page is read as "cannot reach the service", shown once per streak.
		{name: "HTML 200 instead of JSON", def: status(200, "<html>captive portal</html>", "text/html"), note: toastOnce, noteHas: "Cannot reach"},
		{name: "no choices", def: status(200, `{"id":"x","object":"chat.completion","choices":[]}`, "application/json"), note: toastEach, noteHas: "could not read"},
		// Malformed reply shapes.
		{name: "broken JSON, response string cut", def: fakellm.Text(`{"response": "I was going to say`), note: toastEach, noteHas: "could not be read"},
		{name: "broken JSON, summary cut", def: fakellm.Text(`{"summary": "Ann asked`), note: toastEach, noteHas: "could not be read"},
		// A broken object whose response string was read completely keeps just that string.
		{name: "broken JSON after a complete response", def: fakellm.Malformed(), posted: sent("sure, here is my answer", "sure, here is my answer")},
		{name: "truncated by length twice", def: fakellm.Truncated(`{"response": "I was about to`), note: toastEach, noteHas: "cut off"},
		{name: "truncated once, then whole", queue: []fakellm.Reply{fakellm.Truncated(`{"response": "I was about`)}, def: ok, posted: sent("all good", "all good")},
		{name: "null literal", def: fakellm.Text("null"), note: noNotice},
		{name: "response null", def: fakellm.NullReply(), note: noNotice},
		{name: "empty content", def: fakellm.Text(""), note: noNotice},
		{name: "reasoning only", def: fakellm.Text("<think>They asked me something, so I should"), note: toastEach, noteHas: "reasoning"},
		{name: "closed reasoning then JSON", def: fakellm.Text("<think>short answer</think>{\"response\": \"thought it over\"}"), posted: sent("thought it over", "thought it over")},
		{name: "prose around JSON", def: fakellm.Text(`Sure! Here is my reply: {"response": "from the middle"} Hope that helps.`), posted: sent("from the middle", "from the middle")},
		{name: "fenced JSON", def: fakellm.Text("```json\n{\"response\": \"fenced\"}\n```"), posted: sent("fenced", "fenced")},
		{name: "plain prose", def: fakellm.Text("just words"), posted: sent("just words", "just words")},
		// A response field of the wrong type is silence (logged), never its JSON text.
		{name: "wrong type: response is a number", def: fakellm.Text(`{"response": 42}`), note: noNotice},
		{name: "wrong type: response is an array", def: fakellm.Text(`{"response": ["a", "b"]}`), note: noNotice},
		{name: "wrong type: response is an object", def: fakellm.Text(`{"response": {"text": "hi"}}`), note: noNotice},
		{name: "wrong type: summary is a number", def: fakellm.Text(`{"response": "still fine", "summary": 7}`), posted: sent("still fine", "still fine")},
		{name: "JSON array", def: fakellm.Text(`[{"response": "hi"}]`), note: toastEach},
		{name: "JSON without reply fields", def: fakellm.Text(`{"answer": "hi"}`), note: toastEach},
		{name: "leading [clanker] in the response", def: good("[clanker] hello"), posted: sent("hello", "hello")},
		{name: "leading Clanker: in prose", def: fakellm.Text("Clanker: hi there"), posted: sent("hi there", "hi there")},
		{name: "reply object nested in the response", def: good(`{"response": "inner"}`), posted: sent("inner", "inner")},
	}
}

// outcome is what one row did.
type outcome struct {
	posted   []string
	mode     engine.Mode
	toasts   []string
	banners  []string
	requests int
	typed    []string // every insert/type command's text, to prove raw output never reached the box
}

// playTwoTriggers opens an Active conversation and sends two messages that address Clanker, one
// after the other with time for everything (retries included) to finish, then reports.
func playTwoTriggers(t *testing.T, r *Rig, srv *fakellm.Server, wait func(time.Duration)) outcome {
	t.Helper()
	send := func(ev engine.Event) {
		t.Helper()
		if err := r.Engine.Send(ev); err != nil {
			t.Fatalf("Send(%T): %v", ev, err)
		}
	}
	if err := r.SetMode("c1", engine.ModeActive); err != nil {
		t.Fatal(err)
	}
	r.Page.Show("c1")
	send(engine.PageStateChanged{State: engine.PageReady})
	send(engine.ConversationChanging{To: "c1"})
	send(engine.ConversationOpened{ID: "c1", Participants: []engine.Participant{{Name: "Ann"}},
		Messages: []engine.Message{{ID: "m0", Sender: "Ann", Direction: engine.Incoming, Text: "hi all"}}})
	wait(time.Second)
	for i := 1; i <= 2; i++ {
		send(engine.MessageAdded{Conversation: "c1", Message: engine.Message{ID: fmt.Sprintf("m%d", i),
			Sender: "Ann", Direction: engine.Incoming, Text: fmt.Sprintf("clanker, question %d?", i)}})
		wait(3 * time.Minute)
	}
	o := outcome{posted: r.Page.SentTexts(), mode: r.Mode("c1"), toasts: r.Page.Toasts(),
		banners: r.Page.Banners(engine.BannerDeactivated), requests: len(srv.Requests())}
	for _, c := range r.Page.Commands(engine.CmdInsertText, engine.CmdTypeText) {
		o.typed = append(o.typed, c.Text)
	}
	return o
}

// check compares an outcome with the row's expectations, and applies the rules every row obeys:
// nothing but prefixed, capped, non-raw text is ever posted or typed.
func check(t *testing.T, f fault, o outcome) {
	t.Helper()
	if strings.Join(o.posted, "\x00") != strings.Join(f.posted, "\x00") {
		t.Errorf("posted: want %s, got %s", show(f.posted), show(o.posted))
	}
	for _, p := range o.posted {
		body := strings.TrimPrefix(p, engine.Prefix)
		if !strings.HasPrefix(p, engine.Prefix) || strings.HasPrefix(body, "[clanker]") {
			t.Errorf("posted text %q does not start with exactly one prefix", engine.Clip(p, 80))
		}
		if n := utf8.RuneCountInString(body); n > 1600 {
			t.Errorf("posted text has %d runes after the prefix, over the 1600 cap", n)
		}
		low := strings.ToLower(body)
		for _, raw := range []string{`{"`, `"response"`, "<think", "</think"} {
			if strings.Contains(low, raw) {
				t.Errorf("raw model output posted: %q contains %q", engine.Clip(p, 80), raw)
			}
		}
		if strings.TrimSpace(low) == "null" {
			t.Errorf("the literal null was posted")
		}
	}
	box := strings.Join(o.typed, "")
	if want := strings.Join(o.posted, ""); box != want {
		t.Errorf("text put into the compose box (%d bytes) differs from the text sent (%d bytes)", len(box), len(want))
	}
	wantMode := engine.ModeActive
	if f.deactivated {
		wantMode = engine.ModeDeactivated
	}
	if o.mode != wantMode {
		t.Errorf("mode after: want %q, got %q", wantMode, o.mode)
	}
	var gotNote notice
	switch {
	case len(o.banners) > 0 && len(o.toasts) == 0:
		gotNote = banner
	case len(o.banners) > 0:
		gotNote = -1
	case len(o.toasts) == 1:
		gotNote = toastOnce
	case len(o.toasts) == 2:
		gotNote = toastEach
	case len(o.toasts) > 2:
		gotNote = -1
	}
	if gotNote != f.note {
		t.Errorf("notification: want %v, got toasts %q and banners %q", f.note, o.toasts, o.banners)
	}
	if f.noteHas != "" {
		for _, n := range append(o.toasts, o.banners...) {
			if !strings.Contains(strings.ToLower(n), strings.ToLower(f.noteHas)) {
				t.Errorf("notification %q does not mention %q", n, f.noteHas)
			}
		}
	}
	for _, n := range append(o.toasts, o.banners...) {
		if strings.Contains(n, testKey) {
			t.Errorf("notification shows the API key: %q", n)
		}
	}
}

func show(ss []string) string {
	if len(ss) == 0 {
		return "nothing"
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", engine.Clip(s, 80))
	}
	return strings.Join(out, ", ")
}

func startServer(t *testing.T, f fault) *fakellm.Server {
	t.Helper()
	srv, _ := fakellm.StartNew(fakellm.Config{APIKey: testKey, Default: &f.def})
	t.Cleanup(srv.Close)
	srv.Enqueue(f.queue...)
	return srv
}

// TestFaultCorpusPostsOnlyValidRepliesWithTheRightModeAndNotification plays every fault of the
// corpus against the real engine, LLM client and store, twice in a row, and compares what was
// posted, the mode afterwards and the notifications with the table. The server runs outside the
// synctest bubble and answers at once, so the fake clock covers every delay and Retry-After.
func TestFaultCorpusPostsOnlyValidRepliesWithTheRightModeAndNotification(t *testing.T) {
	table := faultTable()
	if len(table) < 40 {
		t.Fatalf("the corpus must hold at least 40 faults, has %d", len(table))
	}
	for _, f := range table {
		t.Run(f.name, func(t *testing.T) {
			srv := startServer(t, f)
			dir := t.TempDir()
			synctest.Test(t, func(t *testing.T) {
				r, err := Start(Options{Dir: dir, Endpoint: srv.BaseURL(), APIKey: testKey})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Stop()
				o := playTwoTriggers(t, r, srv, func(d time.Duration) { time.Sleep(d); synctest.Wait() })
				check(t, f, o)
				if o.requests == 0 {
					t.Errorf("want the model asked at least once, got no request")
				}
			})
		})
	}
}

// slowFaults need the real clock: a request blocked on the network is not durably blocked, so a
// synctest bubble's clock would never reach the client's timeout. The timeout is short and the
// margins wide (a 200 ms drip against a 5 s timeout; a hang against 1 s).
func slowFaults() []struct {
	fault
	timeout time.Duration
} {
	type row = struct {
		fault
		timeout time.Duration
	}
	return []row{
		{fault{name: "hung server times out", def: fakellm.Hung(), note: toastOnce, noteHas: "did not answer in time"}, time.Second},
		{fault{name: "answer later than the timeout", def: good("too late").WithLatency(time.Minute), note: toastOnce, noteHas: "did not answer in time"}, time.Second},
		{fault{name: "slow drip within the timeout", def: good("dripped in").WithDrip(10*time.Millisecond, 32), posted: sent("dripped in", "dripped in")}, 5 * time.Second},
		{fault{name: "drip slower than the timeout", def: good("never complete").WithDrip(time.Minute, 8), note: toastOnce, noteHas: "did not answer in time"}, time.Second},
	}
}

// TestSlowAndHungServersTimeOutWithOneToastAndPostNothing plays the slow rows on the real clock;
// it waits for conditions, not fixed sleeps: each trigger ends when the model request has ended
// and the engine has reacted.
func TestSlowAndHungServersTimeOutWithOneToastAndPostNothing(t *testing.T) {
	for _, row := range slowFaults() {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			srv := startServer(t, row.fault)
			r, err := Start(Options{Dir: t.TempDir(), Endpoint: srv.BaseURL(), APIKey: testKey, Timeout: row.timeout})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Stop()
			triggers := 0
			wait := func(d time.Duration) {
				if d < time.Minute {
					return // the settle after opening
				}
				triggers++
				// Done when this trigger's request has finished on the server and the
				// engine has either sent a text or shown a notification for it.
				testkit.WaitFor(t, 90*time.Second, fmt.Sprintf("trigger %d's request and the engine's reaction", triggers), func() (bool, string) {
					reqs := srv.Requests()
					finished := len(reqs) >= triggers && reqs[triggers-1].Outcome != ""
					snap, err := r.Engine.Snapshot(context.Background())
					if err != nil {
						t.Fatal(err)
					}
					reacted := len(r.Page.Sent()) >= triggers || snap.ErrorStreak >= triggers
					return finished && reacted, fmt.Sprintf("request finished %v, engine reacted %v", finished, reacted)
				})
			}
			check(t, row.fault, playTwoTriggers(t, r, srv, wait))
		})
	}
}
