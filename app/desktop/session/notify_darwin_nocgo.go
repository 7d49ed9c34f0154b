//go:build darwin && !cgo

package session

import "errors"

// NewNotifier fails in a macOS build without cgo: the notification center is reached
// from Objective-C. (Wails itself needs cgo on macOS, so only tools and tests build
// this way.)
func NewNotifier(appName, icon string) (Notifier, error) {
	return nil, errors.New("macOS notifications need a build with cgo")
}
