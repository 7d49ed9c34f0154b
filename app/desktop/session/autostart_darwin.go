//go:build darwin

package session

import (
	"fmt"
	"os"
)

// The LaunchAgent in the user's ~/Library/LaunchAgents (see launchAgentPath).

func userHome() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("autostart: no home directory: %w", err)
	}
	return home, nil
}

func setAutostart(enabled bool, exe string, args []string) error {
	home, err := userHome()
	if err != nil {
		return err
	}
	return setLaunchAgent(home, enabled, exe, args)
}

func autostartEnabled() (bool, error) {
	home, err := userHome()
	if err != nil {
		return false, err
	}
	return launchAgentEnabled(home)
}

// pruneAutostart has nothing to do here: see PruneAutostart.
func pruneAutostart() (bool, error) { return false, nil }
