// Package desktop is the platform layer of the Clanker app: the Wails main window that
// shows the Messages page, the bridge script injected into it, the event channel from
// the page to Go, JavaScript execution toward the page, trusted native key input,
// sign-in popups, crash recovery and window geometry.
//
// It knows nothing about Clanker's rules. The page's events are handed over as raw JSON
// bytes for app/page to validate, and commands arrive as JavaScript text built by the
// caller. Nothing is bound to the main window: the Messages origin may send any Wails
// dispatcher message, so exposing Go methods there would hand them to the page.
//
// Linux (WebKitGTK 4.1, build tag webkit2_41) is the implemented and tested platform.
// The Windows and macOS files compile but have never run; see platform_windows.go and
// platform_darwin.go.
package desktop
