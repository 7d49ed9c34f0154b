//go:build windows

package session

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows/registry"
)

// The login entry is a value of the user's Run key. The uninstaller deletes the same
// value (build/windows/installer/project.nsi). Run under Wine by make test-windows.
const (
	runKeyPath   = `Software\Microsoft\Windows\CurrentVersion\Run`
	runValueName = "Clanker"
)

func setAutostart(enabled bool, exe string, args []string) error {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, runKeyPath, registry.SET_VALUE|registry.QUERY_VALUE)
	if err != nil {
		return fmt.Errorf("autostart: open the Run key: %w", err)
	}
	defer k.Close()
	if !enabled {
		if err := k.DeleteValue(runValueName); err != nil && !errors.Is(err, registry.ErrNotExist) {
			return fmt.Errorf("autostart: remove the Run entry: %w", err)
		}
		return nil
	}
	if err := k.SetStringValue(runValueName, windowsRunValue(exe, args)); err != nil {
		return fmt.Errorf("autostart: write the Run entry: %w", err)
	}
	return nil
}

func autostartEnabled() (bool, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKeyPath, registry.QUERY_VALUE)
	if err != nil {
		return false, nil
	}
	defer k.Close()
	_, _, err = k.GetStringValue(runValueName)
	if errors.Is(err, registry.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// pruneAutostart has nothing to do here: see PruneAutostart.
func pruneAutostart() (bool, error) { return false, nil }
