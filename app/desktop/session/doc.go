// Package session is Clanker's place in the user's desktop session: desktop
// notifications, reloading after resume from sleep, the single running instance per data
// directory, the start-at-login entry, and whether the desktop shows tray icons.
//
// It is the only package of the app that talks D-Bus (github.com/godbus/dbus): the
// freedesktop notification server, the StatusNotifierWatcher and the settings portal
// (the desktop's light or dark preference) on the session bus, logind on the system bus. It imports no other desktop package except internal/text
// and, on macOS, internal/native and internal/macos (the notification center is reached
// from Objective-C, and all of the app's cgo lives in internal/native), so the main
// window, the menus and the settings window can all use it.
//
// Linux is implemented and tested. On macOS, notifications go through
// UNUserNotificationCenter, the login item is a LaunchAgent (its file handling tested
// here on every system), and resume from sleep is watched by the window's native layer;
// they run only on a Mac (.github/workflows/macos.yml). The Windows files (autostart,
// single instance) compile but have not run; Windows has no notifications yet.
package session
