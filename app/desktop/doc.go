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
//   - internal/text, internal/wailslog: the rules for showing untrusted text, and the
//     Wails-to-slog log adapter.
//
// Imports run one way: window uses menus, session and internal/native; internal/native
// uses menus for plain menu data; menus and session use no other desktop package
// except internal/text.
package desktop
