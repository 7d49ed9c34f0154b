package page

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// KeyInput is the trusted native keyboard of the window showing the page. The page ignores
// script-made key presses, so the final Enter of every reply goes through here.
// window.NativeInput (app/desktop/window) satisfies it.
type KeyInput interface {
	PressEnter(ctx context.Context) error
}

// LinkConfig wires a Link. Exec and Events are required.
type LinkConfig struct {
	// Exec runs JavaScript in the page (the shell's ExecJS). It must not wait for the page.
	Exec func(js string) error
	// Input delivers the trusted Enter. Nil makes every press_enter fail (with a clear
	// result), which keeps a reply from being half-sent by a build without native input.
	Input KeyInput
	// Events receives the engine events the page's events turn into (the engine's Send).
	Events func(engine.Event) error
	// Nonce is the secret every event must start with (see SealScript). Empty means
	// NewNonce is called.
	Nonce string
	// OnSettings is called when the user picks "Settings..." in the status pill menu.
	OnSettings func()
	// OnHintDone is called (on its own goroutine) when the user is done with the hint
	// beside the pill: they dismissed it, or chose a mode in the pill's menu while it
	// showed. The Link has already removed it; the app remembers that for good.
	OnHintDone func()
	// OnChange is called (on any goroutine) after the foreground conversation, its
	// name or its automated flag changed, so menus can redraw.
	OnChange func()
	// Remembered is the sidebar list as the previous run left it, as OnList gave it. The
	// first list of this run is compared with it, so a message that came while Clanker was
	// not looking (not running, or the page still loading) is told to the engine (engine.MessageArrived);
	// without it the first list is only a baseline.
	Remembered map[string]string
	// OnList is called after each sidebar event with the list as it stands, conversation
	// id to a print of its snippet (not the text), for the app to keep for the next run
	// (see Remembered). The map is the callee's. It is called synchronously from the event
	// handler and must not block.
	OnList func(map[string]string)
	// EnterTimeout bounds focusing the box and pressing Enter (default 10 s).
	EnterTimeout time.Duration
	// Logger receives one line per dropped or refused event; never message text.
	Logger *slog.Logger
}

// Link is the engine's Page: it turns engine commands into bridge commands run with
// Exec, and bridge events into engine events. It is the one place that knows both
// vocabularies, so neither the engine nor the bridge depends on the other. Its parts:
// the command connection (conn.go), the pure mappings between the two vocabularies
// (translate.go), what the page shows (view.go), and the sealing that lets events be
// trusted as the bridge's (seal.go). This file carries the engine's commands out;
// handle.go takes the page's events in.
//
// Every event must carry the per-run nonce that SealScript baked into the injected
// bridge. A popup on the same origin (Google sign-in, or a page the user opened) can
// post to the same Wails channel as the page, but it cannot know the nonce: such events
// are dropped with a log line before they are even parsed.
type Link struct {
	cfg   LinkConfig
	log   *slog.Logger
	nonce []byte

	queue   chan engine.Command
	stop    chan struct{}
	stopped sync.Once

	conn *conn
	view view

	// seqMu serialises incoming events and guards their ordering state (see deliver).
	seqMu      sync.Mutex
	lastSeq    int64
	seqDropped int
	early      map[int64]Envelope
	gapTimer   *time.Timer

	// statusMu makes reading what the pill should show and sending it one step. The
	// engine's goroutine (a mode change) and the event goroutine (a conversation opened,
	// a page loaded) both update the pill; Exec runs scripts in the order it is called,
	// so with the two steps together the page always ends on the latest state. Apart,
	// an older "no pill yet" could overtake the engine's mode and leave no pill.
	statusMu sync.Mutex
	hintOn   bool // the hint was last sent as shown (guarded by statusMu)
}

// MaxQueuedCommands bounds the commands waiting for Exec; beyond it commands fail at once
// (the engine then sees an error result) rather than growing memory without limit.
const MaxQueuedCommands = 4096

