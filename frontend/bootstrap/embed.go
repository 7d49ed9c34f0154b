// Package bootstrap embeds the first page the main window shows. It is a local page
// (served by Wails' asset server) so that the window never starts blank: it shows
// progress while the Messages page loads, and an offline page with Retry when the
// Messages page cannot be reached, instead of the web engine's raw error page.
package bootstrap

import "embed"

// FS holds index.html, boot.js and boot.css at its root.
//
//go:embed index.html boot.js boot.css
var FS embed.FS

// ConfigPath is the path the page fetches its settings from. The shell serves it from Go
// (see app/desktop/window), so the target URL is never baked into the embedded files.
const ConfigPath = "/clanker-boot.json"
