package window

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/internal/appearance"
	"github.com/clanker-desktop/clanker/app/desktop/internal/native"
	"github.com/clanker-desktop/clanker/app/desktop/internal/wailslog"
	"github.com/clanker-desktop/clanker/app/desktop/session"
	"github.com/clanker-desktop/clanker/frontend/bootstrap"
	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/options/windows"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// offlineURL is the bootstrap page in its offline state; the platform appends the
// escaped error text. It is Wails' own scheme on Linux; the Windows view moves it onto
// the origin Wails serves the app's pages from there (http://wails.localhost).
const offlineURL = "wails://wails/?offline="

// Shell is the main window of the app. Create it with New, then call Run from the main
// goroutine (GTK and Cocoa need the process's main thread); Run returns when the app quits.
// The other methods may be called from any goroutine once OnReady has fired.
type Shell struct {
	opts   Options
	origin string
	script string
	log    *slog.Logger
	plat   native.View

	ready     chan struct{}
	readyOnce sync.Once

	mu        sync.Mutex
	ctx       context.Context // Wails' context, set in OnStartup
	setupErr  error
	popups    int
	crashes   []time.Time
	geometry  Geometry
	geomTimer *time.Timer
	lastLoad  LoadEvent
	visible   bool
	visHooks  []func(bool)
	// wake turns the reports of one wake from sleep into one reload.
	wake session.WakeGate
	// active is the window's focus as the platform last reported it.
	active   atomic.Bool
	quitting bool

	tray      *Tray // nil without Options.Menus or with NoTray
	menuState shellMenus
	// webExt is the folder of the web-process extension WebKit was told to load, or "".
	webExt string
}

// New checks the options and prepares a shell; it does not open a window yet.
func New(opts Options) (*Shell, error) {
	origin, err := targetOrigin(opts.TargetURL)
	if err != nil {
		return nil, err
	}
	if opts.Title == "" {
		opts.Title = "Clanker"
	}
	if opts.UserAgent == "" && goruntime.GOOS != "windows" {
		// WebView2's own user agent is already a real browser's (Microsoft Edge on
		// Windows); a Safari string would misdescribe the engine to Google.
		opts.UserAgent = DefaultUserAgent
	}
	if opts.EventName == "" {
		opts.EventName = DefaultEventName
	}
	if opts.EventName == bootEventName {
		return nil, fmt.Errorf("desktop: event name %q is reserved for the bootstrap page", bootEventName)
	}
	if opts.OfflineRetry == 0 {
		opts.OfflineRetry = 30 * time.Second
	}
	if opts.PopupOrigins == nil {
		opts.PopupOrigins = []string{origin, "https://accounts.google.com"}
	}
	if opts.Geometry != nil && !opts.Geometry.Valid() {
		opts.Geometry = nil
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &Shell{
		opts:    opts,
		origin:  origin,
		script:  guardedScript(origin, opts.UserScript),
		log:     log.With("component", "desktop"),
		plat:    native.NewView(),
		ready:   make(chan struct{}),
		visible: !opts.StartHidden,
	}
	if err := s.initMenus(); err != nil {
		return nil, err
	}
	return s, nil
}

// webExtensionDir is the folder of the web-process extension found for the running binary.
func (s *Shell) webExtensionDir() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if dir := findWebExtension(exe); dir != "" {
		return dir
	}
	if native.WebExtensionFile != "" {
		s.log.Info("no web-process extension beside the binary: the page's process keeps the memory it freed until WebKit trims it", "looked_in", webExtensionDirs)
	}
	return ""
}

// Origin is the one origin whose pages may send events to Go.
func (s *Shell) Origin() string { return s.origin }

// Ready is closed once the window and the native layer are set up.
func (s *Shell) Ready() <-chan struct{} { return s.ready }

// Run opens the main window and blocks until the app quits.
func (s *Shell) Run() (err error) {
	if err := native.SetEvents(nativeEvents{s}); err != nil {
		return err
	}
	defer native.SetEvents(nil) //nolint:errcheck // clearing cannot fail
	defer wailslog.CatchDisplayFailure(&err)
	native.UseCPURendering(s.log)
	if dir := s.webExtensionDir(); dir != "" {
		// WebKit's default context, which Wails' view uses, is made here on this OS
		// thread; Wails then runs GTK on the same one (it locks this goroutine too).
		goruntime.LockOSThread()
		defer goruntime.UnlockOSThread()
		native.UseWebExtensions(dir)
		s.webExt = dir
		s.log.Info("the page's process loads Clanker's web-process extension (idle memory release)", "dir", dir)
	}
	err = wails.Run(s.appOptions())
	if err != nil {
		return fmt.Errorf("desktop: run the main window: %w", err)
	}
	return nil
}

