package window

import (
	"runtime/debug"

	"github.com/clanker-desktop/clanker/app/desktop/internal/native"
)

// ReleaseMemory hands what the app process freed back to the system: it collects the Go
// heap and returns its free pages (the collector otherwise gives them back over minutes),
// then trims the C heap that GTK and WebKit's UI side use (Linux). It takes a few
// milliseconds on an idle app; call it when work has stopped, not on every event.
func ReleaseMemory() {
	debug.FreeOSMemory()
	native.TrimCHeap()
}
