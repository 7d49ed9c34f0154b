package chaostest

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/images"
	"github.com/clanker-desktop/clanker/app/llm"
	"github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/app/sqlite"
	"github.com/clanker-desktop/clanker/inject"
	"github.com/clanker-desktop/clanker/tests/browser"
	"github.com/clanker-desktop/clanker/tests/fakellm"
	"github.com/clanker-desktop/clanker/tests/simctl"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// bindingName is the CDP binding the bridge's events reach Go through. In the desktop app
// the same text travels over the Wails IPC channel; only the transport differs.
const bindingName = "__clankerBinding"

// hostScript stands in Wails' message handler (browser.WailsHost) on every new document,
// forwarding each event text to the CDP binding.
var hostScript = browser.WailsHost(`window.` + bindingName)

// testKey is the fake model server's API key; nothing here reaches a real provider.
const testKey = "sk-bchaos-0123456789abcdef"

// headless is the Clanker app without its window: every real part the desktop app wires in
// app/run, with a Chromium tab standing in for the web view and CDP for the native input.
type headless struct {
	t    *testing.T
	sim  *simctl.Server
	ctl  *simctl.Control
	llm  *fakellm.Server
	db   *sqlite.Store
	eng  *engine.Engine
	link *page.Link
	tab  context.Context
	log  *ringLog

	stopEngine context.CancelFunc
	engineDone chan struct{}

	// Bridge events are queued here by the CDP listener and handed to the link, in order,
	// by one goroutine, so the listener never blocks chromedp's event loop.
	qmu    sync.Mutex
	queue  [][]byte
	wake   chan struct{}
	closed chan struct{}
	pumped chan struct{}

	mu      sync.Mutex
	enters  int // trusted Enter presses the app delivered
	execErr int // commands that could not be run in the tab
	// selfVisit records the first time the engine "visited" the conversation already on
	// screen (see knownSelfVisit), or "" when it has not.
	selfVisit string
	// told are the banners and toasts the engine showed the user: the user-visible reasons
	// the liveness oracles accept for an owed answer not given.
	told []toldUser
}

// toldUser is one banner or toast the engine asked the page to show.
type toldUser struct {
	at                time.Time
	kind, level, text string
	conv              string
}

// watchedPage is the page link as the engine sees it, noting what the engine tells the user.
type watchedPage struct{ h *headless }

func (p watchedPage) Do(cmd engine.Command) {
	if (cmd.Kind == engine.CmdBanner && cmd.Text != "") || cmd.Kind == engine.CmdToast {
		p.h.mu.Lock()
		p.h.told = append(p.h.told, toldUser{at: time.Now(), kind: string(cmd.Kind), level: cmd.Level, text: cmd.Text, conv: string(cmd.Conversation)})
		p.h.mu.Unlock()
	}
	p.h.link.Do(cmd)
}

// knownBug is the description of the known engine bug once the run has seen it.
func (h *headless) knownBug() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.selfVisit
}

// watchLog looks for engine log lines that reveal a known engine bug.
func (h *headless) watchLog(rec slog.Record) {
	if !strings.HasPrefix(rec.Message, "engine: inactive conversation did not open") {
		return
	}
	var conv string
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == "conversation" {
			conv = a.Value.String()
		}
		return true
	})
	if conv != "" && conv == h.link.Current() {
		h.mu.Lock()
		if h.selfVisit == "" {
			h.selfVisit = fmt.Sprintf("at %s the engine tried to visit %s as an inactive conversation while the page showed it; the navigation could not 'open' it and failed after 10 s behind the processing overlay",
				rec.Time.Format("15:04:05.000"), conv)
		}
		h.mu.Unlock()
	}
}

// engineSettings are the settings of a configured user who wants background conversations
// processed (so sidebar activity makes the engine visit them) and replies inserted at once
// (the human-like typing would make each reply take seconds).
func engineSettings() engine.Settings {
	s := engine.DefaultSettings()
	s.Endpoint, s.Model, s.UserName = "http://127.0.0.1/v1", "fake-model", "Dana"
	s.RelaxedResponsiveness = false
	s.InactiveMode = engine.InactiveProcess
	s.QuietStartHour, s.QuietStopHour = 0, 0 // no quiet hours: the test runs at any hour
	return s
}