// appOptions builds the Wails options. Bind stays empty on purpose: the Messages origin
// can call anything bound to this window.
func (s *Shell) appOptions() *options.App {
	w, h := DefaultWidth, DefaultHeight
	if g := s.opts.Geometry; g != nil {
		w, h = g.Width, g.Height
	}
	assets, err := fs.Sub(bootstrap.FS, ".")
	if err != nil {
		panic(err) // embedded FS: cannot fail
	}
	return &options.App{
		Title:                  s.opts.Title,
		Width:                  w,
		Height:                 h,
		MinWidth:               MinWidth,
		MinHeight:              MinHeight,
		StartHidden:            s.opts.StartHidden,
		OnBeforeClose:          s.onBeforeClose,
		BindingsAllowedOrigins: s.origin,
		AssetServer: &assetserver.Options{
			Assets:  assets,
			Handler: http.HandlerFunc(s.serveBootConfig),
		},
		Logger:             wailslog.New(s.log),
		LogLevel:           3, // info: keeps "Blocked request from unauthorized origin"
		LogLevelProduction: 3,
		Linux: &linux.Options{
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
			ProgramName:      "clanker",
		},
		Windows: &windows.Options{
			// WebView2's default, which a nil Windows block keeps and a non-nil one
			// would turn off: Ctrl+wheel and Ctrl+plus/minus zoom the page.
			IsZoomControlEnabled: true,
			// Wails raises them from WM_POWERBROADCAST on its UI thread, so the reload
			// runs on a goroutine. On Modern Standby machines the broadcast may not come
			// (Wails does not register for it); session.WatchResume registers, and both
			// reports pass the same gate.
			OnSuspend: s.wake.Suspended,
			OnResume:  func() { go s.woke("the window's power broadcast") },
		},
		EnableDefaultContextMenu: true, // spelling suggestions live in the context menu
		Menu:                     s.wailsMenu(),
		OnStartup:                s.onStartup,
		OnDomReady:               s.onDomReady,
		OnShutdown:               s.onShutdown,
	}
}

func (s *Shell) onStartup(ctx context.Context) {
	s.mu.Lock()
	s.ctx = ctx
	s.mu.Unlock()
	s.startMenus()
	runtime.EventsOn(ctx, s.opts.EventName, s.onPageEvent)
	runtime.EventsOn(ctx, bootEventName, s.onBootEvent)
	setupCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	err := s.plat.Setup(setupCtx, native.Config{
		UserAgent:  s.opts.UserAgent,
		UserScript: s.script,
		OfflineURL: offlineURL,
		Origin:     s.origin,
		EventName:  s.opts.EventName,
		Log:        s.log,
	})
	if err != nil {
		s.log.Error("native window setup failed; continuing without document-start injection and native input", "err", err)
	} else {
		s.applySpelling()
	}
	if g := s.opts.Geometry; g != nil {
		runtime.WindowSetPosition(ctx, g.X, g.Y)
	}
	s.mu.Lock()
	s.setupErr = err
	s.mu.Unlock()
	s.menusReady()
	// The page, the bootstrap page and the window's menus follow the desktop's light or
	// dark preference (on Linux through GTK; WebView2 and WKWebView do it themselves).
	go appearance.Follow(ctx, s.log)
	go func() {
		// Reload after resume from sleep: the platform's own wake report where it has
		// one (macOS), otherwise the session's (Windows' suspend and resume
		// notifications, logind on Linux); without one this only logs.
		var err error
		if w, ok := s.plat.(native.WakeWatcher); ok {
			err = w.WatchWake(ctx, func() { s.woke("the system's wake notification") })
		} else {
			err = session.WatchResume(ctx, s.wake.Suspended, func() { s.woke("the system's resume notification") }, s.log)
		}
		if err != nil {
			s.log.Info("not watching for resume from sleep", "err", err)
		}
	}()
	s.readyOnce.Do(func() { close(s.ready) })
	if s.opts.OnReady != nil {
		go s.opts.OnReady()
	}
}

// woke handles one report that the machine woke up: the first report of a wake reloads
// the page, the others of the same wake (several sources report it) do nothing.
func (s *Shell) woke(source string) {
	if !s.wake.Woke(time.Now()) {
		s.log.Debug("the same wake reported again", "source", source)
		return
	}
	s.log.Info("the machine woke up; reloading the page", "source", source)
	s.reloadAfterResume()
}

