//go:build !linux

package run

// trayHostPresent is true on Windows and macOS, whose notification area and menu bar
// always show the tray icon.
func trayHostPresent() bool { return true }
