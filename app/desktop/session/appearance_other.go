//go:build !linux

package session

import "context"

// FollowColorScheme does nothing and returns nil at once: WebView2 (Windows) and
// WKWebView (macOS) follow the system's light or dark appearance by themselves, as their
// documentation says (untested on Windows and macOS).
func FollowColorScheme(ctx context.Context, apply func(ColorScheme)) error { return nil }
