package page

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// KeyInput is the trusted native keyboard of the window showing the page. The page ignores
// script-made key presses, so the final Enter of every reply goes through here.
// desktop.NativeInput satisfies it.
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
	// OnChange is called (on any goroutine) after the foreground conversation, its
	// name or its automated flag changed, so menus can redraw.
	OnChange func()
	// OnNotice is called for each error toast the engine shows and for each banner
	// that appears or changes, so the app can raise a desktop notification. It is
	// called synchronously from the Link's goroutines and must not block.
	OnNotice func(Notice)
	// OnIncoming is called for each new incoming message the page shows: a new row of
	// the open conversation, or another conversation's sidebar row that is unread with a
	// new snippet. The text comes from the page: untrusted, shown only as text. It is
	// called synchronously from the event handler and must not block.
	OnIncoming func(Incoming)
	// EnterTimeout bounds focusing the box and pressing Enter (default 10 s).
	EnterTimeout time.Duration
	// Logger receives one line per dropped or refused event; never message text.
	Logger *slog.Logger
}

// Link is the engine's Page: it turns engine commands into bridge commands run with
// Exec, and bridge events into engine events. It is the one place that knows both
// vocabularies, so neither the engine nor the bridge depends on the other.
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

	mu      sync.Mutex
	seq     uint64
	pending map[string]pendingCmd // bridge command id -> what the engine asked for
	images  map[string]*ImageAssembly
	waiters map[string]chan Result // results a Link-internal step waits for

	pageState string
	current   string // conversation id the page shows ("" when none)
	status    string // last mode shown in the pill
	automated bool
	banners   []banner
	sidebar   []SidebarItem
	sent      map[string]int // commands run in the page, by type (diagnostics, tests)
}

type pendingCmd struct {
	engineID uint64
	kind     engine.CommandKind
}

type banner struct{ key, text string }

// bannerPage is the banner key of the Link's own warning about the page itself.
const bannerPage = "page"

// UnrecognisedWarning is shown while the page does not look like Google Messages. The
// engine does nothing there (it acts only on a ready page); the user should know why.
const UnrecognisedWarning = "Clanker does not recognise this page (Google may have changed Messages), so it is doing nothing here. Check for a Clanker update."

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
	l := &Link{
		cfg:     cfg,
		log:     log.With("component", "page"),
		nonce:   []byte(cfg.Nonce),
		queue:   make(chan engine.Command, MaxQueuedCommands),
		stop:    make(chan struct{}),
		pending: map[string]pendingCmd{},
		images:  map[string]*ImageAssembly{},
		waiters: map[string]chan Result{},
		sent:    map[string]int{},
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

// run translates one engine command and sends it to the page.
func (l *Link) run(cmd engine.Command) {
	switch cmd.Kind {
	case engine.CmdInsertText:
		l.send(cmd, InsertText{ConversationID: string(cmd.Conversation), Text: cmd.Text})
	case engine.CmdTypeText:
		l.send(cmd, TypeStep{ConversationID: string(cmd.Conversation), Text: cmd.Text})
	case engine.CmdRemoveText:
		l.send(cmd, ClearInserted{})
	case engine.CmdPressEnter:
		l.answer(cmd.ID, l.pressEnter(cmd.Conversation), nil)
	case engine.CmdNavigate:
		l.send(cmd, Navigate{ConversationID: string(cmd.Conversation)})
	case engine.CmdFetchImage:
		l.send(cmd, FetchImage{Src: cmd.Src, MaxBytes: MaxImageBytes})
	case engine.CmdBanner:
		l.setBanner(cmd.Key, cmd.Text)
		l.answer(cmd.ID, "", nil)
	case engine.CmdToast:
		if toastLevel(cmd.Level) == "error" {
			l.notice(Notice{Text: clipRunes(cmd.Text, 500)})
		}
		l.send(cmd, ShowToast{Text: clipRunes(cmd.Text, 500), Level: toastLevel(cmd.Level)})
	case engine.CmdOverlay:
		if cmd.Text == "" {
			l.send(cmd, HideOverlay{})
		} else {
			l.send(cmd, ShowOverlay{Text: clipRunes(cmd.Text, 300)})
		}
	case engine.CmdStatus:
		l.mu.Lock()
		l.status = cmd.Text
		l.mu.Unlock()
		l.applyStatus(cmd.ID)
	case engine.CmdSetAutomated:
		l.mu.Lock()
		changed := l.automated != (cmd.Text == "true")
		l.automated = cmd.Text == "true"
		l.mu.Unlock()
		if changed {
			l.changed()
		}
		l.answer(cmd.ID, "", nil)
	default:
		l.log.Warn("unknown engine command", "kind", cmd.Kind)
		l.answer(cmd.ID, "unknown command "+string(cmd.Kind), nil)
	}
}

// send encodes args under a fresh id, remembers which engine command it answers, and
// executes it. Encoding or exec failures are answered at once.
func (l *Link) send(cmd engine.Command, args CommandArgs) {
	id := l.issue(pendingCmd{engineID: cmd.ID, kind: cmd.Kind})
	if cmd.Kind == engine.CmdFetchImage {
		l.mu.Lock()
		l.images[id] = NewImageAssembly(id)
		l.mu.Unlock()
	}
	if err := l.exec(id, args); err != nil {
		l.forget(id)
		l.log.Warn("page command not sent", "kind", cmd.Kind, "err", err)
		l.answer(cmd.ID, err.Error(), nil)
	}
}

func (l *Link) issue(p pendingCmd) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	id := "g" + strconv.FormatUint(l.seq, 10)
	l.pending[id] = p
	return id
}

