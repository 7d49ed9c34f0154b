// Package run assembles the Clanker app from its parts and runs it: the store, the
// settings and the API key, the LLM adapter, the engine, the page link and the desktop
// shell with the bridge script. It holds no rules of its own; it wires, forwards and
// reports. It also implements menus.Controller for the tray and menus.
package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clanker-desktop/clanker/app/demo/model"
	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/app/desktop/menus"
	"github.com/clanker-desktop/clanker/app/desktop/session"
	"github.com/clanker-desktop/clanker/app/desktop/window"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/images"
	"github.com/clanker-desktop/clanker/app/llm"
	"github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/app/sqlite"
	"github.com/clanker-desktop/clanker/app/update"
	"github.com/clanker-desktop/clanker/inject"
)

// DefaultMessagesURL is the page the app shows unless told otherwise.
const DefaultMessagesURL = "https://messages.google.com/web"

// DemoDirName is the demo's own data directory inside the data directory, so demo
// settings and conversations never mix with real ones.
const DemoDirName = "demo"

// Banner keys of the app's own banners (the engine has its own).
const (
	bannerDemo     = "demo"
	bannerRecovery = "recovery"
)

// DemoBanner is what the page says during `clanker demo`.
const DemoBanner = "DEMO: a simulated Messages page and, unless you configured a real endpoint, a fake model. Nothing here reaches anyone."

// settingsPoll is how often the store is polled for changes made by another process
// (`clanker config set`, the settings window); a change applies within a second.
const settingsPoll = 300 * time.Millisecond

// Options configure the app.
type Options struct {
	// DataDir holds the database; "" means sqlite.DefaultDir().
	DataDir string
	// MessagesURL is the page to show: https, or http on loopback (tests). "" means
	// DefaultMessagesURL (or the simulator in demo mode).
	MessagesURL string
	// Demo runs on the in-process simulator with the demo model, on the demo data
	// directory.
	Demo bool
	// PopupOrigins are extra origins allowed to open in-app popups (tests: the
	// simulator's sign-in origin).
	PopupOrigins []string
	// NoKeychain keeps the API key in the database instead of the OS keychain.
	NoKeychain bool
	// TestControlFile, when set, starts the loopback test control (see testcontrol.go)
	// and writes its URL there.
	TestControlFile string
	// StartHidden starts with the window hidden in the tray whatever the setting says
	// (the login entry passes --hidden).
	StartHidden bool
	// Version is shown in diagnostics and in About Clanker.
	Version string
	// LogFile is the file the logger also writes to ("" when none): diagnostics name
	// it and the Diagnostics menu opens its folder.
	LogFile string
	Logger  *slog.Logger
}

// effective is the settings the app currently runs with, and the key.
type effective struct {
	st     engine.Settings
	key    string
	hasKey bool
}

// App is the running Clanker app.
type App struct {
	opts  Options
	log   *slog.Logger
	dir   string
	store *sqlite.Store
	eng   *engine.Engine
	link  *page.Link
	shell *window.Shell

	sim  *sim.Server
	fake *model.Server

	ctx    context.Context
	cancel context.CancelFunc

	cur    atomic.Pointer[effective]
	hidden atomic.Bool
	// focused is whether the window is the active one, as the platform reports it
	// (Linux); elsewhere it stays true and only hiding counts as away.
	focused atomic.Bool
	inst    *session.Instance
	nt      notices
	hint    hint
	// idle hands freed memory back to the system after each burst of work.
	idle *idleRelease
	// updates looks for a newer release (nil in the demo); updateNotice is what it found.
	updates      *update.Checker
	updateNotice atomic.Pointer[update.Notice]

	lmu       sync.Mutex
	listeners map[int]func(menus.Status)
	// statusPush orders the deliveries of notify.
	statusPush latestFirst
	nextL      int
	closers    []func()

	// settingsExec, when set, makes the command of a settings process instead of this
	// program (tests).
	settingsExec func(args []string) *exec.Cmd
}

// DataDir resolves the data directory for the options (the demo's own inside it).
func DataDir(dir string, demo bool) (string, error) {
	if dir == "" {
		d, err := sqlite.DefaultDir()
		if err != nil {
			return "", err
		}
		dir = d
	}
	if demo {
		dir = filepath.Join(dir, DemoDirName)
	}
	return dir, nil
}

// OpenStore opens the store of a data directory with the keychain choice applied: the API
// key goes to the OS keychain unless noKeychain is set, and then to the database.
func OpenStore(dir string, noKeychain bool, log *slog.Logger) (*sqlite.Store, error) {
	s, err := sqlite.Open(dir)
	if err != nil {
		return nil, storeError(dir, err)
	}
	return withChoices(s, noKeychain, log), nil
}

