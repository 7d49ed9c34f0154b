//go:build !linux && !windows && !darwin

package native

// NOT TESTED and not implemented: systems other than Linux, Windows and macOS. The window
// and the DOM-ready injection work through Wails; nothing native does.

import (
	"context"
	"errors"
)

type otherPlatform struct{}

// NewView returns a view that does nothing on this system.
func NewView() View { return otherPlatform{} }

func (otherPlatform) Setup(context.Context, Config) error {
	return errors.New("native window setup is not implemented on this platform")
}

func (otherPlatform) Reload(context.Context) error { return ErrUnsupported }

func (otherPlatform) Input() Input { return noInput{} }
