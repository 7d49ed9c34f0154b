//go:build !(linux || freebsd || openbsd || netbsd || darwin || windows)

package session

import "errors"

// NewNotifier is not implemented on other systems; the app logs instead of notifying.
func NewNotifier(appName, icon string) (Notifier, error) {
	return nil, errors.New("notifications are not implemented on this platform yet")
}
