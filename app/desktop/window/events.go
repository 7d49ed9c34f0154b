package window

import "github.com/clanker-desktop/clanker/app/desktop/internal/native"

// nativeEvents hands what the web view reports to the Shell. The platform calls it on
// the GUI thread, so it must not block: the Shell's handlers only record and start
// goroutines.
type nativeEvents struct{ s *Shell }

func (e nativeEvents) PopupAllowed(url string) bool { return e.s.popupAllowed(url) }
func (e nativeEvents) PopupCreated()                { e.s.popupEvent(PopupCreated) }
func (e nativeEvents) PopupShown()                  { e.s.popupEvent(PopupShown) }
func (e nativeEvents) PopupClosed()                 { e.s.popupEvent(PopupClosed) }

func (e nativeEvents) LoadChanged(url string, finished bool) {
	e.s.loadEvent(LoadEvent{URL: url, Finished: finished})
}

func (e nativeEvents) LoadFailed(url, message string) {
	e.s.loadEvent(LoadEvent{URL: url, Failed: true, Error: message})
}

func (e nativeEvents) WebProcessTerminated(reason int) { e.s.webProcessTerminated(reason) }

func (e nativeEvents) BrowserProcessEnded() bool { return e.s.browserProcessEnded() }

func (e nativeEvents) GeometryChanged(x, y, width, height int) {
	e.s.geometryChanged(Geometry{X: x, Y: y, Width: width, Height: height})
}

// ContextMenuActivated runs the item's action on its own goroutine: it may ask a
// question in a dialog, which needs the GUI thread this call is on.
func (e nativeEvents) ContextMenuActivated(name, target string) { go e.s.contextAction(name, target) }

// FocusChanged hands the window's focus to the app on a goroutine of its own.
// Each goroutine reports the state as it is when it runs, so two quick changes whose
// goroutines run out of order still end on the latest.
func (e nativeEvents) FocusChanged(active bool) {
	e.s.active.Store(active)
	if fn := e.s.opts.OnFocus; fn != nil {
		go func() { fn(e.s.active.Load()) }()
	}
}

// PageNotification hands the page's notification attempts to the app.
func (e nativeEvents) PageNotification(shown bool) {
	if fn := e.s.opts.OnPageNotification; fn != nil {
		go fn(shown)
	}
}

var _ native.Events = nativeEvents{}
