//go:build !linux

package session

// TrayHostPresent is true on Windows and macOS, whose notification area and menu bar
// always show the tray icon.
func TrayHostPresent() bool { return true }
