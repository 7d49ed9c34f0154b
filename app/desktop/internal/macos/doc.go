// Package macos holds the decisions of Clanker's macOS layer as plain Go, so that they
// compile and are tested on every system, not only on a Mac.
//
// The Objective-C side (app/desktop/internal/native, the *_darwin files) only gathers
// facts from AppKit and WebKit, asks this package what to do, and does it: which script
// messages may reach Wails, which permissions a page gets, which key events make up a
// key press, what the page's right-click menu adds and drops, where a popup window goes,
// which failed loads show the offline page, and what a notification says.
//
// Nothing here imports cgo, Wails or the Objective-C runtime, and nothing here has a
// build tag: `go test ./app/desktop/internal/macos` runs the same tests on Linux, Windows
// and macOS.
package macos
