package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/godbus/dbus/v5"
)

// The desktop's light or dark preference. GTK 3 does not read it by itself, and WebKitGTK
// decides `prefers-color-scheme` from GTK's settings (gtk-application-prefer-dark-theme,
// or a dark GTK_THEME), so on Linux the app asks the freedesktop settings portal, as
// GTK 4 toolkits do: org.freedesktop.portal.Settings on the session bus, namespace
// org.freedesktop.appearance, key color-scheme, and its SettingChanged signal for live
// changes. The window packages hand what it says to GTK (package native). Windows'
// WebView2 and macOS's WKWebView follow the system's appearance by themselves.

// ColorScheme is the desktop's preferred colour scheme, with the portal's numbers.
type ColorScheme uint32

const (
	// NoPreference: the desktop does not say; the toolkit's own theme decides.
	NoPreference ColorScheme = 0
	// PreferDark: the user chose a dark appearance.
	PreferDark ColorScheme = 1
	// PreferLight: the user chose a light appearance.
	PreferLight ColorScheme = 2
)

func (c ColorScheme) String() string {
	switch c {
	case PreferDark:
		return "dark"
	case PreferLight:
		return "light"
	}
	return "no preference"
}

const (
	portalName          = "org.freedesktop.portal.Desktop"
	portalPath          = "/org/freedesktop/portal/desktop"
	portalSettings      = "org.freedesktop.portal.Settings"
	appearanceNamespace = "org.freedesktop.appearance"
	colorSchemeKey      = "color-scheme"
)

// ErrNoPortal is returned (wrapped) when nothing on the session bus answers for the
// desktop's colour scheme: no portal, or a portal without an appearance setting. The
// caller keeps the toolkit's theme.
var ErrNoPortal = errors.New("no desktop settings portal answers for the colour scheme")

// colorSchemeOf reads a color-scheme value. The portal's Read wraps the value in a second
// variant (ReadOne, interface version 2, does not), so any depth of variants is
// unwrapped. Unknown numbers mean no preference, as the portal's documentation says.
func colorSchemeOf(v any) (ColorScheme, bool) {
	for i := 0; i < 4; i++ {
		inner, ok := v.(dbus.Variant)
		if !ok {
			break
		}
		v = inner.Value()
	}
	n, ok := v.(uint32)
	if !ok {
		return NoPreference, false
	}
	switch c := ColorScheme(n); c {
	case PreferDark, PreferLight:
		return c, true
	}
	return NoPreference, true
}

// followColorScheme calls apply with the desktop's colour scheme as the portal on conn
// reports it now, and again each time it changes, until ctx ends (then it returns nil).
// It returns an error wrapping ErrNoPortal, without calling apply, when the portal does
// not answer the first read.
func followColorScheme(ctx context.Context, conn *dbus.Conn, apply func(ColorScheme)) error {
	// Listen before reading, so a change between the two is not lost.
	if err := conn.AddMatchSignalContext(ctx,
		dbus.WithMatchObjectPath(portalPath),
		dbus.WithMatchInterface(portalSettings),
		dbus.WithMatchMember("SettingChanged"),
		dbus.WithMatchArg(0, appearanceNamespace),
	); err != nil {
		return fmt.Errorf("listen for the desktop's colour scheme: %w", err)
	}
	signals := make(chan *dbus.Signal, 8)
	conn.Signal(signals)
	defer conn.RemoveSignal(signals)

	var value dbus.Variant
	call := conn.Object(portalName, portalPath).CallWithContext(ctx, portalSettings+".Read", 0, appearanceNamespace, colorSchemeKey)
	if call.Err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("%w: %v", ErrNoPortal, call.Err)
	}
	if err := call.Store(&value); err != nil {
		return fmt.Errorf("%w: unexpected answer: %v", ErrNoPortal, err)
	}
	scheme, ok := colorSchemeOf(value)
	if !ok {
		return fmt.Errorf("%w: color-scheme is %s, not a number", ErrNoPortal, value.Signature())
	}
	apply(scheme)
	for {
		select {
		case <-ctx.Done():
			return nil
		case sig, open := <-signals:
			if !open {
				return nil
			}
			if sig.Path != portalPath || sig.Name != portalSettings+".SettingChanged" || len(sig.Body) != 3 {
				continue
			}
			ns, _ := sig.Body[0].(string)
			key, _ := sig.Body[1].(string)
			if ns != appearanceNamespace || key != colorSchemeKey {
				continue
			}
			if c, ok := colorSchemeOf(sig.Body[2]); ok && c != scheme {
				scheme = c
				apply(c)
			}
		}
	}
}
