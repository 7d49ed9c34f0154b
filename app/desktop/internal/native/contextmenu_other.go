//go:build !linux && !darwin && !windows

package native

// ContextMenu is false: on other systems the page's right-click menu is the web view's
// own, without the Clanker items (the app menu carries them). Linux, Windows and macOS
// have their own files.
const ContextMenu = false
