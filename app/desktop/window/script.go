package window

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// guardedScript wraps the user script so that it runs only on the allowed origin (the
// document-start script is registered for every load, including the bootstrap page and
// any page the window is navigated to) and at most once per document (the DOM-ready
// fallback runs it again when the document-start copy already ran).
func guardedScript(origin, script string) string {
	if script == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(script))
	key := "__clankerInjected_" + hex.EncodeToString(sum[:6])
	o, _ := json.Marshal(origin)
	k, _ := json.Marshal(key)
	var b strings.Builder
	// Popups share the main view's scripts (WebKit related views); the bridge belongs in
	// the main window only, which never has an opener.
	fmt.Fprintf(&b, "(function(){\nif (location.origin !== %s || window.opener) return;\n", o)
	fmt.Fprintf(&b, "if (Object.prototype.hasOwnProperty.call(window, %s)) return;\n", k)
	fmt.Fprintf(&b, "Object.defineProperty(window, %s, {value: true});\n", k)
	b.WriteString(script)
	b.WriteString("\n})();\n")
	return b.String()
}
