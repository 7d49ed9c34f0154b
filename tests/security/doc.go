// Package security proves Clanker's defences against hostile input and leaks: forged and
// oversized page events are refused (by page.DecodeEvent, and by page.Link with one log line
// that never carries message text); no message text can escape the command encoding (checked
// byte for byte in headless Chromium over a generated corpus); the API key reaches nothing but
// the Authorization header of the configured endpoint (not the page, the logs at debug level,
// the diagnostics views or error texts); and a remote participant's prompt injection, with the
// model scripted to obey it, cannot strip the prefix, exceed the length cap or reach another
// conversation.
package security
