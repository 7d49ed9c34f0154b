//go:build darwin

package session

import (
	"fmt"
	"os"
	"path/filepath"
)

// The LaunchAgent path. Untested: macOS cannot be run in this project's CI.
func launchAgentPath() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("autostart: no home directory: %w", err)
	}
	return filepath.Join(home, "Library", "LaunchAgents", launchAgentLabel+".plist"), nil
}

func setAutostart(enabled bool, exe string, args []string) error {
	path, err := launchAgentPath()
	if err != nil {
		return err
	}
	if !enabled {
		return removeIfExists(path)
	}
	return writeFileAtomic(path, []byte(launchAgentPlist(exe, args)), 0o644)
}

func autostartEnabled() (bool, error) {
	path, err := launchAgentPath()
	if err != nil {
		return false, err
	}
	_, err = os.Stat(path)
	if os.IsNotExist(err) {
		return false, nil
	}
	return err == nil, err
}
