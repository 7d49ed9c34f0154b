package native

import (
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/clanker-desktop/clanker/app/desktop/internal/ipc"
	"github.com/clanker-desktop/clanker/app/desktop/internal/macos"
)

// The page-facing rules of the native layer, apart from the code that calls them, so
// they are tested on every OS: which page messages reach Wails (the rule itself is
// app/desktop/internal/ipc, the same on every system), and which permission requests
// of pages WebView2 grants.
//
// Why the messages need a guard: Wails dispatches whatever an allowed origin posts (quit,
// hide, open a URL...), and under Wails v2.13 go-webview2 reads every web message as a
// string before Wails checks where it came from, so a message that is not a string (any
// page can post {}) makes it call its error handler, which ends the process. And Wails
// grants every permission request of every origin on Windows.

// bootstrapOrigin is where Wails serves the app's own pages on Linux and macOS (on
// Windows it is http://wails.localhost, which the Windows view reads from Wails).
const bootstrapOrigin = "wails://wails"

// pageGuard is the guard of this process's main view, set by Setup.
var pageGuard atomic.Pointer[ipc.Guard]

// newPageGuard makes the guard for cfg, with local the origins of the app's own pages
// on this system, and makes it the process's one.
func newPageGuard(cfg Config, local ...string) *ipc.Guard {
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	g := ipc.NewGuard(ipc.Rule{Remote: cfg.Origin, Local: local, Event: cfg.EventName}, log)
	pageGuard.Store(g)
	return g
}

// allowPageMessage asks the process's guard about m; without one (before Setup) nothing
// passes.
func allowPageMessage(m ipc.Message) bool {
	g := pageGuard.Load()
	return g != nil && g.Allow(m)
}

// DroppedPageMessages is how many messages the guard kept from Wails in this process.
func DroppedPageMessages() uint64 {
	if g := pageGuard.Load(); g != nil {
		return g.Dropped()
	}
	return 0
}

// What each platform knows of a message, as the rule's Message. They are plain
// functions so the tests can hand them what WebView2 and WKWebView report.

// webView2Message is a web message as the Windows view sees it: whether
// TryGetWebMessageAsString succeeded and what it gave, the URL the web view shows
// (ICoreWebView2::get_Source) and the posting document's (the event's get_Source).
// Only top-level documents can post to this handler (frames have their own), and
// popups are web views of their own.
func webView2Message(isString bool, body, topURL, senderURL string) ipc.Message {
	return ipc.Message{IsString: isString, Body: body, FromMainView: true, MainFrame: true,
		Origin: senderURL, TopOrigin: topURL}
}

// webKitMessage is a script message as the macOS view sees it: from which view and
// frame, the frame's security origin (protocol, host, port as WKSecurityOrigin gives
// them), and the body if it is a string.
func webKitMessage(isString, mainView, mainFrame bool, protocol, host string, port int, body string) ipc.Message {
	return ipc.Message{IsString: isString, Body: body, FromMainView: mainView, MainFrame: mainFrame,
		Origin: macos.Origin(protocol, host, port)}
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
