// Package window is the main window of the Clanker app: the Wails window that shows the
// Messages page, the bridge script injected into it, the event channel from the page to
// Go, JavaScript execution toward the page, trusted native key input, sign-in popups,
// crash recovery, window geometry, the bootstrap and offline pages, and the menus on
// screen (the menu bar, the tray through fyne.io/systray, the page's right-click items),
// whose models live in app/desktop/menus.
//
// It knows nothing about Clanker's rules. The page's events are handed over as raw JSON
// bytes for app/page to validate, and commands arrive as JavaScript text built by the
// caller. Nothing is bound to the main window: the Messages origin may send any Wails
// dispatcher message, so exposing Go methods there would hand them to the page.
//
// What reaches past Wails into the web view is in app/desktop/internal/native, one file
// per platform. Linux (WebKitGTK 4.1, build tag webkit2_41) is the implemented and
// tested platform; the Windows layer (WebView2) is written against the WebView2 SDK,
// with its rules tested on every OS and the rest exercised only by the Windows
// workflow; the macOS layer (WKWebView, Objective-C) is written against Apple's
// documented API, its decisions are tested everywhere (app/desktop/internal/macos), and
// it is built and smoke-tested only on a Mac runner.
//
// The Shell's methods are filed by concern: shell.go (the type, New, Run, Wails' start-up
// and shutdown), page.go (events from the page, scripts into it, native input), reload.go
// (failed loads, reloads after a crash or a wake), showhide.go (show, hide, close, quit,
// attention), geometry.go, popups.go, menus.go (tray, app menu, right-click items, the
// status they show), zoom.go, editing.go (edit commands, spell checking), dialogs.go,
// memory.go (idle memory release, the web-process extension) and restart.go (after
// WebView2's browser process ends).
package window
