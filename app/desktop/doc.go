// Package desktop holds no code: it is the map of the desktop shell, split by concern.
//
//   - window: the main window and its web view (the Shell the app runs), the bridge
//     script's injection, native input, popups, the offline page, and the menus and
//     the tray on screen.
//   - menus: the models of the app menu, the tray menu and the right-click items, the
//     Controller they drive and the one implementation of their actions. No cgo, no
//     Wails runtime.
//   - settingswin: the settings window, run in its own process, and its service.
//   - session: the desktop session: notifications, resume from sleep, single instance,
//     autostart, the tray-host check. The only package that speaks D-Bus.
//   - internal/native: everything native under the main window and all of the cgo, one
//     file per platform (_linux, _windows, _darwin, _other).
//   - internal/macos: the decisions of the macOS layer as plain Go (which page messages
//     reach Wails, permissions, key events, menu items, notification contents), so they
//     are tested on every system although the Objective-C only builds on a Mac.
//   - internal/ipc: the one rule, for every platform, of which page messages reach Wails.
//   - internal/text, internal/wailslog: the rules for showing untrusted text, and the
//     Wails-to-slog log adapter.
//   - internal/appearance: the light or dark preference, read by session from the
//     desktop and handed by it to internal/native; both window processes run it.
//
// Imports run one way: window uses menus, session, internal/appearance, internal/native and
// internal/wailslog; settingswin uses internal/appearance, internal/native and
// internal/wailslog; internal/appearance uses session and internal/native; internal/native uses menus for
// plain menu data, internal/macos for its rules and internal/ipc for which page messages
// reach Wails; internal/macos uses menus; menus uses no other desktop package except
// internal/text; session uses internal/text and, on macOS only, internal/native and
// internal/macos for notifications; internal/ipc, internal/text and internal/wailslog use
// none. TestLayering checks this (desktopImports in layering_test.go at the repository
// root), so a new import or package here changes that table too.
package desktop