// reloadAfterResume reloads the page after the machine woke up: the Messages page's
// connection to the phone is often stale by then.
func (s *Shell) reloadAfterResume() {
	ctx, err := s.wailsCtx()
	if err != nil {
		return
	}
	if err := s.Reload(ctx); err != nil {
		s.log.Warn("reload after resume failed", "err", err)
	}
}

// onDomReady re-runs the user script when a load finished without it (the guard makes it
// a no-op when the document-start copy ran).
func (s *Shell) onDomReady(ctx context.Context) {
	if s.script != "" {
		runtime.WindowExecJS(ctx, s.script)
	}
}

// onPageEvent hands the payload over as bytes. The bridge sends the JSON text as a
// string (exact bytes); anything else is re-encoded so the receiver still gets JSON.
func (s *Shell) onPageEvent(data ...any) {
	if s.opts.OnEvent == nil || len(data) == 0 {
		return
	}
	var raw []byte
	switch v := data[0].(type) {
	case string:
		raw = []byte(v)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			s.log.Warn("page event dropped: cannot re-encode", "err", err)
			return
		}
		raw = b
	}
	s.opts.OnEvent(raw)
}

func (s *Shell) onBootEvent(data ...any) {
	if len(data) == 0 {
		return
	}
	var st struct {
		State  string `json:"state"`
		Reason string `json:"reason"`
	}
	if v, ok := data[0].(string); ok && len(v) < 4096 && json.Unmarshal([]byte(v), &st) == nil {
		s.log.Info("bootstrap page", "state", st.State, "reason", st.Reason)
	}
}

// serveBootConfig answers the bootstrap page. It waits for the native setup so the
// target never loads before the user agent and the document-start script are in place.
func (s *Shell) serveBootConfig(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != bootstrap.ConfigPath {
		http.NotFound(w, r)
		return
	}
	select {
	case <-s.ready:
	case <-time.After(20 * time.Second):
	case <-r.Context().Done():
		return
	}
	retry := int(s.opts.OfflineRetry / time.Second)
	if s.opts.OfflineRetry < 0 {
		retry = 0
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"target":       s.opts.TargetURL,
		"title":        s.opts.Title,
		"retrySeconds": retry,
	})
}

func (s *Shell) wailsCtx() (context.Context, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx == nil {
		return nil, ErrNotReady
	}
	return s.ctx, nil
}

// ExecJS runs JavaScript in whatever page the main window shows. It is fire-and-forget:
// results come back as page events. Text that carries data must be built so no value can
// end its string literal (page.EncodeCommand does this for bridge commands).
func (s *Shell) ExecJS(js string) error {
	ctx, err := s.wailsCtx()
	if err != nil {
		return err
	}
	runtime.WindowExecJS(ctx, js)
	return nil
}

// Show brings the main window back (from the tray).
func (s *Shell) Show() error {
	ctx, err := s.wailsCtx()
	if err != nil {
		return err
	}
	runtime.WindowShow(ctx)
	// Showing a window that is already shown but behind others, or minimised, does
	// nothing; presenting it brings it to the front with the keyboard.
	runtime.WindowUnminimise(ctx)
	s.setVisible(true)
	return nil
}

// Hide hides the main window; the page keeps running and native input still works.
func (s *Shell) Hide() error {
	ctx, err := s.wailsCtx()
	if err != nil {
		return err
	}
	runtime.WindowHide(ctx)
	s.setVisible(false)
	return nil
}

// Quit ends Run.
func (s *Shell) Quit() error {
	ctx, err := s.wailsCtx()
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.quitting = true
	s.mu.Unlock()
	runtime.Quit(ctx)
	return nil
}

// onBeforeClose runs when the user closes the window and when Quit is called (Wails
// sends both through the same path). With HideOnClose, closing hides the window through
// Hide, so the visibility hooks learn of it (Wails' own hide-on-close would not tell
// anyone), and only Quit ends the app.
func (s *Shell) onBeforeClose(_ context.Context) (prevent bool) {
	s.mu.Lock()
	quitting := s.quitting
	s.mu.Unlock()
	if quitting || !s.opts.HideOnClose {
		return false
	}
	if err := s.Hide(); err != nil {
		return false
	}
	s.log.Info("window closed: hidden to the tray")
	return true
}

// Reload reloads the page (after resume from sleep, or on the user's request).
func (s *Shell) Reload(ctx context.Context) error { return s.plat.Reload(ctx) }

// Input is the trusted native input of the main window.
func (s *Shell) Input() NativeInput { return s.plat.Input() }

// SetupError reports why the native layer could not be set up, or nil.
func (s *Shell) SetupError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.setupErr
}

