//go:build linux || freebsd || openbsd || netbsd

package session

import (
	"errors"
	"os"
	"path/filepath"
)

// ErrNoDisplay is returned by CheckDisplay when no graphical session can be reached. Without
// it GTK fails to start deep inside Wails, which panics with a Go trace.
var ErrNoDisplay = errors.New("no graphical desktop session: neither DISPLAY nor WAYLAND_DISPLAY is set; " +
	"start Clanker from your desktop (clanker config and clanker diag work without one)")

// CheckDisplay returns ErrNoDisplay when neither an X11 nor a Wayland display is named in
// the environment. A named display that cannot be opened is caught where the window starts.
func CheckDisplay() error {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return ErrNoDisplay
	}
	return nil
}

// busDisabled is a bus address no client can connect to. Both godbus and GLib fail on it at
// once, where an unset address makes each of them start a session bus of their own with
// dbus-launch, which outlives the app and is never stopped.
const busDisabled = "disabled:"

// AvoidBusAutolaunch makes sure that nothing in this process starts a session bus. When
// DBUS_SESSION_BUS_ADDRESS is unset and the usual socket ($XDG_RUNTIME_DIR/bus) is not
// there, it sets the address to one that cannot be connected to, so notifications, the tray
// and the tray-host check simply find no bus, and returns a note for the log; otherwise it
// changes nothing and returns "".
func AvoidBusAutolaunch() string {
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		return ""
	}
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" {
		if fi, err := os.Stat(filepath.Join(rt, "bus")); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return ""
		}
	}
	os.Setenv("DBUS_SESSION_BUS_ADDRESS", busDisabled)
	return "no session D-Bus: desktop notifications and the tray icon are off (no bus is started for them)"
}