// OpenDataStore resolves the data directory (the demo's with demo set) and opens its store
// with the keychain choice applied, for the subcommands that work on the stored data without
// running the app (config, diag). It never repairs or replaces a damaged database (only the
// app does, after salvaging what it can) and opens one the user cannot write for reading.
func OpenDataStore(dataDir string, demo, noKeychain bool, log *slog.Logger) (*sqlite.Store, error) {
	dir, err := DataDir(dataDir, demo)
	if err != nil {
		return nil, err
	}
	return OpenStoreNoRepair(dir, noKeychain, log)
}

// ErrAlreadyRunning is what New returns when another instance is running; that instance
// was asked to show its window.
var ErrAlreadyRunning = session.ErrAlreadyRunning

// CheckMessagesURL accepts https, or http on a loopback host (tests and the simulator).
func CheckMessagesURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("messages URL: %w", err)
	}
	switch {
	case u.Scheme == "https" && u.Host != "":
		return nil
	case u.Scheme == "http" && engine.IsLocalHost(u.Hostname()):
		return nil
	}
	return fmt.Errorf("messages URL %q must be https (plain http only on loopback)", raw)
}

// New prepares the app: store, settings, engine, link and shell. Nothing is shown until
// Run.
func New(opts Options) (a *App, err error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	a = &App{opts: opts, log: log, listeners: map[int]func(menus.Status){}}
	a.focused.Store(true)
	a.ctx, a.cancel = context.WithCancel(context.Background())
	// The error returns below set the result a to nil, so the cleanup keeps its own
	// reference to what was started.
	started := a
	defer func() {
		if err != nil {
			started.Close()
		}
	}()
	if a.dir, err = DataDir(opts.DataDir, opts.Demo); err != nil {
		return nil, err
	}
	// A folder the user cannot write is said so plainly, before the instance lock would
	// fail on it with a bare "permission denied".
	if err = sqlite.CheckWritable(a.dir); err != nil {
		return nil, err
	}
	// One app per data directory: a second launch asks the first to show its window and
	// gets session.ErrAlreadyRunning, before it touches the store.
	if a.inst, err = session.AcquireInstance(a.dir, nil, log); err != nil {
		return nil, err
	}
	// Closers capture what they close: an error return sets the result a to nil.
	inst := a.inst
	a.closers = append(a.closers, func() { _ = inst.Close() })
	// No display: one sentence now, rather than GTK's panic once the window opens.
	if err = session.CheckDisplay(); err != nil {
		return nil, err
	}
	if a.store, err = OpenStore(a.dir, opts.NoKeychain, log); err != nil {
		return nil, err
	}
	store := a.store
	a.closers = append(a.closers, func() { _ = store.Close() })
	// Settings windows close with the app (before the store, which they do not share).
	a.closers = append(a.closers, a.stopSettings)

	target := opts.MessagesURL
	popups := append([]string(nil), opts.PopupOrigins...)
	if opts.Demo {
		if err := a.startDemo(); err != nil {
			return nil, err
		}
		if target == "" {
			// The demo opens on the script's group, where friends are about to write.
			target = a.sim.ConversationURL(a.sim.ScriptGroup())
		}
		popups = append(popups, a.sim.AccountsURL())
	}
	if target == "" {
		target = DefaultMessagesURL
	}
	if err := CheckMessagesURL(target); err != nil {
		return nil, err
	}
	if err := a.reload(); err != nil {
		return nil, err
	}

	// The sidebar list the previous run left, so this run's first list can tell what came
	// in meanwhile. The demo's simulated phone starts afresh each run: nothing to compare.
	var remembered map[string]string
	var onList func(map[string]string)
	if !opts.Demo {
		if remembered, err = a.store.SidebarList(a.ctx); err != nil {
			log.Warn("the kept sidebar list is unreadable; messages that came while Clanker was closed are not notified", "err", err)
			remembered = nil
		}
		keeper := &listKeeper{store: a.store, log: log, interval: listKeepInterval}
		a.closers = append(a.closers, keeper.close)
		onList = keeper.keep
	}
	a.link, err = page.NewLink(page.LinkConfig{
		Exec:       a.execJS,
		Input:      shellInput{a},
		Events:     func(ev engine.Event) error { return a.eng.Send(ev) },
		OnSettings: func() { a.report(a.OpenSettings()) },
		OnChange:   a.notify,
		OnHintDone: a.hintDone,
		Remembered: remembered,
		OnList:     onList,
		Logger:     log,
	})
	if err != nil {
		return nil, err
	}
	a.closers = append(a.closers, a.link.Close)

	adapter := &llm.EngineAdapter{
		Config: a.llmConfig,
		Memory: a.store,
		Usage:  a.store,
		Budget: a.store,
		Images: images.NewPreparer(32<<20, a.store, log),
		Logger: log,
	}
	repairHistoryOnce(a.store, log)
	cur := a.cur.Load()
	var pg engine.Page = a.link
	if a.sim != nil {
		pg = demoPage{Page: a.link, a: a}
	}
	a.eng, err = engine.New(engine.Config{Page: pg, Store: a.store.Engine(), LLM: adapter, Logger: log,
		Settings: &cur.st, HasAPIKey: cur.hasKey, Desktop: newDesktopOut(a)})
	if err != nil {
		return nil, err
	}

	script, err := page.SealScript(inject.Script(), a.link.Nonce())
	if err != nil {
		return nil, err
	}
	title := "Clanker"
	if opts.Demo {
		title = "Clanker DEMO"
		a.link.SetBanner(bannerDemo, DemoBanner)
	}
	if opts.Demo {
		// The demo has its own data folder and shows its own guide, once.
		a.startHint(DemoGuideName, DemoGuide)
	} else {
		a.startHint(PillHintName, PillHint)
	}
	if r := a.store.Recovery(); r != nil {
		log.Warn("the database was damaged and replaced", "moved_to", r.MovedTo, "reason", r.Reason)
		a.link.SetBanner(bannerRecovery, r.Message())
	}
	var popupOrigins []string
	if len(popups) > 0 {
		popupOrigins = append([]string{originOf(target), "https://accounts.google.com"}, originsOf(popups)...)
	}
	startHidden := opts.StartHidden || a.cur.Load().st.StartHidden
	tray := session.TrayHostPresent()
	if !tray {
		log.Info("no tray host on this desktop: closing the window quits, and the window starts shown")
		startHidden = false
	}
	a.startNotifier()
	a.updates = newUpdateChecker(opts, a.dir, func() engine.Updates { return a.cur.Load().st.Updates }, a.onUpdateNotice, log)
	a.shell, err = window.New(window.Options{
		TargetURL:   target,
		Title:       title,
		Geometry:    a.loadGeometry(),
		StartHidden: startHidden,
		Spelling:    spelling(a.cur.Load().st.SpellCheck),
		HideOnClose: tray,
		Version:     opts.Version,
		Menus: &menus.MenuOptions{
			Controller: a,
			NoTray:     !tray,
			ShowText:   a.showText,
			Notify:     func(msg string) { a.notifyUser(session.ErrorNotification(msg)) },
			OpenLogFolder: func() func() error {
				if opts.LogFile == "" {
					return nil
				}
				return func() error { return session.OpenFolder(filepath.Dir(opts.LogFile)) }
			}(),
		},
		UserScript:   script,
		PopupOrigins: popupOrigins,
		OnEvent:      func(raw []byte) { a.idle.Touch(); a.link.HandleRaw(raw) },
		OnReady:      a.onReady,
		OnGeometry:   a.saveGeometry,
		OnFocus:      a.onFocus,
		OnPageNotification: func(shown bool) {
			log.Info("the page's own web notifications are refused: Clanker notifies about every incoming message itself", "tried_to_show", shown)
		},
		OnPopup: func(e window.PopupEvent) { log.Info("sign-in popup", "event", e.String()) },
		Logger:  log,
	})
	if err != nil {
		return nil, err
	}
	a.idle = newIdleRelease(idleQuiet, idleMaxWait, idleDeepQuiet, a.shell.ReleaseMemory)
	a.closers = append(a.closers, a.idle.Close)
	a.hidden.Store(startHidden)
	// Every Show and Hide (menus, the close button, a second launch) reaches the engine.
	a.shell.OnVisibility(func(visible bool) { a.sendVisibility(!visible) })
	a.inst.SetOnWake(func() { a.report(a.ShowWindow()) })
	return a, nil
}

