package macos

import "strings"

// BootstrapOrigin is the origin of the app's own bootstrap page, which Wails serves under
// its wails:// scheme. It loads first, reports its state as events and then replaces
// itself with the Messages page; it is the app's own code, so all of Wails' messages
// are allowed from it.
const BootstrapOrigin = "wails://wails"

// eventPrefix starts every Wails event message ("E" for event, "E" for emit): the only
// kind the bridge sends.
const eventPrefix = "EE"

// Message is what the Objective-C side knows about one script message posted to Wails'
// "external" handler, before Wails sees it.
type Message struct {
	// IsString says the body is a string. Wails reads every body as NSString; any other
	// value (an object, a number) raises an Objective-C exception that ends the app.
	IsString bool
	// FromMainView says it came from the main window's web view, not from a popup. Popups
	// share the main view's configuration, and with it the handler.
	FromMainView bool
	// MainFrame says it came from the top document, not from a frame inside it.
	MainFrame bool
	// Origin is the sending frame's security origin, as Origin formats it.
	Origin string
	// Prefix is the start of the body (a few bytes are enough to tell its kind).
	Prefix string
}

// CheckMessage decides whether a script message may go on to Wails: "" lets it through,
// anything else is the reason it was dropped, for the log.
//
// The Messages page is untrusted. Wails would dispatch whatever it posts: quit, hide,
// window operations, opening URLs in the browser. So from the Messages origin only
// events pass (the bridge's channel); the bootstrap page, which is the app's own, may
// send anything Wails understands; every other sender is dropped.
func CheckMessage(m Message, messagesOrigin string) string {
	switch {
	case !m.IsString:
		return "the message is not a string"
	case !m.FromMainView:
		return "the message comes from a popup window"
	case !m.MainFrame:
		return "the message comes from a frame inside the page"
	}
	switch NormalOrigin(m.Origin) {
	case "":
		return "the sender has no usable origin"
	case BootstrapOrigin:
		return ""
	case NormalOrigin(messagesOrigin):
		if strings.HasPrefix(m.Prefix, eventPrefix) {
			return ""
		}
		return "the Messages page may only send events"
	}
	return "the sender is not the Messages page"
}
