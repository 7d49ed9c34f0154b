package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// Config wires an Engine to the outside world.
type Config struct {
	Page  Page
	Store Store
	LLM   LLM
	// Rand drives every random delay; tests pass a seeded source so delays are reproducible.
	// Nil means a randomly seeded generator.
	Rand *rand.Rand
	// Logger receives structured logs; nil means slog.Default(). Message bodies are never
	// logged above debug level.
	Logger *slog.Logger
	// Location is used for quiet hours; nil means time.Local.
	Location *time.Location
	// Settings are the initial settings; nil means DefaultSettings().
	Settings *Settings
	// HasAPIKey says whether an API key is stored; Settings never holds the key itself.
	HasAPIKey bool
	// Desktop carries out the desktop notifications and the window's call for attention
	// (desktop.go); nil means there is no desktop to tell.
	Desktop Desktop
}

// Fixed timing rules and limits (reading time, reply delays, typing, visits, images, kept history),
// kept together so the tests and the code cannot drift apart.
const (
	readingFloor       = 800 * time.Millisecond
	readingCap         = 15 * time.Second
	flatDelayMin       = 1500 * time.Millisecond
	flatDelayMax       = 2000 * time.Millisecond
	typingCap          = 8 * time.Second
	typingMinPerChar   = 500 * time.Microsecond
	idleThreshold      = 10 * time.Minute
	navigationTimeout  = 10 * time.Second
	visitRetryPause    = 30 * time.Second
	visitUserPause     = 5 * time.Second // after the page refused a visit because the user was using the window
	maxVisitFailures   = 3
	imageFetchTimeout  = 20 * time.Second
	keepMessages       = 600
	processingTimeout  = 60 * time.Second
	processingSettle   = time.Second
	newsInterval       = 5 * time.Minute
	newsMinIdle        = 2 * time.Hour
	newsMinGap         = time.Hour
	housekeepingPeriod = 10 * time.Minute
	orphanAge          = 30 * 24 * time.Hour
	seenWriteInterval  = time.Hour
	draftSettle        = time.Second
	// senderWait bounds how long the decision on a message reported without its label
	// (LabelPending) waits for a MessageUpdated naming the sender. The bridge reports such a
	// row 1.5 s after it appeared, and pages have been seen filling labels up to 5 s after
	// the row: 5 s more covers labels up to 6.5 s late. The wait is paid only by those rare
	// rows and is of the order of the reading delay (0.8-15 s) a reply waits anyway.
	senderWait = 5 * time.Second
)

// Engine is Clanker's decision core. Create it with New, start Run on one goroutine, and feed it
// with Send from anywhere.
type Engine struct {
	page    Page
	store   Store
	llm     LLM
	desktop Desktop
	rng     *rand.Rand
	log     *slog.Logger
	loc     *time.Location

	inbox   inbox
	running atomic.Bool
	ctx     context.Context

	// Everything below is owned by the Run goroutine. The four pipelines each own their
	// state: the conversation on screen (screen.go), model replies from trigger to answer
	// (replies.go), texts on their way into the compose box (sendqueue.go) and visits to
	// inactive conversations (visits.go). Mode switching, settings and purges (modes.go)
	// act on all of them.
	settings  Settings
	hasKey    bool
	pageState PageState
	hidden    bool

	screen  screen
	replies replies
	sends   sendQueue
	visits  visits
	sidebar sidebar
	alerts  alerts

	cmdSeq   uint64
	awaiting map[uint64]func(CommandResult)

	errStreak    int
	lastActivity time.Time
	// banners holds the keys of the banners the engine is showing.
	banners map[string]bool
	// budgetMonth is the month ("2006-01" in loc) whose spent budget the deactivated banner
	// reports; empty when that banner has another cause or is not shown.
	budgetMonth string

	lastTouch map[ConversationID]time.Time
	periodic  []*timer
	// pausedFor says why Clanker stopped acting ("" while it acts): the page's selectors that
	// decide who said what or which rows are new stopped matching.
	pausedFor string
}

