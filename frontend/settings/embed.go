// Package settings embeds the settings window's page. The window runs in its own process
// (clanker settings) with the Go SettingsService bound to it, so nothing on the Messages
// origin can reach these controls or the API key field.
package settings

import "embed"

// FS holds index.html, settings.js and settings.css at its root.
//
//go:embed index.html settings.js settings.css
var FS embed.FS
