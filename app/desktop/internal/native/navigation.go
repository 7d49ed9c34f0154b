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
