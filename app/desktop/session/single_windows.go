//go:build windows

package session

import (
	"errors"
	"os"
)

var errLocked = errors.New("data directory is in use by another Clanker")

// lockFile on Windows relies on the file being opened without sharing: a second open
// fails while the first process lives. Untested: this project cannot run Windows.
func lockFile(path string) (*os.File, error) {
	_ = os.Remove(path) // fails while another process has it open, which is the point
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if os.IsExist(err) {
			return nil, errLocked
		}
		return nil, err
	}
	return f, nil
}

func unlockFile(f *os.File) {
	if f != nil {
		name := f.Name()
		f.Close()
		_ = os.Remove(name)
	}
}
