package native

import (
	"fmt"
	"net/url"
	"strings"
)

// Navigation results the Windows view turns into LoadChanged and LoadFailed reports. No
// Windows code here, so the rules are tested on every OS.

// webErrorText is the user-facing text of a COREWEBVIEW2_WEB_ERROR_STATUS, shown on the
// offline page.
func webErrorText(status int32) string {
	switch status {
	case 1, 2, 3, 4, 5:
		return "The site's security certificate was not accepted."
	case 6, 12:
		return "The server could not be reached."
	case 7:
		return "The connection timed out."
	case 8:
		return "The server sent an invalid response."
	case 9, 10, 11:
		return "The connection was interrupted."
	case 13:
		return "The server's name could not be resolved. Is the computer offline?"
	case 15:
		return "The page redirected too often or to an invalid address."
	case 17, 18:
		return "The page asked for credentials Clanker cannot give."
	}
	return fmt.Sprintf("The page could not be loaded (WebView2 error %d).", status)
}

// COREWEBVIEW2_WEB_ERROR_STATUS values the offline decision names.
const (
	webErrorServerUnreachable  = 6
	webErrorTimeout            = 7
	webErrorConnectionAborted  = 9
	webErrorConnectionReset    = 10
	webErrorDisconnected       = 11
	webErrorCannotConnect      = 12
	webErrorHostNameUnresolved = 13
	webErrorCanceled           = 14 // a navigation replaced by the next one
)

// networkFailure says the status is the network failing: the server or the name could
// not be reached, or the connection broke or timed out. Certificate errors, bad
// responses, redirects, credentials and unknown failures are not (going offline would
// not explain them, and retrying would not help).
func networkFailure(status int32) bool {
	switch status {
	case webErrorServerUnreachable, webErrorTimeout, webErrorConnectionAborted, webErrorConnectionReset,
		webErrorDisconnected, webErrorCannotConnect, webErrorHostNameUnresolved:
		return true
	}
	return false
}

// webView2ShowsOffline decides whether a failed main-frame navigation in WebView2
// replaces the view with the offline page. Only a network failure of the Messages page
// itself does: navURL is the address the navigation went to (as NavigationStarting
// reported it; "" when unknown, and then shownURL, the address the view shows, stands
// for it), and it must be on messagesOrigin, so a failed sign-in page, link or the app's
// own page never shows it. pageUp says the Messages page is loaded in the view (its
// last navigation succeeded). WebView2 also reports a navigation that turned into a
// download (WebView2Feedback 4417, 5172) and some navigations around a handled new
// window (5257) as CONNECTION_ABORTED while the page stays as it was, so that status
// counts only while the page is not up (the first load, a reload, the offline page's
// retry).
func webView2ShowsOffline(status int32, navURL, shownURL, messagesOrigin string, pageUp bool) bool {
	if !networkFailure(status) || messagesOrigin == "" {
		return false
	}
	target := navURL
	if target == "" {
		target = shownURL
	}
	if urlOrigin(target) != urlOrigin(messagesOrigin) {
		return false
	}
	if status == webErrorConnectionAborted && pageUp {
		return false
	}
	return true
}

// offlinePageURL moves the shell's offline page (given as a URL on Wails' Linux scheme,
// e.g. "wails://wails/?offline=") onto the origin Wails serves the app's own pages from
// on Windows (e.g. "http://wails.localhost"), keeping its path and query, and appends the
// escaped error text. It returns "" when offline is empty or not a URL.
func offlinePageURL(startURL, offline, errText string) string {
	if offline == "" {
		return ""
	}
	o, err := url.Parse(offline)
	if err != nil {
		return ""
	}
	base := strings.TrimRight(startURL, "/")
	path := o.Path
	if path == "" {
		path = "/"
	}
	s := base + path
	if o.RawQuery != "" || strings.HasSuffix(offline, "?") {
		s += "?" + o.RawQuery
	}
	return s + url.QueryEscape(errText)
}
