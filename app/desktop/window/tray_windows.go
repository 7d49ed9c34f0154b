//go:build windows

package window

import (
	"runtime"

	"fyne.io/systray"
)

// trayLoop returns the functions that start and stop the tray on Windows, where it gets
// a thread and a message loop of its own.
//
// Win32 delivers a window's messages only to the thread that created it. systray's
// RunWithExternalLoop creates its hidden window on the calling thread and then pumps
// messages on a new, unlocked goroutine, which is another thread: nothing would reach
// the tray. Sharing Wails' loop instead (creating the tray on Wails' UI thread) would
// work, but systray's Quit then posts the quit message that ends Wails' loop too. So the
// tray runs systray.Run on a goroutine locked to its own thread: its window, its menu
// and its loop live there, beside Wails' loop, and Quit ends only that loop.
//
// NOT RUN HERE: compiled and vetted on Linux only; the Windows workflow starts the app
// with its tray.
func trayLoop(onReady func()) (start, end func()) {
	start = func() {
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the loop
			systray.Run(onReady, nil)
		}()
	}
	return start, systray.Quit
}