// New builds an engine. It does not start it; call Run.
func New(cfg Config) (*Engine, error) {
	if cfg.Page == nil || cfg.Store == nil || cfg.LLM == nil {
		return nil, errors.New("engine needs a Page, a Store and an LLM")
	}
	e := &Engine{
		page:      cfg.Page,
		store:     cfg.Store,
		llm:       cfg.LLM,
		desktop:   cfg.Desktop,
		rng:       cfg.Rand,
		log:       cfg.Logger,
		loc:       cfg.Location,
		settings:  DefaultSettings(),
		pageState: PageLoading,
		awaiting:  map[uint64]func(CommandResult){},
		banners:   map[string]bool{},
		replies:   replies{deferred: map[ConversationID]*deferredReply{}},
		sends:     sendQueue{leftover: map[ConversationID]string{}},
		sidebar:   sidebar{snippets: map[ConversationID]string{}, names: map[ConversationID]string{}},
		lastTouch: map[ConversationID]time.Time{},
	}
	if e.rng == nil {
		e.rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	if e.log == nil {
		e.log = slog.Default()
	}
	if e.loc == nil {
		e.loc = time.Local
	}
	if cfg.Settings != nil {
		if err := cfg.Settings.rangeErrors(); len(err) > 0 {
			return nil, fmt.Errorf("initial settings: %w", err)
		}
		e.settings = *cfg.Settings
	}
	e.hasKey = cfg.HasAPIKey
	e.inbox.notify = make(chan struct{}, 1)
	return e, nil
}

// Send validates an event and queues it for the engine goroutine. It never blocks. An invalid
// event is rejected with an error that says what is wrong, and the engine state is untouched.
func (e *Engine) Send(ev Event) error {
	if ev == nil {
		return errors.New("nil event")
	}
	if err := ev.validate(); err != nil {
		return fmt.Errorf("rejected %T: %w", ev, err)
	}
	e.inbox.push(ev)
	return nil
}

// Run owns all engine state until ctx is cancelled. It must be called exactly once.
func (e *Engine) Run(ctx context.Context) error {
	if !e.running.CompareAndSwap(false, true) {
		return errors.New("engine is already running")
	}
	e.ctx = ctx
	e.lastActivity = time.Now()
	if !e.configured() {
		e.showConfigBanner()
	}
	e.periodic = append(e.periodic, e.every(newsInterval, e.checkNews), e.every(housekeepingPeriod, e.housekeeping))
	defer e.shutdown()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-e.inbox.notify:
			for _, ev := range e.inbox.drain() {
				e.handle(ev)
			}
		}
	}
}

func (e *Engine) shutdown() {
	for _, t := range e.periodic {
		t.stop()
	}
	if e.replies.pending != nil {
		e.replies.pending.tm.stop()
	}
	if e.sends.cur != nil {
		e.sends.cur.tm.stop()
		// Stopped while typing: the partial text stays in that box (Messages keeps it as the
		// conversation's draft), so the record is stored for the engine that starts next, which
		// takes it out when the conversation is shown again. An Enter already pressed sent it.
		if j := e.sends.cur; j.inserted != "" && !j.entering {
			e.saveLeftover(j.conv, j.inserted)
		}
	}
	e.visits.stopTimers()
}

// inbox is an unbounded queue so that Send never blocks, even when the Page calls back into the
// engine from inside Do.
type inbox struct {
	mu     sync.Mutex
	q      []Event
	notify chan struct{}
}

func (b *inbox) push(ev Event) {
	b.mu.Lock()
	b.q = append(b.q, ev)
	b.mu.Unlock()
	select {
	case b.notify <- struct{}{}:
	default:
	}
}

func (b *inbox) drain() []Event {
	b.mu.Lock()
	q := b.q
	b.q = nil
	b.mu.Unlock()
	return q
}

// timer is a cancellable engine timer: when it fires it enqueues itself, and the engine runs fn
// on its own goroutine unless the timer was stopped in the meantime.
type timer struct {
	t    *time.Timer
	fn   func()
	dead bool
}

type timerFired struct{ t *timer }

func (timerFired) validate() error { return nil }

func (e *Engine) after(d time.Duration, fn func()) *timer {
	tm := &timer{fn: fn}
	tm.t = time.AfterFunc(d, func() { e.inbox.push(timerFired{tm}) })
	return tm
}

// every runs fn periodically on the engine goroutine.
func (e *Engine) every(d time.Duration, fn func()) *timer {
	holder := &timer{}
	var arm func()
	arm = func() {
		holder.t = time.AfterFunc(d, func() {
			e.inbox.push(timerFired{&timer{fn: func() {
				if !holder.dead {
					fn()
					arm()
				}
			}}})
		})
	}
	arm()
	return holder
}

