// Package ipc is the one rule for what a page may post to Wails, on Linux, Windows and
// macOS alike, as plain Go tested on every system.
//
// Wails dispatches every string an allowed origin posts to its message handler: "Q"
// quits, "H" and "S" hide and show the window, "BO:" opens a URL in the browser, "W..."
// moves and resizes the window, "EX" unsubscribes a Go listener, "C" calls bound
// methods. The Messages page is a remote page Clanker does not control, so the platform
// layer (app/desktop/internal/native) asks Guard about each message before Wails sees
// it: the remote page may post only the bridge's event envelopes, Clanker's own
// bootstrap page may post what Wails understands, and everything else is dropped,
// counted and logged (at most once per reason in a while).
//
// Each platform tells the rule what it knows of the sender. WebKitGTK reports no frame
// or sender of a script message, only the view, so on Linux the sender is the document
// the view shows; WebView2 reports the posting document and only top-level documents
// can post; WKWebView reports the frame, its security origin and the view.
package ipc
