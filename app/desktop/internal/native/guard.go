package native

import (
	"fmt"
	"net/url"
	"strings"
)

// The rules the Windows view applies to what pages send before Wails sees it. They live
// here, apart from the COM code that calls them, so they are tested on every OS.
//
// Why they are needed: go-webview2 (under Wails v2.13) reads every web message as a
// string before Wails checks where it came from, and a message that is not a string
// (any page can post {}) makes it call its error handler, which ends the process. And
// Wails grants every permission request of every origin. The Windows view therefore
// looks at each message and each request first.

// messageGuard decides which web messages reach Wails.
type messageGuard struct {
	// origins are the origins whose documents may talk to Go: the Messages page and
	// the app's own bootstrap page, as on Linux, where Wails lets exactly these through.
	origins []string
}

// check returns nil when a message may go on to Wails, or the reason it is dropped. A
// message passes only when it is a string and both the document that posted it and the
// top-level document of the web view are on one of the allowed origins. topURL and
// senderURL are the URLs WebView2 reports (ICoreWebView2::get_Source and the event's
// get_Source).
func (g messageGuard) check(isString bool, topURL, senderURL string) error {
	if !isString {
		return fmt.Errorf("not a string (origin %s)", originLabel(senderURL))
	}
	if !g.allowed(topURL) {
		return fmt.Errorf("the window shows %s, which may not talk to Clanker", originLabel(topURL))
	}
	if !g.allowed(senderURL) {
		return fmt.Errorf("sent by %s, which may not talk to Clanker", originLabel(senderURL))
	}
	return nil
}

func (g messageGuard) allowed(rawURL string) bool {
	o := urlOrigin(rawURL)
	if o == "" {
		return false
	}
	for _, a := range g.origins {
		if o == a {
			return true
		}
	}
	return false
}

// urlOrigin returns scheme://host[:port] of an absolute http(s) URL, lower-cased, or ""
// for anything else (about:blank, data:, file:, a URL with credentials, garbage).
func urlOrigin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return ""
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// originLabel names the origin of a URL for a log line: the origin only, never the path
// (a Messages URL carries the conversation id).
func originLabel(raw string) string {
	if o := urlOrigin(raw); o != "" {
		return o
	}
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https" && len(u.Scheme) < 16 {
		return "a " + u.Scheme + ": document"
	}
	return "an unknown origin"
}

// permissionKind is COREWEBVIEW2_PERMISSION_KIND.
type permissionKind int32

// The permission kinds WebView2 asks about (WebView2 SDK, COREWEBVIEW2_PERMISSION_KIND).
const (
	permUnknown          permissionKind = 0
	permMicrophone       permissionKind = 1
	permCamera           permissionKind = 2
	permGeolocation      permissionKind = 3
	permNotifications    permissionKind = 4
	permOtherSensors     permissionKind = 5
	permClipboardRead    permissionKind = 6
	permMultipleDownload permissionKind = 7
	permFileReadWrite    permissionKind = 8
	permAutoplay         permissionKind = 9
	permLocalFonts       permissionKind = 10
	permMIDISysex        permissionKind = 11
	permWindowManagement permissionKind = 12
)

func (k permissionKind) String() string {
	names := map[permissionKind]string{
		permUnknown: "unknown", permMicrophone: "microphone", permCamera: "camera",
		permGeolocation: "geolocation", permNotifications: "notifications",
		permOtherSensors: "sensors", permClipboardRead: "clipboard-read",
		permMultipleDownload: "multiple-downloads", permFileReadWrite: "file-read-write",
		permAutoplay: "autoplay", permLocalFonts: "local-fonts", permMIDISysex: "midi-sysex",
		permWindowManagement: "window-management",
	}
	if n, ok := names[k]; ok {
		return n
	}
	return fmt.Sprintf("permission(%d)", int32(k))
}

// permissionState is COREWEBVIEW2_PERMISSION_STATE.
type permissionState int32

const (
	permDefault permissionState = 0 // WebView2 asks the user
	permAllow   permissionState = 1
	permDeny    permissionState = 2
)

func (s permissionState) String() string {
	switch s {
	case permDefault:
		return "ask"
	case permAllow:
		return "allow"
	case permDeny:
		return "deny"
	}
	return fmt.Sprintf("state(%d)", int32(s))
}

// decidePermission answers a page's permission request. Clanker grants the Messages page
// (origin) what Messages for web needs while the user works in it, and only when the user
// asked for it with a click or a key (userInitiated): the microphone for voice messages
// and reading the clipboard for pasting images. Everything else is denied, and so is
// every request of any other origin (sign-in pages, anything the window is navigated to).
// Notifications are denied on purpose: Clanker shows its own, which honour the user's
// "hide message content" setting, and the page's would not.
func decidePermission(kind permissionKind, requestURL string, userInitiated bool, origin string) permissionState {
	if origin == "" || urlOrigin(requestURL) != origin {
		return permDeny
	}
	switch kind {
	case permMicrophone, permClipboardRead:
		if userInitiated {
			return permAllow
		}
	}
	return permDeny
}
