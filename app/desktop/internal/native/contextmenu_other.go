//go:build !linux

package native

// ContextMenu is false: on Windows and macOS the page's right-click menu is the
// web view's own, without the Clanker items (the app menu carries them). NOT TESTED:
// adding them needs WebView2's ContextMenuRequested event and WKUIDelegate's menu
// hooks, which cannot be built or run on the Linux machines this project is made on.
const ContextMenu = false
