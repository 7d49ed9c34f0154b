package run

import (
	"log/slog"

	"github.com/clanker-desktop/clanker/app/desktop/session"
)

// AvoidBusAutolaunch makes sure nothing in this process starts a session D-Bus of its own
// when there is none (see session.AvoidBusAutolaunch), and logs that notifications and the
// tray are off then. Call it before anything that may talk to the bus.
func AvoidBusAutolaunch(log *slog.Logger) {
	if note := session.AvoidBusAutolaunch(); note != "" && log != nil {
		log.Info(note)
	}
}

// CheckDesktop is what a window needs before anything is started: a display (an error with
// one sentence when there is none, instead of GTK's panic later) and no session bus started
// on the app's behalf.
func CheckDesktop(log *slog.Logger) error {
	if err := session.CheckDisplay(); err != nil {
		return err
	}
	AvoidBusAutolaunch(log)
	return nil
}
