// Package menus is the model of Clanker's menus: the app menu bar, the tray menu and the
// Clanker items of the page's right-click menu, and the Controller they drive. Every
// menu calls the same Actions, so a click does the same thing wherever it comes from;
// what the menus show is computed here from the Controller's Status.
//
// It draws nothing natively and imports neither the window nor cgo, so its tests run
// with CGO_ENABLED=0. The app menu is built as a Wails menu model (the pure-Go
// wailsapp/wails/v2/pkg/menu package, no Wails runtime), because that is what Wails
// shows on Windows and macOS; package window puts it on screen, keeps the GTK menu bar
// in step on Linux and draws the tray with fyne.io/systray.
package menus
