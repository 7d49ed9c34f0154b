//go:build !(linux || freebsd || openbsd || netbsd)

package session

// CheckDisplay is nil on Windows and macOS, where a logged-in user always has a display.
func CheckDisplay() error { return nil }

// AvoidBusAutolaunch does nothing where there is no D-Bus session bus to start.
func AvoidBusAutolaunch() string { return "" }
