//go:build linux

package session

import "github.com/godbus/dbus/v5"

// TrayHostPresent reports whether the desktop shows tray icons: on Linux that is a
// StatusNotifierWatcher on the session bus. Without one a hidden window could never be
// brought back, so closing the window quits instead of hiding it.
func TrayHostPresent() bool {
	conn, err := dbus.SessionBusPrivate()
	if err != nil {
		return false
	}
	defer conn.Close()
	if conn.Auth(nil) != nil || conn.Hello() != nil {
		return false
	}
	var has bool
	err = conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&has)
	return err == nil && has
}