func (l *Link) forget(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.pending, id)
	delete(l.images, id)
	delete(l.waiters, id)
}

func (l *Link) exec(id string, args CommandArgs) error {
	js, err := EncodeCommand(id, args)
	if err != nil {
		return err
	}
	if err := l.cfg.Exec(js); err != nil {
		return fmt.Errorf("run %s in the page: %w", args.CommandType(), err)
	}
	l.mu.Lock()
	l.sent[args.CommandType()]++
	l.mu.Unlock()
	return nil
}

// Sent counts the commands run in the page so far, by protocol type: diagnostics, and
// how the full-app tests see that a reply was typed step by step.
func (l *Link) Sent() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]int, len(l.sent))
	for k, v := range l.sent {
		out[k] = v
	}
	return out
}

// call runs a Link-internal command and waits for its result.
func (l *Link) call(ctx context.Context, args CommandArgs) (Result, error) {
	ch := make(chan Result, 1)
	id := l.issue(pendingCmd{})
	l.mu.Lock()
	l.waiters[id] = ch
	l.mu.Unlock()
	defer l.forget(id)
	if err := l.exec(id, args); err != nil {
		return Result{}, err
	}
	select {
	case r := <-ch:
		return r, nil
	case <-ctx.Done():
		return Result{}, fmt.Errorf("%s: no answer from the page: %w", args.CommandType(), ctx.Err())
	case <-l.stop:
		return Result{}, errors.New("page link closed")
	}
}

