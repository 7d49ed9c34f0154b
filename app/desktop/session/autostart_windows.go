//go:build windows

package session

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows/registry"
)

// The Run key entry. Untested: Windows cannot be run in this project's CI.
const runKeyPath = `Software\Microsoft\Windows\CurrentVersion\Run`

func setAutostart(enabled bool, exe string, args []string) error {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, runKeyPath, registry.SET_VALUE|registry.QUERY_VALUE)
	if err != nil {
		return fmt.Errorf("autostart: open the Run key: %w", err)
	}
	defer k.Close()
	if !enabled {
		if err := k.DeleteValue("Clanker"); err != nil && !errors.Is(err, registry.ErrNotExist) {
			return fmt.Errorf("autostart: remove the Run entry: %w", err)
		}
		return nil
	}
	return k.SetStringValue("Clanker", windowsRunValue(exe, args))
}

func autostartEnabled() (bool, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKeyPath, registry.QUERY_VALUE)
	if err != nil {
		return false, nil
	}
	defer k.Close()
	_, _, err = k.GetStringValue("Clanker")
	if errors.Is(err, registry.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}
