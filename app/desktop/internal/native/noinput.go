//go:build !linux && !windows && !darwin

package native

import "context"

// noInput is the Input of platforms without trusted key input: every call fails with
// ErrUnsupported, so the app knows a reply cannot be sent and says so.
type noInput struct{}

func (noInput) PressEnter(context.Context) error { return ErrUnsupported }
