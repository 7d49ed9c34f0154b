package native

import "context"

// Loader loads a URL into the main view as a new navigation, whatever the view showed
// before and whether or not its web process runs. A reload is not enough after the web
// process ended: it reloads the page only in a process that has loaded it (see
// app/desktop/window/recover.go). Linux and Windows implement it; elsewhere the window
// reloads again instead.
type Loader interface {
	LoadURL(ctx context.Context, url string) error
}

// HistoryView reports the URL of the current item of the main view's history: the page's
// address including its same-document navigations (a conversation the page opened with
// history.pushState), or "" when the history is empty. Unlike the view's own URL it
// survives the web process ending. Linux implements it.
type HistoryView interface {
	HistoryURL(ctx context.Context) (string, error)
}
