//go:build !testcontrol

package run

import "errors"

// startTestControl refuses in a release build: the test control (testcontrol.go) is
// compiled only into the builds the full-app tests make, so the shipped app has no
// loopback control endpoint at all.
func (a *App) startTestControl(string) error {
	return errors.New("--test-control works only in a test build of Clanker (built with -tags testcontrol); this build has no test control")
}
