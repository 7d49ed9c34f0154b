//go:build !(linux || freebsd || openbsd || netbsd || darwin)

package session

import "errors"

// NewNotifier is not implemented on this OS yet (Windows toast notifications need
// native code this project cannot run); the app logs instead of notifying.
func NewNotifier(appName, icon string) (Notifier, error) {
	return nil, errors.New("notifications are not implemented on this platform yet")
}
