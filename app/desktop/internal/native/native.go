// Package native is the platform layer under the main window: everything that reaches
// past Wails into the web view itself, and all of the app's cgo. One file per platform
// implements View:
//
//   - platform_linux.go (with webkit_linux.c, appmenu_linux.c, contextmenu_linux.c):
//     WebKitGTK 4.1, implemented and tested: document-start script, user agent, popups,
//     crash reload, a trusted Enter key while hidden, zoom, editing commands, the GTK menu
//     bar kept in step with the model, and the Clanker items of the page's right-click
//     menu.
//   - platform_windows.go (with webview2_windows.go, popup_windows.go,
//     contextmenu_windows.go): WebView2 under Wails, written against the WebView2 SDK and
//     not run here: the web message and permission guards (guard.go), document-start
//     script, user agent, popups sharing the session, crash reload and a restart of the
//     app after the browser process died, load reports with the offline page, trusted keys through CDP (cdp.go) that
//     work while hidden, and the Clanker items of the page's right-click menu. The parts
//     that are not COM calls are in platform-neutral files and tested everywhere.
//   - platform_darwin.go (with webkit_darwin.m, contextmenu_darwin.m, notify_darwin.m):
//     WKWebView, written against Apple's documented API: document-start script, user
//     agent, a guard in front of Wails' message handler, popups, crash and wake reload,
//     permissions, a trusted Enter key as NSEvents handed to the view, the Clanker items
//     of the right-click menu, and user notifications. It cannot be built on Linux; its
//     decisions are plain Go in app/desktop/internal/macos, tested everywhere, and
//     .github/workflows/macos.yml builds and smoke-tests it on a Mac.
//   - platform_other.go: any other system. Not implemented.
//
// The package knows nothing of Clanker's rules or of the Shell: package window drives it
// through View and receives what the web view reports through Events. It imports
// app/desktop/menus, for the plain data of the menus it draws, and on macOS
// app/desktop/internal/macos, whose rules its Objective-C carries out. On macOS it also
// serves package session: the notification center is reached from Objective-C too.
package native

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/clanker-desktop/clanker/app/desktop/menus"
)

// Config is what Setup applies to the main view.
type Config struct {
	// UserAgent replaces the web view's user agent ("" keeps its own).
	UserAgent string
	// UserScript runs at document start in every load ("" for none).
	UserScript string
	// OfflineURL is loaded when a main-frame load fails; the error text is appended.
	OfflineURL string
	// Origin is the Messages page's origin (scheme://host[:port]): the only remote page
	// that may talk to the app and be given what pages ask for. Wails checks it too; the
	// guard every platform puts in front of Wails' message handler lets this origin post
	// only the bridge's events (EventName), and page permissions go to it alone.
	Origin string
	// EventName is the Wails event the bridge emits under.
	EventName string
	// Log receives the platform's reports (dropped messages, refused permissions,
	// recoveries); nil means slog.Default().
	Log *slog.Logger
}

// View is the native part of the main window, one implementation per OS.
type View interface {
	// Setup finds the web view and configures it; it runs once, before the target loads.
	Setup(ctx context.Context, cfg Config) error
	// Reload reloads the main view.
	Reload(ctx context.Context) error
	// Input is the trusted key input of the main view.
	Input() Input
}

// MenuView is the native side of the app menu, zoom and editing. Linux implements it;
// elsewhere the window falls back to Wails' own menu update and to script in the page.
type MenuView interface {
	SetZoom(ctx context.Context, level float64) error
	ZoomLevel(ctx context.Context) (float64, error)
	EditCommand(ctx context.Context, cmd menus.EditCommand) error
	// SyncAppMenu runs update on the GUI thread and copies the items it returns into
	// the menu bar's first menu.
	SyncAppMenu(ctx context.Context, update func() []menus.NativeItem) error
	// MenuDump describes the menu bar (which 0) or the popup menus on screen (which 1)
	// as text, for tests and diagnostics.
	MenuDump(ctx context.Context, which int) (string, error)
}

// ContextMenuView adds the Clanker items to the page's right-click menu (Linux). A click
// on one reaches Events.ContextMenuActivated.
type ContextMenuView interface {
	InstallContextMenu(ctx context.Context) error
	SetContextMenuStatus(ctx context.Context, c menus.ContextMenuState) error
	ActivateContextAction(ctx context.Context, name, target string) error
}

// MemoryView is implemented where the page's process can be asked to hand freed memory
// back (Linux, through Clanker's web-process extension); deep adds the pages of code and
// read-only data it read once (see PageOutFileMappings).
type MemoryView interface {
	ReleaseWebProcessMemory(ctx context.Context, deep bool) error
	// WebProcessReleases is how many requests the extension has answered.
	WebProcessReleases(ctx context.Context) (int, error)
}