func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Scheme + "://" + strings.ToLower(u.Host)
}

func originsOf(urls []string) []string {
	out := make([]string, 0, len(urls))
	for _, u := range urls {
		out = append(out, originOf(u))
	}
	return out
}

// DemoGuideName is the name under which the demo's store remembers that its guide was
// followed or dismissed (sqlite.Store.Seen).
const DemoGuideName = "demo_guide"

// DemoGuide is the demo's one-time guide, shown beside the status pill of the group the
// demo opens on (through the same hint as the first-conversation one, which the demo does
// not show).
const DemoGuide = "Try it: switch this conversation to Available here. Then friends who write " +
	"\u201cClanker, \u2026\u201d get an answer from the demo model; Active lets it join in by itself."

// startDemo starts the simulator with its demo content, its scripted friends and the demo
// model.
func (a *App) startDemo() error {
	s, err := sim.Start(sim.Options{Seed: 1, Logger: a.log.With("component", "sim"), Script: sim.DemoScript()})
	if err != nil {
		return fmt.Errorf("start the demo simulator: %w", err)
	}
	a.sim = s
	a.closers = append(a.closers, func() { _ = s.Close() })
	if a.fake, err = model.Start(a.log.With("component", "demo-model")); err != nil {
		return fmt.Errorf("start the demo model: %w", err)
	}
	a.closers = append(a.closers, a.fake.Close)
	a.log.Info("demo started", "simulator", s.URL())
	return nil
}

