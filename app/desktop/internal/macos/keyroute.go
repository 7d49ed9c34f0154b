package macos

// How a key press reaches the page, read from WebKit's source (Source/WebKit/UIProcess/
// mac/WebViewImpl.mm and Automation/mac/WebAutomationSessionMac.mm):
//
//   - -[WKWebView keyDown:] is WebViewImpl::keyDown. It checks nothing about the window
//     (key, visible or ordered out): it interprets the event and hands it to the web
//     process with WebPageProxy::handleKeyboardEvent, where WebCore dispatches a trusted
//     keydown to the focused element. The one step that depends on the system's state is
//     interpretation: while an editable element has focus the view has a text input
//     context, and the event first goes to the input method (handleEventByInputMethod,
//     asynchronous), which belongs to the key window of the active app.
//   - WebKit's own WebDriver makes the window key and front (makeKeyAndOrderFront:),
//     makes the view first responder and sends the event through -[NSWindow sendEvent:],
//     the way AppKit delivers a real key press. Clanker must not bring its window forward,
//     but when the window is shown and key already, that is the path of a real key press.
//
// So: shown and key, the window's sendEvent:; otherwise the view's keyDown: directly,
// which works whatever the window's state as far as the source shows. Whether the page
// received the Enter is checked afterwards (a trusted keydown seen by a listener in an
// isolated script world); if it did not, the next route is tried. The last resort for a
// hidden window orders it in fully transparent and click-through for the moment of the
// key press, so the view sits in a visible window the way WebDriver's does, and orders it
// out again.

// KeyRoute is one way of handing key events to the web view.
type KeyRoute int

const (
	// RouteView calls the view's -keyDown: and -keyUp:.
	RouteView KeyRoute = iota
	// RouteWindow sends the events through the window's -sendEvent:.
	RouteWindow
	// RouteRevealed orders the hidden window in, transparent and click-through, sends
	// the events through -sendEvent: and orders it out again.
	RouteRevealed
)

func (r KeyRoute) String() string {
	switch r {
	case RouteView:
		return "the view's keyDown:"
	case RouteWindow:
		return "the window's sendEvent:"
	case RouteRevealed:
		return "the window ordered in, transparent, and its sendEvent:"
	}
	return "an unknown route"
}

// KeyRoutes are the routes to try for a key press, in order, for the window's state:
// visible (on screen, not ordered out or minimised) and key (it has the keyboard).
func KeyRoutes(visible, key bool) []KeyRoute {
	switch {
	case visible && key:
		return []KeyRoute{RouteWindow, RouteView}
	case visible:
		return []KeyRoute{RouteView, RouteWindow}
	}
	return []KeyRoute{RouteView, RouteRevealed}
}

// EnterCounterScript runs in an isolated script world of the page (WKContentWorld): it
// counts the trusted Enter keydowns the page's document receives, from a capture
// listener the page cannot see or remove, and returns the count. The first run installs
// the listener; a new document starts again from 0.
const EnterCounterScript = `(() => {
  const k = '__clankerTrustedEnters';
  if (!(k in window)) {
    window[k] = 0;
    document.addEventListener('keydown', (e) => { if (e.isTrusted && e.key === 'Enter') window[k]++; }, true);
  }
  return window[k];
})()`
