//go:build !windows

package window

import "fyne.io/systray"

// trayLoop returns the functions that start and stop the tray. Outside Windows,
// systray runs on the loop it shares with Wails (on Linux it is pure D-Bus).
func trayLoop(onReady func()) (start, end func()) {
	return systray.RunWithExternalLoop(onReady, nil)
}