// AttentionView is implemented where the window can ask for the user's attention (Linux:
// the window's urgency hint, which the window manager shows until the user comes to it).
type AttentionView interface {
	SetUrgent(ctx context.Context, on bool) error
}

// SpellView is implemented where the page's spell checking can be set while it runs
// (Linux: the WebKit context's spell-checking setting and languages).
type SpellView interface {
	// SetSpellChecking turns spell checking on or off; languages are dictionary names,
	// and none means the system's language.
	SetSpellChecking(ctx context.Context, on bool, languages []string) error
	// SpellChecking reads the setting back: whether it is on, and the languages the
	// platform checks (those it has a dictionary for).
	SpellChecking(ctx context.Context) (on bool, languages []string, err error)
}

// MainThread is implemented where other native work must run on the GUI thread and
// the platform can put it there: on macOS the tray's status item, which AppKit only
// lets the main thread create, while Wails' OnStartup runs on another goroutine.
type MainThread interface {
	RunOnMainThread(ctx context.Context, fn func()) error
}

// WakeWatcher is implemented where the platform itself reports the end of a sleep
// (macOS: NSWorkspaceDidWakeNotification). Elsewhere session.WatchResume does (logind).
// WatchWake calls onWake after each wake until ctx ends, and returns then.
type WakeWatcher interface {
	WatchWake(ctx context.Context, onWake func()) error
}

// Input delivers key presses that the page receives as trusted (event.isTrusted),
// as from a real keyboard. Google Messages ignores script-made key events and clicks, so
// the final Enter of a reply goes through here; the text itself is inserted by the bridge.
//
// Keys go to whatever element has focus in the page; the caller focuses the compose box
// (through the bridge) first. PressEnter waits until the platform has delivered the
// events to the web view, or ctx ends. It works while the window is hidden.
type Input interface {
	// PressEnter presses and releases the Enter key.
	PressEnter(ctx context.Context) error
}

// ErrNotReady is returned when input or reload is asked for before the window exists.
var ErrNotReady = errors.New("desktop: the main window is not ready yet")

// ErrUnsupported is returned by platforms without a native input implementation.
var ErrUnsupported = errors.New("desktop: native input is not implemented on this platform")

// Events receives what the web view reports. The platform calls it on the GUI thread:
// no method may block or wait for that thread, so user callbacks go to goroutines.
type Events interface {
	// PopupAllowed decides whether window.open(url) opens an in-app popup.
	PopupAllowed(url string) bool
	PopupCreated()
	PopupShown()
	PopupClosed()
	// LoadChanged reports a main-frame load committed (finished false) or finished.
	LoadChanged(url string, finished bool)
	// LoadFailed reports a failed main-frame load; the offline page is shown.
	LoadFailed(url, message string)
	// WebProcessTerminated reports that the web process ended (the platform's reason).
	WebProcessTerminated(reason int)
	// BrowserProcessEnded reports that the web view can no longer be used (WebView2's
	// browser process died); it returns whether the app restarts itself, and if not the
	// platform ends the app with its own message.
	BrowserProcessEnded() (restarting bool)
	// GeometryChanged reports the window's position and size.
	GeometryChanged(x, y, width, height int)
	// ContextMenuActivated reports a click on a Clanker item of the right-click menu.
	ContextMenuActivated(name, target string)
	// FocusChanged reports whether the main window is the active one (in front, with
	// the keyboard). Linux reports it; elsewhere it is not called yet.
	FocusChanged(active bool)
	// PageNotification reports that the page asked to show web notifications (shown
	// false: the permission request, refused) or tried to show one (shown true,
	// swallowed): Clanker's own notification covers every incoming message.
	PageNotification(shown bool)
}

// events is the one receiver of this process; the platform's callbacks report to it.
var (
	eventsMu sync.Mutex
	events   Events
)

// SetEvents makes e the receiver of the web view's reports, or clears it (nil). There
// is one main window per process: setting a second receiver fails.
func SetEvents(e Events) error {
	eventsMu.Lock()
	defer eventsMu.Unlock()
	if events != nil && e != nil {
		return errors.New("desktop: only one Shell can run per process")
	}
	events = e
	return nil
}

// withEvents runs fn with the receiver, if one is set.
func withEvents(fn func(Events)) {
	eventsMu.Lock()
	e := events
	eventsMu.Unlock()
	if e != nil {
		fn(e)
	}
}