// DroppedPageMessages is how many messages pages posted to Wails that the platform's
// guard kept from it (the Messages page may post only the bridge's events).
func (s *Shell) DroppedPageMessages() uint64 { return native.DroppedPageMessages() }

// OpenPopups is the number of popup windows currently open.
func (s *Shell) OpenPopups() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.popups
}

// Geometry is the last window geometry seen (zero before the first report).
func (s *Shell) Geometry() Geometry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.geometry
}

// The methods below are called by the platform from the GTK main thread: they must not
// block and must not wait for the main thread; user callbacks run on goroutines.

// popupAllowed decides whether window.open(url) opens in-app; otherwise the URL goes to
// OpenExternal (only http and https: other schemes are dropped).
func (s *Shell) popupAllowed(url string) bool {
	o := originOf(url)
	for _, allowed := range s.opts.PopupOrigins {
		if o != "" && o == allowed {
			return true
		}
	}
	s.log.Info("popup refused in-app; opening outside", "origin", o)
	if o != "" {
		go s.openExternal(url)
	}
	return false
}

// OpenInBrowser opens an http or https address in the user's browser (a release page the
// menus offer). Other schemes are refused.
func (s *Shell) OpenInBrowser(url string) error {
	if !strings.HasPrefix(url, "https://") && !strings.HasPrefix(url, "http://") {
		return fmt.Errorf("not a web address: %q", url)
	}
	if s.opts.OpenExternal == nil {
		if _, err := s.wailsCtx(); err != nil {
			return err
		}
	}
	s.openExternal(url)
	return nil
}

func (s *Shell) openExternal(url string) {
	if s.opts.OpenExternal != nil {
		s.opts.OpenExternal(url)
		return
	}
	if ctx, err := s.wailsCtx(); err == nil {
		runtime.BrowserOpenURL(ctx, url)
	}
}

func (s *Shell) popupEvent(e PopupEvent) {
	s.mu.Lock()
	switch e {
	case PopupCreated:
		s.popups++
	case PopupClosed:
		if s.popups > 0 {
			s.popups--
		}
	}
	s.mu.Unlock()
	s.log.Info("popup", "event", e.String())
	if s.opts.OnPopup != nil {
		go s.opts.OnPopup(e)
	}
}

func (s *Shell) loadEvent(e LoadEvent) {
	s.mu.Lock()
	s.lastLoad = e
	s.mu.Unlock()
	if e.Failed {
		// The URL can carry a conversation id: keep it out of info logs.
		s.log.Warn("page load failed; showing the offline page", "err", e.Error)
		s.log.Debug("failed load", "url", e.URL)
	}
	if s.opts.OnLoad != nil {
		go s.opts.OnLoad(e)
	}
}

// crashWindow and maxCrashes bound the reload loop when the page kills its web process
// again and again: after maxCrashes in crashWindow, reloads wait longer.
const (
	crashWindow = 2 * time.Minute
	maxCrashes  = 3
)

func (s *Shell) webProcessTerminated(reason int) {
	now := time.Now()
	s.mu.Lock()
	kept := s.crashes[:0]
	for _, t := range s.crashes {
		if now.Sub(t) < crashWindow {
			kept = append(kept, t)
		}
	}
	s.crashes = append(kept, now)
	n := len(s.crashes)
	s.mu.Unlock()
	delay := reloadDelay(n)
	s.log.Warn("web process ended; reloading", "reason", reason, "crashes_recent", n, "delay", delay)
	time.AfterFunc(delay, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.plat.Reload(ctx); err != nil && !errors.Is(err, ErrNotReady) {
			s.log.Error("reload after web process crash failed", "err", err)
		}
	})
}

// reloadDelay is the wait before the n-th reload within crashWindow.
func reloadDelay(n int) time.Duration {
	if n <= maxCrashes {
		return 200 * time.Millisecond
	}
	d := 5 * time.Second << (n - maxCrashes - 1)
	if d > time.Minute || d <= 0 {
		d = time.Minute
	}
	return d
}

// geometryDebounce groups the stream of configure events of one move or resize.
const geometryDebounce = 500 * time.Millisecond

func (s *Shell) geometryChanged(g Geometry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g == s.geometry {
		return
	}
	s.geometry = g
	if s.opts.OnGeometry == nil || !g.Valid() {
		return
	}
	if s.geomTimer != nil {
		s.geomTimer.Stop()
	}
	s.geomTimer = time.AfterFunc(geometryDebounce, func() {
		s.mu.Lock()
		cur := s.geometry
		s.mu.Unlock()
		s.opts.OnGeometry(cur)
	})
}
