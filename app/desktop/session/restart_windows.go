package session

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/windows"
)

// waitProcessEnd waits until process pid has ended, or timeout passes. A process that
// cannot be opened has ended already (or was never there).
func waitProcessEnd(pid int, timeout time.Duration) error {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return nil
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, uint32(timeout/time.Millisecond))
	switch {
	case err != nil:
		return fmt.Errorf("wait for process %d: %w", pid, err)
	case ev == uint32(windows.WAIT_TIMEOUT):
		return errors.New("still running after " + timeout.String())
	}
	return nil
}
