//go:build darwin

package native

// NOT TESTED and not implemented: macOS (WKWebView). The window and the DOM-ready
// injection work through Wails; document-start scripts, the user agent, popups, crash
// reload and native input need a WKWebView bridge in Objective-C (WKUserScript,
// customUserAgent, WKUIDelegate createWebView, webViewWebContentProcessDidTerminate,
// and NSEvent keyDown delivered to the WKWebView), which cannot be built or run on the
// Linux machines this project is developed on. It belongs in this file (with its .m
// and .h beside it).

import (
	"context"
	"errors"
)

type darwinPlatform struct{}

// NewView returns the macOS view, which does nothing yet.
func NewView() View { return darwinPlatform{} }

func (darwinPlatform) Setup(context.Context, Config) error {
	return errors.New("native window setup is not implemented on this platform")
}

func (darwinPlatform) Reload(context.Context) error { return ErrUnsupported }

func (darwinPlatform) Input() Input { return noInput{} }
