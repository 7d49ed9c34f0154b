//go:build !linux

package native

import "log/slog"

// UseCPURendering does nothing here: WebView2 and WKWebView choose their own rendering.
func UseCPURendering(*slog.Logger) {}
