package wailslog

import (
	"fmt"
	"os"
	"strings"
)

// CatchDisplayFailure turns Wails' panic when GTK cannot start (a DISPLAY that names no
// running server, or one this user may not use) into an error with one clear sentence,
// instead of a Go trace. Any other panic is passed on. Use it deferred around wails.Run.
func CatchDisplayFailure(err *error) {
	r := recover()
	if r == nil {
		return
	}
	if strings.Contains(fmt.Sprint(r), "init GTK") {
		where := os.Getenv("WAYLAND_DISPLAY")
		if where == "" {
			where = os.Getenv("DISPLAY")
		}
		*err = fmt.Errorf("could not open a window: the display %q cannot be used (GTK could not start); "+
			"check that your desktop session is running and that DISPLAY or WAYLAND_DISPLAY names it", where)
		return
	}
	panic(r)
}