// NewLink builds a Link and starts its command worker; call Close when done.
func NewLink(cfg LinkConfig) (*Link, error) {
	if cfg.Exec == nil || cfg.Events == nil {
		return nil, errors.New("page link needs Exec and Events")
	}
	if cfg.Nonce == "" {
		cfg.Nonce = NewNonce()
	}
	if !validNonce(cfg.Nonce) {
		return nil, errors.New("page link: nonce must be 16-64 characters of 0-9 a-f")
	}
	if cfg.EnterTimeout <= 0 {
		cfg.EnterTimeout = 10 * time.Second
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	stop := make(chan struct{})
	l := &Link{
		cfg:   cfg,
		log:   log.With("component", "page"),
		nonce: []byte(cfg.Nonce),
		queue: make(chan engine.Command, MaxQueuedCommands),
		stop:  stop,
		conn:  newConn(cfg.Exec, stop),
	}
	if len(cfg.Remembered) > 0 {
		l.view.remembered = make(map[string]string, len(cfg.Remembered))
		for id, p := range cfg.Remembered {
			l.view.remembered[id] = p
		}
	}
	go l.work()
	return l, nil
}

// Nonce is the secret the injected script must be sealed with.
func (l *Link) Nonce() string { return string(l.nonce) }

// Close stops the command worker. Commands still queued are dropped.
func (l *Link) Close() { l.stopped.Do(func() { close(l.stop) }) }

// Do implements engine.Page. It never blocks: the command is queued for the worker,
// which keeps the engine's order (insert, type steps, Enter).
func (l *Link) Do(cmd engine.Command) {
	select {
	case l.queue <- cmd:
	default:
		l.log.Error("page command queue full; failing the command", "kind", cmd.Kind)
		l.answer(cmd.ID, "command queue full", nil)
	}
}

func (l *Link) work() {
	for {
		select {
		case <-l.stop:
			return
		case cmd := <-l.queue:
			l.run(cmd)
		}
	}
}

// answer tells the engine how a command ended (engine ids of 0 are Link-internal).
func (l *Link) answer(id uint64, errText string, data []byte) {
	if id == 0 {
		return
	}
	if err := l.cfg.Events(engine.CommandResult{ID: id, Err: errText, Data: data}); err != nil {
		l.log.Warn("engine refused a command result", "err", err)
	}
}

// run carries out one engine command: the ones that touch what the Link keeps here, the
// rest as the bridge command bridgeCommand maps them to.
func (l *Link) run(cmd engine.Command) {
	switch cmd.Kind {
	case engine.CmdPressEnter:
		l.answer(cmd.ID, l.pressEnter(cmd.Conversation), nil)
		return
	case engine.CmdBanner:
		l.setBanner(cmd.Key, cmd.Text)
		l.answer(cmd.ID, "", nil)
		return
	case engine.CmdStatus:
		l.statusMu.Lock()
		waitChanged := l.view.setStatus(cmd.Text, cmd.Waiting)
		cmds := l.pillCommands()
		l.send(cmd, cmds[0])
		for _, c := range cmds[1:] {
			l.fire(c)
		}
		l.statusMu.Unlock()
		if waitChanged {
			l.changed()
		}
		return
	case engine.CmdSetAutomated:
		l.statusMu.Lock()
		changed := l.view.setAutomated(cmd.Text == "true")
		if changed {
			for _, c := range l.pillCommands() {
				l.fire(c)
			}
		}
		l.statusMu.Unlock()
		if changed {
			l.changed()
		}
		l.answer(cmd.ID, "", nil)
		return
	}
	args := bridgeCommand(cmd)
	if args == nil {
		l.log.Warn("unknown engine command", "kind", cmd.Kind)
		l.answer(cmd.ID, "unknown command "+string(cmd.Kind), nil)
		return
	}
	l.send(cmd, args)
}

// send runs a bridge command whose result answers the engine command cmd; a command that
// cannot be run is answered at once.
func (l *Link) send(cmd engine.Command, args CommandArgs) {
	if err := l.conn.send(pendingCmd{engineID: cmd.ID, kind: cmd.Kind}, args); err != nil {
		l.log.Warn("page command not sent", "kind", cmd.Kind, "err", err)
		l.answer(cmd.ID, err.Error(), nil)
	}
}

// fireStatus makes the pill and the hint beside it match the view (see statusMu).
func (l *Link) fireStatus() {
	l.statusMu.Lock()
	defer l.statusMu.Unlock()
	for _, c := range l.pillCommands() {
		l.fire(c)
	}
}

// pillCommands are the commands that make the pill and the hint beside it match the
// view: the status command, then show_hint, or hide_hint when the hint was shown before.
// Call with statusMu held.
func (l *Link) pillCommands() []CommandArgs {
	st := l.view.statusCommand()
	out := []CommandArgs{st}
	if text := l.view.hintBeside(st); text != "" {
		out = append(out, ShowHint{Text: text})
		l.hintOn = true
	} else if l.hintOn {
		out = append(out, HideHint{})
		l.hintOn = false
	}
	return out
}

// SetHint shows text as a one-time hint in a bubble pointing at the status pill, whenever
// the page shows a pill whose menu can change the mode; "" removes it. The hint stays
// (across conversations and page reloads) until the user dismisses it or picks a mode in
// the pill's menu, when OnHintDone is called, or until SetHint("") (a mode changed
// elsewhere). The caller remembers that the user has seen it; the Link does not.
func (l *Link) SetHint(text string) {
	if !l.view.setHint(engine.Clip(text, 300)) {
		return
	}
	l.fireStatus()
}

// HintShown reports whether the page shows the hint now, as far as the Link knows.
func (l *Link) HintShown() bool { return l.view.hintShown() }

// hintDone removes the hint because the user is done with it and tells the app.
func (l *Link) hintDone() {
	if !l.view.setHint("") {
		return
	}
	l.fireStatus()
	if l.cfg.OnHintDone != nil {
		go l.cfg.OnHintDone()
	}
}

// fire runs a Link-internal command whose result nobody waits for.
func (l *Link) fire(args CommandArgs) {
	if err := l.conn.send(pendingCmd{}, args); err != nil {
		l.log.Debug("page command not sent", "type", args.CommandType(), "err", err)
	}
}

// Open shows conversation id in the page (a click on a notification about it) and
// waits for the page's answer.
func (l *Link) Open(ctx context.Context, id string) error {
	r, err := l.conn.call(ctx, Navigate{ConversationID: id})
	if err != nil {
		return fmt.Errorf("open the conversation: %w", err)
	}
	if !r.OK {
		return fmt.Errorf("open the conversation: the page said %s", nonEmpty(r.Code, "failed"))
	}
	return nil
}

// Sent counts the commands run in the page so far, by protocol type: diagnostics, and
// how the full-app tests see that a reply was typed step by step.
func (l *Link) Sent() map[string]int { return l.conn.sentCounts() }

// pressEnter focuses the compose box through the bridge, checks the page still shows the
// conversation the text was typed into, and presses a trusted Enter. It returns "" or the
// reason it did not press.
func (l *Link) pressEnter(conv engine.ConversationID) string {
	if l.cfg.Input == nil {
		return "no native input on this platform"
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.cfg.EnterTimeout)
	defer cancel()
	r, err := l.conn.call(ctx, FocusCompose{})
	if err != nil {
		return err.Error()
	}
	if !r.OK {
		return nonEmpty(r.Code, "focus_failed")
	}
	if cur := l.Current(); cur != string(conv) {
		l.log.Warn("enter not pressed: the page shows another conversation")
		return engine.ResultWrongConversation
	}
	if err := l.cfg.Input.PressEnter(ctx); err != nil {
		return "native enter: " + err.Error()
	}
	return ""
}

// incoming tells the engine about a message someone wrote, which decides whether it is a
// desktop notification.
func (l *Link) incoming(in Incoming) {
	l.toEngine(engine.MessageArrived{Conversation: engine.ConversationID(in.Conversation),
		Sender: engine.Clip(in.Sender, 200), Text: engine.Clip(in.Text, 2000)})
}

func (l *Link) changed() {
	if l.cfg.OnChange != nil {
		go l.cfg.OnChange()
	}
}

// SetBanner shows (text non-empty) or removes the banner kept under key. Banners of
// different keys are shown together, newest first, so one condition clearing never hides
// another's warning. The app uses it for its own banners (DEMO, a recovered database).
func (l *Link) SetBanner(key, text string) { l.setBanner(key, text) }

func (l *Link) setBanner(key, text string) {
	l.view.setBanner(key, text)
	l.fire(l.view.bannerCommand())
}

// BannerText is what the page banner currently says ("" when hidden).
func (l *Link) BannerText() string { return l.view.bannerText() }

// Current is the id of the conversation the page shows ("" when none or unknown).
func (l *Link) Current() string { return l.view.currentConversation() }

// Automated reports whether the engine marked the foreground conversation automated.
func (l *Link) Automated() bool { return l.view.isAutomated() }

// PageState is the last page state the bridge reported ("" before the first).
func (l *Link) PageState() string { return l.view.state() }

// SidebarSize is how many conversations of the sidebar list the Link knows (diagnostics:
// 0 until the page has reported its list, which is the baseline incoming messages are
// told from).
func (l *Link) SidebarSize() int { return l.view.sidebarSize() }

// ConversationName is the sidebar name of a conversation ("" when not in the sidebar).
// It comes from the page: callers must treat it as untrusted text.
func (l *Link) ConversationName(id string) string { return l.view.conversationName(id) }
