// Package smoke holds the smoke test of the real app on a desktop: it builds clanker
// with the test control, starts it on the Google Messages simulator and the fake model,
// and checks that replies go out with a trusted Enter, with the window shown and while
// it is hidden. The test needs the build tag smoke and a desktop session.
//
// It is written for the hosted runners that this project cannot run itself:
// .github/workflows/windows.yml (WebView2, whose Enter goes through the DevTools
// protocol) and .github/workflows/macos.yml (WKWebView, NSEvents handed to the view).
// On Linux it runs under xvfb-run, which is how the test itself was checked; the
// Linux platform's own full-app tests are in tests/e2e.
package smoke
