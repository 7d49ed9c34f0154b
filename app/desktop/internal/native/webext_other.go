//go:build !linux

package native

// WebExtensionFile is empty where WebKitGTK's web-process extensions do not exist.
const WebExtensionFile = ""

// UseWebExtensions does nothing here: WebView2 and WKWebView load no extensions of ours.
func UseWebExtensions(string) {}
