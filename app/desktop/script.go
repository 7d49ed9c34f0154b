package desktop

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

// JSCall returns the JavaScript text of a call fn(args...) with every argument encoded
// as a JSON literal, so text from anywhere (a model reply, a message) cannot break out of
// its string. fn must be a dotted identifier path such as "window.__clanker.run".
func JSCall(fn string, args ...any) (string, error) {
	if !validPath(fn) {
		return "", fmt.Errorf("desktop: %q is not a JavaScript function path", fn)
	}
	var b strings.Builder
	b.WriteString(fn)
	b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			b.WriteByte(',')
		}
		// encoding/json escapes <, >, & and U+2028/U+2029, so the literal is also safe
		// inside HTML and in pre-ES2019 engines.
		j, err := json.Marshal(a)
		if err != nil {
			return "", fmt.Errorf("desktop: argument %d of %s: %w", i, fn, err)
		}
		b.Write(j)
	}
	b.WriteString(");")
	return b.String(), nil
}

func validPath(fn string) bool {
	if fn == "" {
		return false
	}
	for _, part := range strings.Split(fn, ".") {
		if part == "" {
			return false
		}
		for i, r := range part {
			letter := r == '_' || r == '$' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
			if !letter && (i == 0 || r < '0' || r > '9') {
				return false
			}
		}
	}
	return true
}