// pressEnter focuses the compose box through the bridge, checks the page still shows the
// conversation the text was typed into, and presses a trusted Enter. It returns "" or the
// reason it did not press.
func (l *Link) pressEnter(conv engine.ConversationID) string {
	if l.cfg.Input == nil {
		return "no native input on this platform"
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.cfg.EnterTimeout)
	defer cancel()
	r, err := l.call(ctx, FocusCompose{})
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

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func toastLevel(s string) string {
	switch s {
	case "error", "success":
		return s
	}
	return "info"
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Notice is a message the page is about to show the user that a desktop notification
// may repeat: an error toast, or a banner (Key names it) that appeared or changed.
type Notice struct {
	Banner bool
	Key    string
	Text   string
}

// Incoming is a new message someone sent, as the page shows it.
type Incoming struct {
	Conversation string
	Sender       string
	Text         string
}

func (l *Link) notice(n Notice) {
	if l.cfg.OnNotice != nil {
		l.cfg.OnNotice(n)
	}
}

func (l *Link) incoming(in Incoming) {
	if l.cfg.OnIncoming != nil {
		l.cfg.OnIncoming(in)
	}
}

// SetBanner shows (text non-empty) or removes the banner kept under key. Banners of
// different keys are shown together, newest first, so one condition clearing never hides
// another's warning. The app uses it for its own banners (DEMO, a recovered database).
func (l *Link) SetBanner(key, text string) { l.setBanner(key, text) }

func (l *Link) setBanner(key, text string) {
	l.mu.Lock()
	kept := l.banners[:0]
	was := ""
	for _, b := range l.banners {
		if b.key != key {
			kept = append(kept, b)
		} else {
			was = b.text
		}
	}
	fresh := text != "" && text != was
	l.banners = kept
	if text != "" {
		l.banners = append(l.banners, banner{key: key, text: text})
	}
	l.mu.Unlock()
	if fresh {
		l.notice(Notice{Banner: true, Key: key, Text: text})
	}
	l.applyBanner()
}

// BannerText is what the page banner currently says ("" when hidden).
func (l *Link) BannerText() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.bannerTextLocked()
}

func (l *Link) bannerTextLocked() string {
	parts := make([]string, 0, len(l.banners))
	for i := len(l.banners) - 1; i >= 0; i-- {
		parts = append(parts, l.banners[i].text)
	}
	return clipRunes(strings.Join(parts, " | "), 500)
}

func (l *Link) applyBanner() {
	l.mu.Lock()
	text := l.bannerTextLocked()
	l.mu.Unlock()
	var args CommandArgs = HideBanner{}
	if text != "" {
		args = ShowBanner{Text: text, Level: "warning"}
	}
	l.fire(args)
}

// fire runs a Link-internal command whose result nobody waits for.
func (l *Link) fire(args CommandArgs) {
	id := l.issue(pendingCmd{})
	if err := l.exec(id, args); err != nil {
		l.forget(id)
		l.log.Debug("page command not sent", "type", args.CommandType(), "err", err)
	}
}

func (l *Link) applyStatus(engineID uint64) {
	l.mu.Lock()
	mode, conv := l.status, l.current
	l.mu.Unlock()
	var args CommandArgs = HideStatus{}
	if conv != "" && mode != "" {
		args = SetStatus{ConversationID: conv, Mode: mode}
	}
	if engineID == 0 {
		l.fire(args)
		return
	}
	l.send(engine.Command{ID: engineID, Kind: engine.CmdStatus}, args)
}

// Current is the id of the conversation the page shows ("" when none or unknown).
func (l *Link) Current() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.current
}

// Automated reports whether the engine marked the foreground conversation automated.
func (l *Link) Automated() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.automated
}

// PageState is the last page state the bridge reported ("" before the first).
func (l *Link) PageState() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pageState
}

// ConversationName is the sidebar name of a conversation ("" when not in the sidebar).
// It comes from the page: callers must treat it as untrusted text.
func (l *Link) ConversationName(id string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, it := range l.sidebar {
		if it.ID == id {
			return it.Name
		}
	}
	return ""
}

func (l *Link) changed() {
	if l.cfg.OnChange != nil {
		go l.cfg.OnChange()
	}
}

// HandleRaw takes one event as the shell received it: the nonce, then the envelope's
// JSON text. Anything else is dropped with a log line; nothing from the page is trusted.
func (l *Link) HandleRaw(raw []byte) {
	n := len(l.nonce)
	if len(raw) < n || subtle.ConstantTimeCompare(raw[:n], l.nonce) != 1 {
		l.log.Warn("page event dropped: it does not carry this run's nonce (a popup or a foreign script?)", "bytes", len(raw))
		return
	}
	env, err := DecodeEvent(raw[n:])
	if err != nil {
		l.log.Warn("page event refused", "err", err)
		return
	}
	l.handle(env)
}

func (l *Link) toEngine(ev engine.Event) {
	if err := l.cfg.Events(ev); err != nil {
		l.log.Warn("engine refused a page event", "type", fmt.Sprintf("%T", ev), "err", err)
	}
}

