package window

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/menus"
)

// DefaultEventName is the Wails event the bridge emits page events under.
const DefaultEventName = "clanker:event"

// DefaultUserAgent is the user agent the main window sends unless Options.UserAgent says
// otherwise: a current Safari, the browser whose engine this is, so Google serves the
// page it serves Safari. WebKitGTK's own string says "Version/60.5", which reads as an
// ancient Safari, and Wails adds "wails.io" to it; Google may refuse either. Update the
// version numbers when Safari's major version moves on.
const DefaultUserAgent = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Safari/605.1.15"

// bootEventName is what the bootstrap page reports its state under (logged only).
const bootEventName = "clanker:boot"

// Geometry is the main window's position and size in screen pixels. The app persists
// what OnGeometry reports and passes it back in Options.Geometry at the next start.
type Geometry struct {
	X, Y          int
	Width, Height int
}

// Valid reports whether the geometry is usable as a start geometry (a saved value may be
// garbage after a monitor change or a damaged file).
func (g Geometry) Valid() bool {
	return g.Width >= MinWidth && g.Height >= MinHeight && g.Width <= 16384 && g.Height <= 16384 &&
		g.X > -16384 && g.X < 16384 && g.Y > -16384 && g.Y < 16384
}

// Window size limits and defaults.
const (
	MinWidth      = 400
	MinHeight     = 300
	DefaultWidth  = 1100
	DefaultHeight = 800
)

// LoadEvent is a main-frame load of the main window: committed, finished or failed.
type LoadEvent struct {
	URL      string
	Finished bool
	Failed   bool
	Error    string
}

// PopupEvent says what happened to a window.open popup (e.g. Google sign-in).
type PopupEvent int

// Popup lifecycle: created by window.open, shown when the page is ready, closed when the
// popup called window.close() or the user closed it.
const (
	PopupCreated PopupEvent = iota + 1
	PopupShown
	PopupClosed
)

func (e PopupEvent) String() string {
	switch e {
	case PopupCreated:
		return "created"
	case PopupShown:
		return "shown"
	case PopupClosed:
		return "closed"
	}
	return fmt.Sprintf("PopupEvent(%d)", int(e))
}

// Options configure a Shell. TargetURL is required; everything else has a default.
// Callbacks run on their own goroutines, never on the GTK main thread, and may block.
type Options struct {
	// TargetURL is the page the main window shows: https, or http on a loopback host
	// (tests and the demo simulator).
	TargetURL string
	// Title is the window title (default "Clanker").
	Title string
	// Geometry is the remembered window geometry; ignored when not Valid.
	Geometry *Geometry
	// StartHidden keeps the main window hidden at start (tray mode).
	StartHidden bool
	// Spelling is the page's spell checking at start (nil: the platform's default, which
	// on Linux checks the system's language); SetSpelling changes it later.
	Spelling *Spelling
	// HideOnClose hides the window instead of quitting when the user closes it.
	HideOnClose bool
	// UserAgent replaces Wails' user agent (default DefaultUserAgent; on Windows the
	// default is WebView2's own, which is Microsoft Edge's, without Wails' suffix).
	UserAgent string
	// UserScript is injected into every load of the target origin at document start, and
	// again on DOM ready if it has not run (a guard keeps it to once per document).
	UserScript string
	// EventName is the Wails event name page events arrive under (default DefaultEventName).
	EventName string
	// PopupOrigins are the origins window.open may show in an in-app popup window that
	// shares the session (default: the target's origin and https://accounts.google.com).
	// Popups for anything else are handed to OpenExternal.
	PopupOrigins []string
	// OpenExternal opens a URL outside the app (default: the system browser).
	OpenExternal func(url string)
	// OnEvent receives each page event's payload as raw JSON bytes, unvalidated.
	OnEvent func(raw []byte)
	// OnReady is called once the window and the native layer are set up.
	OnReady func()
	// OnLoad observes main-frame loads (for status and diagnostics).
	OnLoad func(LoadEvent)
	// OnPopup observes the popup lifecycle.
	OnPopup func(PopupEvent)
	// OnGeometry receives the window geometry after the user moved or resized it
	// (debounced), for the app to persist.
	OnGeometry func(Geometry)
	// OnFocus receives whether the main window is the active window (in front, with the
	// keyboard) each time that changes; called on its own goroutine. Linux reports it.
	OnFocus func(active bool)
	// OnPageNotification is told when the page asked for web notifications (refused) or
	// tried to show one (swallowed); called on its own goroutine.
	OnPageNotification func(shown bool)
	// OfflineRetry is how often the offline page retries on its own (default 30 s;
	// negative disables automatic retry, leaving the Retry button).
	OfflineRetry time.Duration
	// Logger receives the shell's and Wails' logs (default slog.Default()).
	Logger *slog.Logger
	// Version is the app's version, shown by About Clanker.
	Version string
	// Menus, when set, gives the app the Clanker menu: a tray icon (unless Menus.NoTray)
	// started and stopped with the window, the window's menu bar (Clanker, Edit, View)
	// and, on Linux, the Clanker items in the page's right-click menu. Nil keeps the
	// bare shell (tests of the platform layer).
	Menus *menus.MenuOptions
}

// targetOrigin checks the target URL and returns its origin (scheme://host[:port]),
// which is the only origin allowed to talk to Go.
func targetOrigin(raw string) (string, error) {
	if raw == "" {
		return "", errors.New("desktop: no target URL given")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("desktop: target URL: %w", err)
	}
	if u.User != nil {
		return "", errors.New("desktop: target URL must not carry credentials")
	}
	host := u.Hostname()
	if host == "" || strings.ContainsAny(u.Host, "*,") {
		return "", fmt.Errorf("desktop: target URL %q has no usable host", raw)
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !isLoopback(host) {
			return "", fmt.Errorf("desktop: target URL %q must be https (plain http is allowed only on loopback)", raw)
		}
	default:
		return "", fmt.Errorf("desktop: target URL %q must be https", raw)
	}
	return u.Scheme + "://" + strings.ToLower(u.Host), nil
}

// originOf returns scheme://host[:port] of an absolute http(s) URL, or "".
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return ""
	}
	return u.Scheme + "://" + strings.ToLower(u.Host)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
