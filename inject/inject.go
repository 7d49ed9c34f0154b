// Package inject embeds the bridge script that Clanker injects into the Google Messages
// page. The script is built from the hand-written modules in inject/src into inject/gen by
// `go generate ./inject` and committed, so a plain `go build` needs no JavaScript tooling;
// TestCommittedBundleIsFresh fails when someone edits inject/src (or the protocol types)
// and forgets to regenerate.
package inject

import _ "embed"

//go:generate go run ./internal/bundle/gen

//go:embed gen/bridge.gen.js
var script string

// Script returns the bridge script, ready for WindowExecJS or a document-start user script.
func Script() string { return script }
