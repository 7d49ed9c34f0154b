// Package session is Clanker's place in the user's desktop session: desktop
// notifications, reloading after resume from sleep, the single running instance per data
// directory, the start-at-login entry, and whether the desktop shows tray icons.
//
// It is the only package of the app that talks D-Bus (github.com/godbus/dbus): the
// freedesktop notification server and the StatusNotifierWatcher on the session bus,
// logind on the system bus. It imports no other desktop package except internal/text,
// so the main window, the menus and the settings window can all use it.
//
// Linux is implemented and tested. The Windows and macOS files (autostart, single
// instance) compile but have not run; notifications are Linux-only so far.
package session
