//go:build !windows

package session

import (
	"errors"
	"syscall"
	"time"
)

// waitProcessEnd waits until process pid has ended, or timeout passes. (Only Windows
// restarts Clanker this way; elsewhere this serves the tests.)
func waitProcessEnd(pid int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("still running after " + timeout.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
