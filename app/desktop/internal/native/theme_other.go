//go:build !linux

package native

import "context"

// ForcedTheme is "" here: there is no GTK theme to force.
func ForcedTheme() string { return "" }

// SetTheme does nothing: WebView2 and WKWebView follow the system's light or dark
// appearance by themselves (untested on Windows and macOS).
func SetTheme(context.Context, Theme) error { return nil }
