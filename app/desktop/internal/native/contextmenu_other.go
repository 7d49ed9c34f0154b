//go:build !linux && !darwin

package native

// ContextMenu is false: on Windows the page's right-click menu is the web view's own,
// without the Clanker items (the app menu carries them). NOT TESTED: adding them needs
// WebView2's ContextMenuRequested event, which cannot be built or run on the Linux
// machines this project is made on.
const ContextMenu = false
