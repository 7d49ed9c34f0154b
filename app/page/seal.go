package page

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// SealPlaceholder is the text SealScript overwrites with the per-run nonce. The bundler
// writes it into the bridge's schema (SCHEMA.seal in inject/gen/schema.gen.js), where
// transport.js reads it; it is the only copy in the bundle. It contains characters a
// nonce never has, so an unsealed bridge (the bridge tests inject one) knows it holds no
// nonce and posts bare JSON.
const SealPlaceholder = "__clanker_seal_nonce__"

// NewNonce returns a fresh random nonce: 32 hex digits from crypto/rand.
func NewNonce() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("page: crypto/rand failed: " + err.Error()) // cannot happen on supported systems
	}
	return hex.EncodeToString(b[:])
}

// SealScript returns the bridge script with nonce written over SealPlaceholder, so every
// event the bridge posts starts with the nonce. The nonce lives only in the script's
// closure (user scripts are not visible to the page), so an event without it did not come
// from our bridge. It fails unless the placeholder occurs exactly once: a bundle built
// without it (or with a second copy somewhere) is noticed here instead of silently
// producing events the Link drops.
func SealScript(script, nonce string) (string, error) {
	if !validNonce(nonce) {
		return "", errors.New("seal bridge script: nonce must be 16-64 characters of 0-9 a-f")
	}
	if n := strings.Count(script, SealPlaceholder); n != 1 {
		return "", fmt.Errorf("seal bridge script: found the seal placeholder %d times, want exactly 1 (regenerate the bundle with `go generate ./inject`)", n)
	}
	return strings.Replace(script, SealPlaceholder, nonce, 1), nil
}

func validNonce(n string) bool {
	if len(n) < 16 || len(n) > 64 {
		return false
	}
	for _, r := range n {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}
