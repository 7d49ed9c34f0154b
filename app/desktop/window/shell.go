package window

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	goruntime "runtime"
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

// The Shell: its options made whole (New), the Wails application it runs (Run,
// appOptions), and Wails' start-up and shutdown callbacks.

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
	// recovery watches that the page loads again after its web process ended.
	recovery *pageRecovery
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
	s.recovery = s.newRecovery()
	if err := s.initMenus(); err != nil {
		return nil, err
	}
	return s, nil
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

func (s *Shell) wailsCtx() (context.Context, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx == nil {
		return nil, ErrNotReady
	}
	return s.ctx, nil
}

// SetupError reports why the native layer could not be set up, or nil.
func (s *Shell) SetupError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.setupErr
}

func (s *Shell) onShutdown(_ context.Context) {
	s.recovery.stop()
	s.stopAppMenu()
	if s.tray != nil {
		s.tray.Stop()
	}
}
