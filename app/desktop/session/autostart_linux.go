//go:build linux || freebsd || openbsd || netbsd

package session

import (
	"fmt"
	"os"
)

func setAutostart(enabled bool, exe string, args []string) error {
	path, err := xdgAutostartPath()
	if err != nil {
		return err
	}
	if !enabled {
		if err := removeIfExists(path); err != nil {
			return fmt.Errorf("autostart: remove %s: %w", path, err)
		}
		return nil
	}
	if err := writeFileAtomic(path, []byte(desktopEntry(exe, args)), 0o644); err != nil {
		return fmt.Errorf("autostart: write %s: %w", path, err)
	}
	return nil
}

func autostartEnabled() (bool, error) {
	path, err := xdgAutostartPath()
	if err != nil {
		return false, err
	}
	_, err = os.Stat(path)
	if os.IsNotExist(err) {
		return false, nil
	}
	return err == nil, err
}