// demoPage passes the engine's commands to the page and tells the demo's script about each
// mode the status pill shows, so friends react when Clanker is switched on in their group.
type demoPage struct {
	engine.Page
	a *App
}

func (p demoPage) Do(cmd engine.Command) {
	p.Page.Do(cmd)
	if cmd.Kind == engine.CmdStatus {
		p.a.sim.ClankerMode(p.a.link.Current(), cmd.Text)
	}
}

// DemoEndpoint fills what the demo needs when the demo data has no real endpoint: the
// in-process fake model, a placeholder key, a model name and a user name. A real
// endpoint the user configured for the demo data is kept with its own key and model.
func DemoEndpoint(st engine.Settings, key, fakeURL string) (engine.Settings, string) {
	if st.Endpoint != "" {
		return st, key
	}
	st.Endpoint = fakeURL
	key = "demo-key-not-secret"
	st.Model = "clanker-demo"
	if st.UserName == "" {
		st.UserName = "Demo User"
	}
	return st, key
}

// reload reads settings and key from the store into the effective settings.
func (a *App) reload() error {
	st, err := a.store.Settings(a.ctx)
	if err != nil {
		// Unreadable stored settings come back as defaults with an error: run Uninitialized
		// and say why, rather than refuse to start.
		a.log.Error("settings could not be read; running unconfigured", "err", err)
	}
	key, _, err := a.store.APIKey(a.ctx)
	if err != nil {
		a.log.Error("the API key could not be read", "err", err)
	}
	if a.opts.Demo && a.fake != nil {
		st, key = DemoEndpoint(st, key, a.fake.BaseURL())
	}
	a.cur.Store(&effective{st: st, key: key, hasKey: key != ""})
	return nil
}

// llmConfig is called for every request, so saved changes apply to the next one. The
// engine asks only when it is configured, and names the model in the request; this only
// hands over the endpoint and the key.
func (a *App) llmConfig(conversation string) (llm.Config, error) {
	e := a.cur.Load()
	if e.key == "" {
		// The settings changed between the engine's decision and this request.
		return llm.Config{}, engine.ErrUninitialized
	}
	// The endpoint was checked when it was saved, but the database may hold an older or
	// hand-edited value: check it again before the key can go anywhere.
	endpoint, err := engine.NormalizeEndpoint(e.st.Endpoint)
	if err != nil {
		return llm.Config{}, err
	}
	return llm.Config{Endpoint: endpoint, APIKey: e.key, Model: e.st.Model}, nil
}

// execJS runs JavaScript in the page once the shell exists; earlier commands fail with
// window.ErrNotReady, and the link re-applies its banners when the bridge says hello.
func (a *App) execJS(js string) error {
	if a.shell == nil {
		return window.ErrNotReady
	}
	a.idle.Touch()
	return a.shell.ExecJS(js)
}

type shellInput struct{ a *App }

func (s shellInput) PressEnter(ctx context.Context) error {
	if s.a.shell == nil {
		return window.ErrNotReady
	}
	return s.a.shell.Input().PressEnter(ctx)
}

// Run shows the window and blocks until the app quits. It must be called from the main
// goroutine.
func (a *App) Run() error {
	engDone := make(chan error, 1)
	go func() { engDone <- a.eng.Run(a.ctx) }()
	changes, err := a.store.Watch(a.ctx, settingsPoll)
	if err != nil {
		return err
	}
	go a.watch(changes)
	if a.updates != nil {
		go a.updates.Run(a.ctx)
	}
	if a.opts.TestControlFile != "" {
		if err := a.startTestControl(a.opts.TestControlFile); err != nil {
			return err
		}
	}
	a.pruneAutostart()
	a.applyAutostart(a.cur.Load().st.Autostart)
	err = a.shell.Run()
	a.cancel()
	a.stopSettings()
	select {
	case <-engDone:
	case <-time.After(5 * time.Second):
		a.log.Warn("engine did not stop within 5 s")
	}
	return err
}

