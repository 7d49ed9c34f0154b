package macos

import (
	"net/url"
	"strings"
)

// Error domains and codes of failed loads that are not the network being down.
const (
	urlErrorDomain    = "NSURLErrorDomain"
	urlErrorCancelled = -999 // NSURLErrorCancelled: another load replaced this one
	webKitErrorDomain = "WebKitErrorDomain"
	// WebKitErrorFrameLoadInterruptedByPolicyChange: the load became a download or a
	// navigation the app handled itself.
	webKitErrorFrameLoadInterrupted = 102
)

// ShowsOffline says whether a failed main-frame load replaces the page with the offline
// page. Cancelled and interrupted loads do not (the user or the page moved on), nor do
// the app's own wails:// pages (the offline page failing would loop).
func ShowsOffline(domain string, code int, failedURL string) bool {
	switch {
	case domain == urlErrorDomain && code == urlErrorCancelled:
		return false
	case domain == webKitErrorDomain && code == webKitErrorFrameLoadInterrupted:
		return false
	case strings.HasPrefix(strings.ToLower(failedURL), "wails:"):
		return false
	}
	return true
}

// OfflineURL is the offline page's address for a failure: base (which ends in
// "?offline=") with the error text escaped as a query value.
func OfflineURL(base, message string) string {
	if message == "" {
		message = "unknown error"
	}
	return base + url.QueryEscape(message)
}
