//go:build !linux && !windows

package desktop

// NOT TESTED and not implemented: macOS (WKWebView) and other systems. The window and
// the DOM-ready injection work through Wails; document-start scripts, the user agent,
// popups, crash reload and native input need a WKWebView bridge in Objective-C
// (WKUserScript, customUserAgent, WKUIDelegate createWebView, webViewWebContentProcess-
// DidTerminate, and NSEvent keyDown delivered to the WKWebView), which cannot be built
// or run on the Linux machines this project is developed on.

import (
	"context"
	"errors"
)

type otherPlatform struct{}

func newPlatform() platform { return otherPlatform{} }

func (otherPlatform) setup(context.Context, platformConfig) error {
	return errors.New("native window setup is not implemented on this platform")
}

func (otherPlatform) reload(context.Context) error { return ErrUnsupported }

func (otherPlatform) input() NativeInput { return noInput{} }

func setCurrent(*Shell) error { return nil }

type noInput struct{}

func (noInput) PressEnter(context.Context) error { return ErrUnsupported }