// watch applies settings saved by another process (or this one) to the engine, and
// carries out the memory edits the settings window asks for (through the engine, so no
// answer in flight writes over them).
func (a *App) watch(changes <-chan sqlite.Change) {
	for ch := range changes {
		if ch.MemoryEdits {
			a.applyMemoryEdits()
		}
		if !ch.Settings {
			continue
		}
		prev := a.cur.Load()
		if err := a.reload(); err != nil {
			a.log.Error("reload settings", "err", err)
			continue
		}
		e := a.cur.Load()
		if e.st.SpellCheck.Enabled != prev.st.SpellCheck.Enabled || !slices.Equal(e.st.SpellCheck.Languages, prev.st.SpellCheck.Languages) {
			a.applySpelling(e.st.SpellCheck)
		}
		if e.st.Autostart != prev.st.Autostart {
			a.applyAutostart(e.st.Autostart)
		}
		if a.updates != nil && e.st.Updates != prev.st.Updates {
			a.updates.SettingsChanged()
		}
		if err := a.eng.Send(engine.SettingsChanged{Settings: e.st, HasAPIKey: e.hasKey}); err != nil {
			a.log.Error("engine refused the new settings", "err", err)
		}
		a.log.Info("settings changed; applied", "configured", e.st.Configured(e.hasKey))
		a.notify()
	}
}

func (a *App) onReady() {
	if err := a.shell.SetupError(); err != nil {
		a.log.Error("native setup failed: replies cannot be sent (no trusted input)", "err", err)
	}
	if a.hidden.Load() {
		a.sendVisibility(true)
	}
	a.firstRun()
}

func (a *App) sendVisibility(hidden bool) {
	a.hidden.Store(hidden)
	if err := a.eng.Send(engine.WindowVisibility{Hidden: hidden}); err != nil {
		a.log.Warn("engine refused the window visibility", "err", err)
	}
	a.notify()
}

// Close stops everything New started. Safe to call more than once.
func (a *App) Close() {
	a.cancel()
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
	a.closers = nil
}

// geometryFile keeps the window geometry next to the database. It is a separate file so
// the settings window, which owns the settings row, never overwrites it.
const geometryFile = "window.json"

func (a *App) loadGeometry() *window.Geometry {
	b, err := os.ReadFile(filepath.Join(a.dir, geometryFile))
	if err != nil {
		return nil
	}
	var g window.Geometry
	if json.Unmarshal(b, &g) != nil || !g.Valid() {
		a.log.Warn("saved window geometry unusable; using the default size")
		return nil
	}
	return &g
}

func (a *App) saveGeometry(g window.Geometry) {
	b, _ := json.Marshal(g)
	path := filepath.Join(a.dir, geometryFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		a.log.Warn("save window geometry", "err", err)
		return
	}
	if err := os.Rename(tmp, path); err != nil {
		a.log.Warn("save window geometry", "err", err)
	}
}

func (a *App) report(err error) {
	if err != nil {
		a.log.Warn("action failed", "err", err)
	}
}

var errNoConversation = errors.New("no conversation is open")

// historyRepairName marks, among the app's one-time things, that the stored message history
// was checked for another conversation's messages (issue 33.1).
const historyRepairName = "history-repair-1"

// repairHistoryOnce removes, once per data folder, what an earlier version stored of one
// conversation's messages under another (Store.RepairHistory), and says so in the log. A
// failure is logged and tried again at the next start: the engine's own checks keep new
// mistakes out either way.
func repairHistoryOnce(s *sqlite.Store, log *slog.Logger) {
	if s.ReadOnly() {
		return
	}
	ctx := context.Background()
	if done, err := s.Seen(ctx, historyRepairName); err != nil || done {
		return
	}
	r, err := s.RepairHistory(ctx)
	if err != nil {
		log.Warn("could not check the stored message history; trying again at the next start", "err", err)
		return
	}
	log.Info("stored message history checked for messages of other conversations", "ids_removed", r.ForeignIDs, "pointers_cleared", r.Pointers)
	if err := s.MarkSeen(ctx, historyRepairName); err != nil {
		log.Warn("could not record the history check; it runs again at the next start", "err", err)
	}
}
