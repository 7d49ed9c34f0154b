//go:build linux || freebsd || openbsd || netbsd

package session

import (
	"fmt"
	"os"
	"path/filepath"
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

func pruneAutostart() (bool, error) {
	path, err := xdgAutostartPath()
	if err != nil {
		return false, err
	}
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("autostart: read %s: %w", path, err)
	}
	prog := entryProgram(string(b))
	if prog == "" || !filepath.IsAbs(prog) {
		// Not an entry this app wrote (it always names an absolute path): leave it.
		return false, nil
	}
	if fi, err := os.Stat(prog); err == nil && !fi.IsDir() {
		return false, nil
	} else if err != nil && !os.IsNotExist(err) {
		return false, nil // cannot tell (permissions): keep it
	}
	if err := removeIfExists(path); err != nil {
		return false, fmt.Errorf("autostart: remove %s, which starts the missing %s: %w", path, prog, err)
	}
	return true, nil
}