func (t *timer) stop() {
	if t == nil {
		return
	}
	t.dead = true
	if t.t != nil {
		t.t.Stop()
	}
}

// handle dispatches one event, then lets every waiting pipeline make progress.
func (e *Engine) handle(ev Event) {
	switch ev := ev.(type) {
	case timerFired:
		if ev.t.dead {
			return
		}
		ev.t.dead = true
		ev.t.fn()
	case llmDone:
		e.onLLMDone(ev)
	case snapshotReq:
		ev.reply <- e.snapshot()
		return
	case PageStateChanged:
		e.onPageState(ev)
		e.pageBanner(ev.State)
	case ConversationChanging:
		e.onChanging(ev)
	case ConversationOpened:
		e.onOpened(ev)
		e.backAtWindow()
	case MessageAdded:
		e.onMessage(ev)
	case MessageUpdated:
		e.onUpdated(ev)
	case MessageIDChanged:
		e.onIDChanged(ev)
	case HistoryLoaded:
		e.onHistory(ev)
	case ComposeState:
		e.onCompose(ev)
	case SidebarUpdate:
		e.onSidebar(ev)
	case CommandResult:
		if cb, ok := e.awaiting[ev.ID]; ok {
			delete(e.awaiting, ev.ID)
			cb(ev)
		}
	case SettingsChanged:
		e.onSettings(ev)
	case SetMode:
		e.onSetMode(ev)
	case DeactivateAll:
		e.onDeactivateAll()
	case Purge:
		e.onPurge(ev)
	case EditMemory:
		e.onEditMemory(ev)
	case VisitCancelled:
		e.visitCancel(ev)
	case WindowVisibility:
		e.hidden = ev.Hidden
		// The window may be shown after it got the focus: being back counts from whichever
		// of the two comes last.
		e.backAtWindow()
	case PageDrift:
		e.onDrift(ev)
		e.backAtWindow()
	case WindowFocus:
		e.alerts.unfocused = !ev.Active
		e.backAtWindow()
	case MessageArrived:
		e.onArrived(ev)
	case SettingsWindow:
		e.onSettingsWindow(ev)
	default:
		e.log.Warn("engine: unknown event", "type", fmt.Sprintf("%T", ev))
	}
	e.pump()
}

// pump advances every pipeline that waits for a condition (draft cleared, request finished,
// send finished). It runs after every event, so no pipeline needs a polling loop of its own.
func (e *Engine) pump() {
	e.pumpPending()
	e.pumpSend()
	e.pumpOwed()
	e.visitProgress()
	e.checkDraft()
	e.showWaiting()
}

// paused reports whether Clanker stopped acting because the page changed in a way it cannot
// read safely (see onDrift).
func (e *Engine) paused() bool { return e.pausedFor != "" }

// do sends a command and, if cb is non-nil, arranges for cb to run with its result. It returns
// the command id, so a caller that stops waiting can forget the callback.
func (e *Engine) do(cmd Command, cb func(CommandResult)) uint64 {
	e.cmdSeq++
	cmd.ID = e.cmdSeq
	if cb != nil {
		e.awaiting[cmd.ID] = cb
	}
	e.page.Do(cmd)
	return cmd.ID
}

func (e *Engine) toast(level, text string) {
	e.do(Command{Kind: CmdToast, Level: level, Text: text}, nil)
	if level == "error" {
		e.errorNotice(text)
	}
}

// banner shows the banner kept under key (text non-empty) or removes it. Showing always goes
// out, even with the same text: the cause happened again, so a banner the user dismissed must
// come back. Removing goes out only when the engine showed that banner, so clearing a cause
// that was never reported costs nothing.
func (e *Engine) banner(key, text string) {
	if text == "" {
		if !e.banners[key] {
			return
		}
		delete(e.banners, key)
	} else {
		e.banners[key] = true
	}
	e.do(Command{Kind: CmdBanner, Key: key, Text: text}, nil)
	if text != "" && bannerNotifies(key) {
		e.errorNotice(text)
	}
}

// activity records foreground activity for the idle rule.
func (e *Engine) activity() { e.lastActivity = time.Now() }

func (e *Engine) uniform(lo, hi float64) float64 { return lo + e.rng.Float64()*(hi-lo) }

func (e *Engine) uniformDur(lo, hi time.Duration) time.Duration {
	return lo + time.Duration(e.rng.Float64()*float64(hi-lo))
}