func (l *Link) handle(env Envelope) {
	switch ev := env.Event.(type) {
	case Hello:
		l.onHello(ev)
	case PageState:
		l.onPageState(ev)
	case Conversation:
		l.onConversation(ev)
	case NewMessage:
		if m := ev.Message; m.Direction == "in" && !m.OwnClanker && (m.Text != "" || len(m.Images) > 0) {
			text := m.Text
			if text == "" {
				text = "(a picture)"
			}
			l.incoming(Incoming{Conversation: ev.ConversationID, Sender: m.Sender, Text: text})
		}
		l.toEngine(engine.MessageAdded{Conversation: engine.ConversationID(ev.ConversationID), Message: toEngineMessage(ev.Message)})
	case History:
		l.toEngine(engine.HistoryLoaded{Conversation: engine.ConversationID(ev.ConversationID), Messages: toEngineMessages(ev.Messages)})
	case MessageID:
		l.toEngine(engine.MessageIDChanged{Conversation: engine.ConversationID(ev.ConversationID), OldID: ev.OldID, NewID: ev.NewID})
	case MessageUpdate:
		// Reactions and read receipts are never triggers; the engine does not need them.
	case Compose:
		conv := ev.ConversationID
		if conv == "" {
			conv = l.Current()
		}
		if conv == "" || !ev.Present {
			return
		}
		l.toEngine(engine.ComposeState{Conversation: engine.ConversationID(conv), HasDraft: ev.HasUserText, Focused: ev.Focused})
	case Sidebar:
		l.onSidebar(ev)
	case SelfTest:
		failed := 0
		for _, r := range ev.Results {
			if !r.OK {
				failed++
			}
		}
		if failed > 0 {
			l.log.Warn("bridge self-test: some selectors do not match; Google may have changed the page", "failed", failed, "checked", ev.Checked)
		}
	case Result:
		l.onResult(ev)
	case ImageChunk:
		l.onChunk(ev)
	case ModeMenu:
		l.onModeMenu(ev)
	case BannerDismissed:
		l.log.Info("the user dismissed the banner")
	}
}

// onHello handles a (re)injection: commands sent to the old document will never be
// answered, and the banner and pill it showed are gone with it.
func (l *Link) onHello(ev Hello) {
	l.mu.Lock()
	var lost []pendingCmd
	for id, p := range l.pending {
		if _, internal := l.waiters[id]; internal {
			continue
		}
		lost = append(lost, p)
		delete(l.pending, id)
		delete(l.images, id)
	}
	l.mu.Unlock()
	sort.Slice(lost, func(i, j int) bool { return lost[i].engineID < lost[j].engineID })
	for _, p := range lost {
		l.answer(p.engineID, "page_reloaded", nil)
	}
	l.log.Info("bridge connected", "bridge", ev.Bridge, "transport", ev.Transport, "ready_state", ev.ReadyState)
	l.applyBanner()
	l.applyStatus(0)
}

func (l *Link) onPageState(ev PageState) {
	var st engine.PageState
	switch ev.State {
	case "loading":
		st = engine.PageLoading
	case "signed_out":
		st = engine.PageSignedOut
	case "unrecognised":
		st = engine.PageUnrecognized
	default:
		st = engine.PageReady
	}
	l.mu.Lock()
	prevState, prevConv := l.pageState, l.current
	l.pageState = ev.State
	l.current = ev.ConversationID
	l.mu.Unlock()
	if prevState != ev.State {
		l.toEngine(engine.PageStateChanged{State: st})
		if ev.State == "unrecognised" {
			l.setBanner(bannerPage, UnrecognisedWarning)
		} else if prevState == "unrecognised" {
			l.setBanner(bannerPage, "")
		}
	}
	if prevConv != ev.ConversationID {
		l.toEngine(engine.ConversationChanging{To: engine.ConversationID(ev.ConversationID)})
		l.changed()
	}
}

func (l *Link) onConversation(ev Conversation) {
	l.mu.Lock()
	prev := l.current
	l.current = ev.ConversationID
	l.mu.Unlock()
	if prev != ev.ConversationID {
		l.changed()
	}
	names := ev.Participants
	if len(names) == 0 {
		names = ev.HeaderNames
	}
	ps := make([]engine.Participant, 0, len(names))
	for _, n := range names {
		ps = append(ps, engine.Participant{Name: n})
	}
	l.toEngine(engine.ConversationOpened{
		ID:           engine.ConversationID(ev.ConversationID),
		Participants: ps,
		Messages:     toEngineMessages(ev.Messages),
	})
	l.applyStatus(0)
}