// startHeadless builds the app for one seed in tab, on its own simulator, model server and
// database, and opens the first conversation.
func startHeadless(t *testing.T, tab context.Context, seed uint64, w *world, vs []sim.Variant) *headless {
	t.Helper()
	h := &headless{t: t, tab: tab, log: newRingLog(400), wake: make(chan struct{}, 1),
		closed: make(chan struct{}), pumped: make(chan struct{})}
	h.log.watch = h.watchLog
	logger := slog.New(h.log)

	s, err := simctl.Start(sim.Options{Seed: seed, Empty: true, Variants: vs, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("start the simulator: %v", err)
	}
	h.sim, h.ctl = s, s.Control()
	if err := w.create(h.ctl); err != nil {
		s.Close()
		t.Fatalf("create the conversations: %v", err)
	}

	demo := fakellm.Demo()
	h.llm, _ = fakellm.StartNew(fakellm.Config{APIKey: testKey, Default: &demo})

	db, err := sqlite.Open(t.TempDir())
	if err != nil {
		t.Fatalf("open the store: %v", err)
	}
	db.Secrets = nil
	db.Log = logger
	h.db = db

	h.link, err = page.NewLink(page.LinkConfig{
		Exec:         h.exec,
		Input:        cdpInput{h},
		Events:       func(ev engine.Event) error { return h.eng.Send(ev) },
		EnterTimeout: 10 * time.Second,
		Logger:       logger,
	})
	if err != nil {
		t.Fatalf("page link: %v", err)
	}
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	base := h.llm.BaseURL()
	adapter := &llm.EngineAdapter{
		Config: func(string) (llm.Config, error) {
			return llm.Config{Endpoint: base, APIKey: testKey, Model: "fake-model", HTTPClient: hc,
				Timeout: 4 * time.Second, Logger: logger}, nil
		},
		Memory: db, Usage: db, Budget: db,
		Images: images.NewPreparer(8<<20, db, logger), Logger: logger,
	}
	es := engineSettings()
	h.eng, err = engine.New(engine.Config{Page: watchedPage{h}, Store: db.Engine(), LLM: adapter,
		Rand: rand.New(rand.NewPCG(seed, 7)), Location: time.UTC, Settings: &es, HasAPIKey: true, Logger: logger})
	if err != nil {
		t.Fatalf("engine.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.stopEngine, h.engineDone = cancel, make(chan struct{})
	go func() { _ = h.eng.Run(ctx); close(h.engineDone) }()
	go h.pump()

	script, err := page.SealScript(inject.Script(), h.link.Nonce())
	if err != nil {
		t.Fatalf("seal the bridge script: %v", err)
	}
	chromedp.ListenTarget(tab, func(ev any) {
		if e, ok := ev.(*runtime.EventBindingCalled); ok && e.Name == bindingName {
			h.enqueue([]byte(e.Payload))
		}
	})
	browser.Run(t, tab, "install the bridge", runtime.Enable(), runtime.AddBinding(bindingName),
		chromedp.ActionFunc(func(ctx context.Context) error {
			if _, err := cdppage.AddScriptToEvaluateOnNewDocument(hostScript).Do(ctx); err != nil {
				return err
			}
			_, err := cdppage.AddScriptToEvaluateOnNewDocument(script).Do(ctx)
			return err
		}),
		chromedp.Navigate(s.ConversationURL(w.convs[0].id)))
	w.current = 0
	h.waitFor("the bridge to report the first conversation to the engine", 30*time.Second, func() (bool, string) {
		snap, err := h.snapshot()
		if err != nil {
			return false, err.Error()
		}
		return snap.Foreground != nil && string(snap.Foreground.ID) == w.convs[0].id && !snap.Foreground.Switching,
			fmt.Sprintf("page state %q, link shows %q", h.link.PageState(), h.link.Current())
	})
	return h
}

// close stops everything this seed started; the browser stays for the next seed.
func (h *headless) close() {
	ctx, cancel := context.WithTimeout(h.tab, 5*time.Second)
	_ = chromedp.Run(ctx, chromedp.Navigate("about:blank")) // ends the page's event stream
	cancel()
	h.stopEngine()
	<-h.engineDone
	close(h.closed)
	<-h.pumped
	h.link.Close()
	if err := h.db.Close(); err != nil {
		h.t.Errorf("close the store: %v", err)
	}
	h.llm.Close()
	if err := h.sim.Close(); err != nil {
		h.t.Logf("close the simulator: %v", err)
	}
}

func (h *headless) enqueue(raw []byte) {
	h.qmu.Lock()
	h.queue = append(h.queue, raw)
	h.qmu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// pump hands queued bridge events to the link in arrival order, as the shell's IPC handler
// does.
func (h *headless) pump() {
	defer close(h.pumped)
	for {
		h.qmu.Lock()
		batch := h.queue
		h.queue = nil
		h.qmu.Unlock()
		for _, raw := range batch {
			h.link.HandleRaw(raw)
		}
		select {
		case <-h.wake:
		case <-h.closed:
			return
		}
	}
}

// exec runs one encoded bridge command in the tab, like the shell's ExecJS.
func (h *headless) exec(js string) error {
	ctx, cancel := context.WithTimeout(h.tab, 10*time.Second)
	defer cancel()
	err := chromedp.Run(ctx, chromedp.Evaluate(js, nil))
	if err != nil {
		h.mu.Lock()
		h.execErr++
		h.mu.Unlock()
	}
	return err
}

// cdpInput is the native keyboard: CDP Input.dispatchKeyEvent reaches the page as trusted
// key events (event.isTrusted), exactly what the simulator's send path demands.
type cdpInput struct{ h *headless }

func (c cdpInput) PressEnter(ctx context.Context) error {
	runCtx, cancel := context.WithTimeout(c.h.tab, 10*time.Second)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	if err := chromedp.Run(runCtx, chromedp.KeyEvent(kb.Enter)); err != nil {
		return err
	}
	c.h.mu.Lock()
	c.h.enters++
	c.h.mu.Unlock()
	return nil
}

func (h *headless) snapshot() (engine.Snapshot, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return h.eng.Snapshot(ctx)
}

// quiet reports whether the engine has nothing under way: no reading delay running, no
// request in flight, nothing being sent or queued, no visit to a background conversation.
func (h *headless) quiet() (bool, string) {
	s, err := h.snapshot()
	if err != nil {
		return false, err.Error()
	}
	if fg := s.Foreground; fg != nil && !fg.Switching && slices.Contains(s.VisitQueue, fg.ID) {
		h.mu.Lock()
		if h.selfVisit == "" {
			h.selfVisit = fmt.Sprintf("the conversation on screen (%s) is queued for a visit as an inactive conversation", fg.ID)
		}
		h.mu.Unlock()
	}
	// What waits for the user's draft on screen (an answer there, a visit elsewhere) waits for
	// the box to empty, by design, and counts as quiet only while the pill and the menus say
	// that Clanker waits for it (WaitingForDraft): a wait nobody is told about is silence.
	held := s.Foreground != nil && s.Foreground.Draft && s.WaitingForDraft
	pending := s.Foreground != nil && ((s.Foreground.Pending && !held) || s.Foreground.Switching)
	ok := !pending && s.InFlight == nil && !s.Sending && (s.QueuedSends == 0 || held) && s.Visiting == "" && (len(s.VisitQueue) == 0 || held)
	return ok, fmt.Sprintf("pending=%v inflight=%v sending=%v queued=%d visiting=%q visitQueue=%d draft=%v waitingShown=%v",
		pending, s.InFlight != nil, s.Sending, s.QueuedSends, s.Visiting, len(s.VisitQueue), s.Foreground != nil && s.Foreground.Draft, s.WaitingForDraft)
}

// sentLog is the simulator's send log (nil when it cannot be read; check reports that).
func (h *headless) sentLog() []sim.Send {
	out, _ := h.ctl.Sent()
	return out
}

// waitFor is testkit.Poll that fails the test when the condition never comes true.
func (h *headless) waitFor(what string, timeout time.Duration, cond func() (bool, string)) {
	h.t.Helper()
	if ok, why := testkit.Poll(timeout, cond); !ok {
		h.t.Fatalf("waited %v for %s; last: %s\nrecent log:\n%s", timeout, what, why, h.log.String())
	}
}

// mode is the conversation's stored mode (Deactivated when never stored).
func (h *headless) mode(conv string) engine.Mode {
	c, _, err := h.db.Conversation(context.Background(), conv)
	if err != nil || c.Mode == "" {
		return engine.ModeDeactivated
	}
	return engine.Mode(c.Mode)
}

// ringLog is a slog handler keeping the newest lines, shown when a seed fails.
type ringLog struct {
	mu    sync.Mutex
	lines []string
	max   int
	attrs []slog.Attr
	// watch, when set, sees every record (on the logging goroutine; it must not block).
	watch func(slog.Record)
}

func newRingLog(n int) *ringLog { return &ringLog{max: n} }

func (r *ringLog) Enabled(context.Context, slog.Level) bool { return true }

func (r *ringLog) Handle(_ context.Context, rec slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s", rec.Time.Format("15:04:05.000"), rec.Level, rec.Message)
	for _, a := range r.attrs {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
	}
	rec.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	r.mu.Lock()
	r.lines = append(r.lines, b.String())
	if len(r.lines) > r.max {
		r.lines = r.lines[len(r.lines)-r.max:]
	}
	watch := r.watch
	r.mu.Unlock()
	if watch != nil {
		watch(rec)
	}
	return nil
}

func (r *ringLog) WithAttrs(as []slog.Attr) slog.Handler {
	r.mu.Lock()
	defer r.mu.Unlock()
	return &ringView{r: r, attrs: append(append([]slog.Attr(nil), r.attrs...), as...)}
}

func (r *ringLog) WithGroup(string) slog.Handler { return r }

func (r *ringLog) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.lines, "\n")
}

// ringView is a ringLog with attributes attached (logger.With), writing to the same ring.
type ringView struct {
	r     *ringLog
	attrs []slog.Attr
}

func (v *ringView) Enabled(context.Context, slog.Level) bool { return true }
func (v *ringView) Handle(ctx context.Context, rec slog.Record) error {
	rec = rec.Clone()
	rec.AddAttrs(v.attrs...)
	return v.r.Handle(ctx, rec)
}
func (v *ringView) WithAttrs(as []slog.Attr) slog.Handler {
	return &ringView{r: v.r, attrs: append(append([]slog.Attr(nil), v.attrs...), as...)}
}
func (v *ringView) WithGroup(string) slog.Handler { return v }
