package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/images"
	"github.com/clanker-desktop/clanker/tests/enginefake"
	"github.com/clanker-desktop/clanker/tests/fakellm"
)

// These tests run the real engine, the adapter and the real HTTP client against tests/fakellm on
// loopback. The fake server is started outside the synctest bubble and the client's transport
// keeps no idle connections, so every goroutine in the bubble ends up durably blocked and the
// fake clock drives the engine's delays, the client's Retry-After waits and the typing.

// timedTransport records, on the bubble's fake clock, when each HTTP request left.
type timedTransport struct {
	mu    sync.Mutex
	base  http.RoundTripper
	times []time.Time
}

func (t *timedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.mu.Lock()
	t.times = append(t.times, time.Now())
	t.mu.Unlock()
	return t.base.RoundTrip(r)
}

func (t *timedTransport) sentAt() []time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]time.Time(nil), t.times...)
}

type e2e struct {
	t     *testing.T
	srv   *fakellm.Server
	eng   *engine.Engine
	page  *enginefake.Page
	store *enginefake.Store
	tr    *timedTransport
}

// startE2E must be called inside synctest.Test with a server started outside it.
func startE2E(t *testing.T, srv *fakellm.Server, relaxed bool) *e2e {
	t.Helper()
	h := &e2e{t: t, srv: srv, page: enginefake.NewPage(), store: enginefake.NewStore(),
		tr: &timedTransport{base: &http.Transport{DisableKeepAlives: true}}}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	hc := &http.Client{Transport: h.tr}
	adapter := &EngineAdapter{
		Config: func(string) (Config, error) {
			return Config{Endpoint: srv.BaseURL(), APIKey: "sk-e2e", Model: "fake-model", HTTPClient: hc, MaxRetryWait: time.Minute}, nil
		},
		Memory: h.store, Usage: h.store, Images: images.NewPreparer(1<<20, nil, quiet), Logger: quiet,
	}
	s := engine.DefaultSettings()
	s.Endpoint, s.Model, s.UserName, s.RelaxedResponsiveness = srv.BaseURL(), "fake-model", "Dana", relaxed
	eng, err := engine.New(engine.Config{Page: h.page, Store: h.store, LLM: adapter, Rand: rand.New(rand.NewPCG(7, 9)),
		Location: time.UTC, Settings: &s, HasAPIKey: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	h.eng = eng
	h.page.Attach(eng.Send)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = eng.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	h.send(engine.PageStateChanged{State: engine.PageReady})
	return h
}

func (h *e2e) send(ev engine.Event) {
	h.t.Helper()
	if err := h.eng.Send(ev); err != nil {
		h.t.Fatalf("Send(%T): %v", ev, err)
	}
	synctest.Wait()
}

func (h *e2e) open(conv engine.ConversationID, mode engine.Mode, msgs ...engine.Message) {
	h.store.SetMode(conv, mode)
	h.page.Show(conv)
	h.send(engine.ConversationChanging{To: conv})
	h.send(engine.ConversationOpened{ID: conv, Participants: []engine.Participant{{Name: "Ann"}}, Messages: msgs})
}

func (h *e2e) receive(conv engine.ConversationID, m engine.Message) {
	h.send(engine.MessageAdded{Conversation: conv, Message: m})
}

func (h *e2e) wait(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

func (h *e2e) toasts() []string {
	var out []string
	for _, c := range h.page.Commands(engine.CmdToast) {
		out = append(out, c.Text)
	}
	return out
}

var e2eSeq int

func ann(text string) engine.Message {
	e2eSeq++
	return engine.Message{ID: fmt.Sprintf("a%d", e2eSeq), Sender: "Ann", Direction: engine.Incoming, Text: text}
}

func startFake(t *testing.T) *fakellm.Server {
	t.Helper()
	srv, _ := fakellm.StartNew(fakellm.Config{APIKey: "sk-e2e"})
	t.Cleanup(srv.Close)
	return srv
}

func TestHeyClankerInAvailableModeTypesExactlyOnePrefixedReplyAndPressesEnter(t *testing.T) {
	srv := startFake(t)
	synctest.Test(t, func(t *testing.T) {
		h := startE2E(t, srv, true)
		h.store.SetMemory("c1", engine.Memory{Summary: "Ann and Dana plan a picnic."})
		srv.Enqueue(fakellm.JSONReply("Saturday works!", "Picnic on Saturday.").WithUsage(200, 12))
		h.open("c1", engine.ModeAvailable, ann("morning"))
		h.receive("c1", ann("hey clanker, when should we go?"))
		h.wait(30 * time.Second)

		if got := h.page.SentTexts(); len(got) != 1 || got[0] != "[clanker] Saturday works!" {
			t.Fatalf("want exactly one sent text %q, got %q", "[clanker] Saturday works!", got)
		}
		ins := h.page.Commands(engine.CmdInsertText)
		if len(ins) != 1 || ins[0].Text != engine.Prefix {
			t.Fatalf("want the prefix inserted once at the start of typing, got %+v", ins)
		}
		if n, want := len(h.page.Commands(engine.CmdTypeText)), len("Saturday works!"); n != want {
			t.Errorf("want %d typed characters, got %d", want, n)
		}
		if n := len(h.page.Commands(engine.CmdPressEnter)); n != 1 {
			t.Errorf("want exactly one Enter, got %d", n)
		}
		reqs := srv.Requests()
		if len(reqs) != 1 {
			t.Fatalf("want one model request, got %d", len(reqs))
		}
		body := string(reqs[0].Body)
		for _, want := range []string{"Ann and Dana plan a picnic.", "Ann: hey clanker, when should we go?", "The local user is Dana"} {
			if !strings.Contains(body, want) {
				t.Errorf("want the request to contain %q; body: %.400s", want, body)
			}
		}
		if h.store.Memory("c1").Summary != "Picnic on Saturday." {
			t.Errorf("want the new summary stored under c1, got %q", h.store.Memory("c1").Summary)
		}
		u := h.store.Usage()
		if len(u) != 1 || u[0].Conversation != "c1" || u[0].Model != "fake-model" || u[0].Tokens.Prompt != 200 || u[0].Tokens.Completion != 12 {
			t.Errorf("want one usage record c1/fake-model 200+12, got %+v", u)
		}
	})
}

func TestUnpostableModelOutputPostsNothing(t *testing.T) {
	cases := []struct {
		name      string
		replies   []fakellm.Reply
		wantToast bool
	}{
		{"broken JSON", []fakellm.Reply{fakellm.Text(`{"response": "I was going to say`)}, true},
		{"broken envelope", []fakellm.Reply{fakellm.MalformedBody()}, true},
		{"truncated twice", []fakellm.Reply{fakellm.Truncated(`{"response": "I was about to`), fakellm.Truncated(`{"response": "I was about to say`)}, true},
		{"null literal", []fakellm.Reply{fakellm.Text("null")}, false},
		{"null response", []fakellm.Reply{fakellm.NullReply()}, false},
		{"reasoning only", []fakellm.Reply{fakellm.Text("<think>The user wants a reply, so I should")}, true},
		{"JSON without reply fields", []fakellm.Reply{fakellm.Text(`{"answer": "hi"}`)}, true},
		{"empty content", []fakellm.Reply{fakellm.Text("")}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := startFake(t)
			synctest.Test(t, func(t *testing.T) {
				h := startE2E(t, srv, false)
				srv.Enqueue(tc.replies...)
				h.open("c1", engine.ModeActive, ann("hi"))
				h.receive("c1", ann("clanker, tell me something"))
				h.wait(30 * time.Second)
				if got := h.page.SentTexts(); len(got) != 0 {
					t.Fatalf("want nothing sent for %s, got %q", tc.name, got)
				}
				if n := len(h.page.Commands(engine.CmdInsertText)); n != 0 {
					t.Fatalf("want nothing inserted into the box, got %d inserts", n)
				}
				if n := len(srv.Requests()); n != len(tc.replies) {
					t.Errorf("want %d model requests, got %d", len(tc.replies), n)
				}
				if got := len(h.toasts()) > 0; got != tc.wantToast {
					t.Errorf("want toast=%v, got toasts %q", tc.wantToast, h.toasts())
				}
			})
		})
	}
}

func TestInvalidKeyDeactivatesWithABannerAndNoSMS(t *testing.T) {
	srv := startFake(t)
	synctest.Test(t, func(t *testing.T) {
		h := startE2E(t, srv, false)
		srv.Enqueue(fakellm.OpenAIError(401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided"))
		h.open("c1", engine.ModeActive, ann("hi"))
		h.receive("c1", ann("clanker?"))
		h.wait(30 * time.Second)
		if got := h.page.SentTexts(); len(got) != 0 {
			t.Fatalf("want no SMS after a 401, got %q", got)
		}
		if rec, _ := h.store.Record("c1"); rec.Mode != engine.ModeDeactivated {
			t.Fatalf("want c1 stored as deactivated, got %q", rec.Mode)
		}
		var banner string
		for _, c := range h.page.Commands(engine.CmdBanner) {
			if c.Key == engine.BannerDeactivated {
				banner = c.Text
			}
		}
		if !strings.Contains(banner, "Invalid API key") || !strings.HasSuffix(banner, "Clanker has been deactivated.") {
			t.Fatalf("want a deactivation banner naming the invalid key, got %q", banner)
		}
		h.receive("c1", ann("clanker, are you there?"))
		h.wait(30 * time.Second)
		if n := len(srv.Requests()); n != 1 {
			t.Fatalf("want no further requests once deactivated, got %d in all", n)
		}
	})
}

func TestServerErrorTwiceToastsOnceAndNotFoundToastsEachTime(t *testing.T) {
	srv := startFake(t)
	synctest.Test(t, func(t *testing.T) {
		h := startE2E(t, srv, false)
		srv.Enqueue(fakellm.OpenAIError(500, "server_error", nil, "boom"), fakellm.OpenAIError(500, "server_error", nil, "boom"))
		h.open("c1", engine.ModeActive, ann("hi"))
		h.receive("c1", ann("one"))
		h.wait(10 * time.Second)
		h.receive("c1", ann("two"))
		h.wait(10 * time.Second)
		if got := h.toasts(); len(got) != 1 || !strings.Contains(got[0], "500") {
			t.Fatalf("want one toast for two 500s in a row, got %q", got)
		}

		srv.Enqueue(fakellm.OpenAIError(404, "invalid_request_error", "model_not_found", "no such model"),
			fakellm.OpenAIError(404, "invalid_request_error", "model_not_found", "no such model"))
		h.receive("c1", ann("three"))
		h.wait(10 * time.Second)
		h.receive("c1", ann("four"))
		h.wait(10 * time.Second)
		got := h.toasts()
		if len(got) != 3 || !strings.Contains(got[1], "not found") || !strings.Contains(got[2], "not found") {
			t.Fatalf("want a toast for each 404 after the 500 one, got %q", got)
		}
		if n := len(h.page.SentTexts()); n != 0 {
			t.Fatalf("want nothing sent on errors, got %d texts", n)
		}
	})
}

func TestRetryAfterIsHonouredBeforeTheReplyIsPosted(t *testing.T) {
	srv := startFake(t)
	synctest.Test(t, func(t *testing.T) {
		h := startE2E(t, srv, false)
		srv.Enqueue(fakellm.OpenAIError(429, "requests", "rate_limit_exceeded", "Rate limit reached").WithRetryAfter(7),
			fakellm.JSONReply("sorry for the wait", ""))
		h.open("c1", engine.ModeActive, ann("hi"))
		h.receive("c1", ann("clanker, ping"))
		h.wait(30 * time.Second)
		at := h.tr.sentAt()
		if len(at) != 2 {
			t.Fatalf("want the rate-limited request retried once, got %d requests", len(at))
		}
		if d := at[1].Sub(at[0]); d != 7*time.Second {
			t.Errorf("want the retry exactly 7 s (Retry-After) after the first attempt, got %v", d)
		}
		if got := h.page.SentTexts(); len(got) != 1 || got[0] != "[clanker] sorry for the wait" {
			t.Fatalf("want the reply after the retry, got %q", got)
		}
		if got := h.toasts(); len(got) != 0 {
			t.Errorf("want no toast for a rate limit that resolved, got %q", got)
		}
	})
}

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			i := img.PixOffset(x, y)
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = uint8(x), uint8(y), 90, 255
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRequestedImageIsFetchedOptimisedAndSentInTheFollowUp(t *testing.T) {
	srv := startFake(t)
	synctest.Test(t, func(t *testing.T) {
		h := startE2E(t, srv, false)
		src := "blob:https://messages.google.com/pic-1"
		h.page.Lock()
		h.page.Images[src] = pngBytes(t, 480, 240)
		h.page.Unlock()
		h.store.SetMemory("c1", engine.Memory{Profiles: map[string]string{"Ann": "loves sunsets"}})
		srv.Enqueue(fakellm.Text(`{"requestImage": "`+src+`", "summary": "Ann shared a photo."}`),
			fakellm.JSONReply("What a sunset!", ""))
		h.open("c1", engine.ModeActive, ann("hi"))
		pic := ann("look clanker")
		pic.Images = []engine.Image{{Src: src, Alt: "sunset over a lake"}}
		h.receive("c1", pic)
		h.wait(30 * time.Second)

		reqs := srv.Requests()
		if len(reqs) != 2 {
			t.Fatalf("want the request and its image follow-up, got %d requests", len(reqs))
		}
		imgs := reqs[1].Images()
		if len(imgs) != 1 || !strings.HasPrefix(imgs[0].ImageURL, "data:image/jpeg;base64,") {
			t.Fatalf("want one JPEG data URL in the follow-up, got %+v", imgs)
		}
		follow := string(reqs[1].Body)
		if !strings.Contains(follow, "448x224") || !strings.Contains(follow, "sunset over a lake") || !strings.Contains(follow, "loves sunsets") {
			t.Errorf("want the follow-up to carry the 448x224 size, the alt text and the profiles; body ends: %s", follow[max(0, len(follow)-600):])
		}
		if got := h.page.SentTexts(); len(got) != 1 || got[0] != "[clanker] What a sunset!" {
			t.Fatalf("want the answer after seeing the image, got %q", got)
		}
		if h.store.Memory("c1").Summary != "Ann shared a photo." {
			t.Errorf("want the summary from the image request kept, got %q", h.store.Memory("c1").Summary)
		}
	})
}

func TestUnreadableImageIsDescribedAsUnavailableAndStillAnswered(t *testing.T) {
	srv := startFake(t)
	synctest.Test(t, func(t *testing.T) {
		h := startE2E(t, srv, false)
		heic := "blob:https://messages.google.com/heic"
		missing := "blob:https://messages.google.com/gone"
		h.page.Lock()
		h.page.Images[heic] = append([]byte("\x00\x00\x00\x18ftypheic"), make([]byte, 64)...)
		h.page.Unlock()
		srv.Enqueue(fakellm.Text(`{"requestImage": "`+heic+`"}`), fakellm.JSONReply("I can't open that one.", ""),
			fakellm.Text(`{"requestImage": "`+missing+`"}`), fakellm.Text(`{"response": "Can't see it.", "requestImage": "`+heic+`"}`))
		h.open("c1", engine.ModeActive, ann("hi"))
		m1 := ann("clanker look")
		m1.Images = []engine.Image{{Src: heic}}
		h.receive("c1", m1)
		h.wait(20 * time.Second)
		m2 := ann("and this one")
		m2.Images = []engine.Image{{Src: missing}}
		h.receive("c1", m2)
		h.wait(20 * time.Second)

		reqs := srv.Requests()
		if len(reqs) != 4 {
			t.Fatalf("want two requests with two follow-ups, got %d", len(reqs))
		}
		if last := reqs[1].LastUserText(); !strings.Contains(last, "IMAGE UNAVAILABLE") || !strings.Contains(last, "not supported") {
			t.Errorf("want the HEIC described as an unsupported format, got %q", last)
		}
		if last := reqs[3].LastUserText(); !strings.Contains(last, "IMAGE UNAVAILABLE") || !strings.Contains(last, "could not fetch") {
			t.Errorf("want the failed fetch described as unavailable, got %q", last)
		}
		if n := len(reqs[1].Images()) + len(reqs[3].Images()); n != 0 {
			t.Errorf("want no image parts for unavailable images, got %d", n)
		}
		want := []string{"[clanker] I can't open that one.", "[clanker] Can't see it."}
		if got := h.page.SentTexts(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("want %q (a second image request in the follow-up ignored), got %q", want, got)
		}
	})
}

func TestActivationGreetingComesFromTheModelThroughTheAdapter(t *testing.T) {
	srv := startFake(t)
	synctest.Test(t, func(t *testing.T) {
		h := startE2E(t, srv, true)
		srv.Enqueue(fakellm.JSONReply("Hi all, Clanker here!", ""))
		h.open("c1", engine.ModeDeactivated, ann("hi"))
		h.send(engine.SetMode{Mode: engine.ModeActive, Source: "test"})
		h.wait(10 * time.Second)
		reqs := srv.Requests()
		if len(reqs) != 1 || !strings.Contains(reqs[0].LastUserText(), "switched on") {
			t.Fatalf("want one activation request carrying the activation instruction, got %d", len(reqs))
		}
		if got := h.page.SentTexts(); len(got) != 1 || got[0] != "[clanker] Hi all, Clanker here!" {
			t.Fatalf("want the model's greeting sent once, got %q", got)
		}
		if n := len(h.page.Commands(engine.CmdTypeText)); n != 0 {
			t.Errorf("want announcements inserted whole, got %d typing steps", n)
		}
	})
}

func TestContextThatCannotBeLoadedStopsTheRequestWithAClearError(t *testing.T) {
	srv := startFake(t)
	synctest.Test(t, func(t *testing.T) {
		h := startE2E(t, srv, false)
		h.store.Lock()
		h.store.FailLoadMemory = errors.New("database is locked")
		h.store.Unlock()
		h.open("c1", engine.ModeActive, ann("hi"))
		h.receive("c1", ann("clanker?"))
		h.wait(10 * time.Second)
		if n := len(srv.Requests()); n != 0 {
			t.Fatalf("want no model request without the stored memory, got %d", n)
		}
		if got := h.toasts(); len(got) != 1 || !strings.Contains(got[0], "memory") {
			t.Fatalf("want one toast saying the memory could not be read, got %q", got)
		}
	})
}

func TestRepliesMapToEngineUpdates(t *testing.T) {
	cases := []struct {
		raw  string
		want func(engine.Reply) bool
		desc string
	}{
		{`{"response": "hi", "summary": "S"}`, func(r engine.Reply) bool {
			return r.Text == "hi" && r.Update.Summary != nil && *r.Update.Summary == "S" && !r.Update.CustomizationSet && !r.Update.ProfilesSet
		}, "summary set, others untouched"},
		{`{"response": null, "customization": null}`, func(r engine.Reply) bool {
			return r.Text == "" && r.Update.CustomizationSet && r.Update.Customization == nil
		}, "customization null clears"},
		{`{"response": "ok", "customization": "pirate"}`, func(r engine.Reply) bool {
			return r.Update.CustomizationSet && r.Update.Customization != nil && *r.Update.Customization == "pirate"
		}, "customization replaced"},
		{`{"response": "ok", "profiles": {"Ann": "hikes"}}`, func(r engine.Reply) bool {
			return r.Update.ProfilesSet && r.Update.Profiles["Ann"] == "hikes"
		}, "profiles replaced"},
		{`{"response": "ok", "profiles": {}}`, func(r engine.Reply) bool {
			return r.Update.ProfilesSet && len(r.Update.Profiles) == 0
		}, "empty profiles clear"},
		{`{"response": "[clanker] hello"}`, func(r engine.Reply) bool { return r.Text == "hello" }, "model prefix removed"},
		{`{"requestImage": "blob:x"}`, func(r engine.Reply) bool { return r.RequestImage == "blob:x" && r.Text == "" }, "image request"},
	}
	for _, tc := range cases {
		got, _, err := ParseReply(tc.raw)
		if err != nil {
			t.Fatalf("%s: parse %s: %v", tc.desc, tc.raw, err)
		}
		if !tc.want(got) {
			t.Errorf("%s: unexpected engine reply %+v for %s", tc.desc, got, tc.raw)
		}
	}
}

func TestErrorsMapToEngineClasses(t *testing.T) {
	cases := []struct {
		err  error
		want engine.ErrorClass
	}{
		{ClassifyHTTP(401, nil, nil), engine.ErrAuth},
		{ClassifyHTTP(403, nil, []byte(`{"error":{"message":"forbidden"}}`)), engine.ErrAuth},
		{ClassifyHTTP(402, nil, nil), engine.ErrQuota},
		{ClassifyHTTP(429, nil, []byte(`{"error":{"message":"You exceeded your current quota","code":429}}`)), engine.ErrQuota},
		{ClassifyHTTP(429, nil, []byte(`{"error":{"message":"slow down"}}`)), engine.ErrRateLimit},
		{ClassifyHTTP(503, nil, nil), engine.ErrServer},
		{networkError(errors.New("dial")), engine.ErrNetwork},
		{ClassifyHTTP(404, nil, nil), engine.ErrModel},
		{ClassifyHTTP(418, nil, nil), engine.ErrUnknown},
		{fmt.Errorf("%w (max_tokens 2048)", ErrTruncated), engine.ErrModel},
		{ErrMalformedJSON, engine.ErrModel},
		{ErrReasoningOnly, engine.ErrModel},
	}
	for _, tc := range cases {
		got := engineError(tc.err)
		if got.Class != tc.want || got.UserText == "" {
			t.Errorf("%v: want class %s with a user sentence, got %s %q", tc.err, tc.want, got.Class, got.UserText)
		}
	}
}

// The model the engine names in the request is the one asked, and the one the usage is
// recorded under: a conversation's own model chosen in the settings window.
func TestTheRequestsModelIsTheOneAskedAndRecorded(t *testing.T) {
	srv := startFake(t)
	synctest.Test(t, func(t *testing.T) {
		h := startE2E(t, srv, true)
		srv.Enqueue(fakellm.JSONReply("Saturday works!", "Picnic on Saturday.").WithUsage(200, 12))
		h.store.Put(engine.Conversation{ID: "c1", Mode: engine.ModeAvailable, Announced: engine.ModeAvailable, ModelOverride: "special-model"})
		h.page.Show("c1")
		h.send(engine.ConversationChanging{To: "c1"})
		h.send(engine.ConversationOpened{ID: "c1", Participants: []engine.Participant{{Name: "Ann"}}, Messages: []engine.Message{ann("morning")}})
		h.receive("c1", ann("hey clanker, when should we go?"))
		h.wait(30 * time.Second)
		reqs := srv.Requests()
		if len(reqs) != 1 || reqs[0].Model != "special-model" {
			t.Fatalf("want one request for the conversation's model, got %+v", reqs)
		}
		if u := h.store.Usage(); len(u) != 1 || u[0].Model != "special-model" {
			t.Fatalf("want the usage recorded under the conversation's model, got %+v", u)
		}
	})
}