// onSidebar applies a diff to the full list and hands the engine every row. Changed and
// added rows move to the top: the page lists conversations by recent activity, and a
// diff item is a conversation that just had some.
func (l *Link) onSidebar(ev Sidebar) {
	var news []Incoming
	l.mu.Lock()
	if ev.Full {
		l.sidebar = append([]SidebarItem(nil), ev.Items...)
	} else {
		// A row of another conversation that is unread with a snippet it did not have
		// is a message that just came in there (reported once the lock is released).
		for _, it := range ev.Items {
			if !it.Unread || it.ID == l.current || strings.HasPrefix(strings.TrimSpace(it.Snippet), "You:") {
				continue
			}
			for _, old := range l.sidebar {
				if old.ID == it.ID {
					if old.Snippet != it.Snippet {
						news = append(news, Incoming{Conversation: it.ID, Sender: it.Name, Text: it.Snippet})
					}
					break
				}
			}
		}
		drop := map[string]bool{}
		for _, id := range ev.Removed {
			drop[id] = true
		}
		for _, it := range ev.Items {
			drop[it.ID] = true
		}
		next := make([]SidebarItem, 0, len(l.sidebar)+len(ev.Items))
		next = append(next, ev.Items...)
		for _, it := range l.sidebar {
			if !drop[it.ID] {
				next = append(next, it)
			}
		}
		l.sidebar = next
	}
	if len(l.sidebar) > 1000 {
		l.sidebar = l.sidebar[:1000]
	}
	rows := make([]engine.SidebarRow, 0, len(l.sidebar))
	for _, it := range l.sidebar {
		rows = append(rows, engine.SidebarRow{ID: engine.ConversationID(it.ID), Name: it.Name, Snippet: it.Snippet, Unread: it.Unread})
	}
	l.mu.Unlock()
	for _, in := range news {
		l.incoming(in)
	}
	l.toEngine(engine.SidebarUpdate{Rows: rows})
	l.changed()
}

func (l *Link) onResult(r Result) {
	l.mu.Lock()
	p, ok := l.pending[r.ID]
	w := l.waiters[r.ID]
	asm := l.images[r.ID]
	if ok {
		delete(l.pending, r.ID)
		delete(l.images, r.ID)
	}
	l.mu.Unlock()
	if !ok {
		l.log.Debug("result for a command this link did not issue; ignored", "command", r.Command)
		return
	}
	if w != nil {
		w <- r
		return
	}
	if !r.OK && r.Code != "" && p.kind != "" {
		l.log.Info("page refused a command", "kind", p.kind, "code", r.Code)
	}
	if asm != nil {
		data, _, err := asm.Finish(r)
		if err != nil {
			l.answer(p.engineID, err.Error(), nil)
			return
		}
		l.answer(p.engineID, "", data)
		return
	}
	if r.OK {
		l.answer(p.engineID, "", nil)
		return
	}
	l.answer(p.engineID, nonEmpty(r.Code, "failed"), nil)
}

func (l *Link) onChunk(c ImageChunk) {
	l.mu.Lock()
	asm := l.images[c.ID]
	l.mu.Unlock()
	if asm == nil {
		l.log.Debug("image chunk for a command this link did not issue; ignored")
		return
	}
	if err := asm.Add(c); err != nil {
		l.log.Warn("image chunk refused", "err", err)
	}
}

func (l *Link) onModeMenu(m ModeMenu) {
	if m.Choice == "settings" {
		if l.cfg.OnSettings != nil {
			go l.cfg.OnSettings()
		}
		return
	}
	conv := m.ConversationID
	if cur := l.Current(); conv == "" || conv != cur {
		// A menu left open across a switch must not change a conversation the user is
		// no longer looking at.
		l.log.Warn("mode menu choice for a conversation that is not on screen; ignored")
		return
	}
	l.toEngine(engine.SetMode{Conversation: engine.ConversationID(conv), Mode: engine.Mode(m.Choice), Source: "page"})
}

func toEngineMessages(ms []Message) []engine.Message {
	out := make([]engine.Message, 0, len(ms))
	for _, m := range ms {
		out = append(out, toEngineMessage(m))
	}
	return out
}

func toEngineMessage(m Message) engine.Message {
	dir := engine.Incoming
	if m.Direction == "out" || (m.Direction == "unknown" && m.Sender == "You") {
		dir = engine.Outgoing
	}
	em := engine.Message{
		ID:           m.ID,
		Sender:       m.Sender,
		Direction:    dir,
		Text:         m.Text,
		OwnClanker:   m.OwnClanker,
		OtherClanker: m.OtherClanker,
		Unsupported:  m.Unsupported,
		Timestamp:    m.Timestamp,
	}
	for _, im := range m.Images {
		em.Images = append(em.Images, engine.Image{Src: im.Src, Alt: im.Alt})
	}
	if m.Quote != nil {
		em.Quoted = m.Quote.Text
	}
	return em
}
