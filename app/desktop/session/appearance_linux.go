//go:build linux

package session

import (
	"context"
	"fmt"

	"github.com/godbus/dbus/v5"
)

// FollowColorScheme calls apply with the desktop's colour scheme (the settings portal's
// org.freedesktop.appearance color-scheme) now and after every change, until ctx ends.
// It returns an error wrapping ErrNoPortal at once when there is no session bus or no
// portal answers; the caller then keeps GTK's own theme and logs that once.
func FollowColorScheme(ctx context.Context, apply func(ColorScheme)) error {
	conn, err := dbus.SessionBusPrivate(dbus.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("%w: connect to the session bus: %v", ErrNoPortal, err)
	}
	defer conn.Close()
	if err := conn.Auth(nil); err != nil {
		return fmt.Errorf("%w: session bus auth: %v", ErrNoPortal, err)
	}
	if err := conn.Hello(); err != nil {
		return fmt.Errorf("%w: session bus hello: %v", ErrNoPortal, err)
	}
	return followColorScheme(ctx, conn, apply)
}
