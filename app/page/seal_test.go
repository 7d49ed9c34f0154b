package page

import (
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/inject"
)

func TestSealScriptWritesTheNonceOverTheOnePlaceholderInTheBridge(t *testing.T) {
	script := inject.Script()
	sealed, err := SealScript(script, testNonce)
	if err != nil {
		t.Fatalf("sealing the real bridge script failed: %v", err)
	}
	if strings.Contains(sealed, SealPlaceholder) {
		t.Fatal("sealed script still contains the placeholder")
	}
	if n := strings.Count(sealed, `"seal": "`+testNonce+`"`); n != 1 {
		t.Fatalf("sealed script carries the nonce as SCHEMA.seal %d times, want exactly 1", n)
	}
	if len(sealed) != len(script)-len(SealPlaceholder)+len(testNonce) {
		t.Fatalf("sealing changed more than the placeholder: %d bytes became %d", len(script), len(sealed))
	}
}

func TestSealScriptFailsLoudlyWithoutExactlyOnePlaceholderOrWithABadNonce(t *testing.T) {
	cases := map[string]struct{ script, nonce string }{
		"no placeholder":   {"(() => { post(x); })();", testNonce},
		"two placeholders": {`const a = "` + SealPlaceholder + `", b = "` + SealPlaceholder + `";`, testNonce},
		"nonce not hex":    {inject.Script(), "not-hex-not-hex-not-hex"},
		"nonce too short":  {inject.Script(), "0123"},
		"nonce uppercase":  {inject.Script(), strings.ToUpper(testNonce)},
	}
	for name, c := range cases {
		if out, err := SealScript(c.script, c.nonce); err == nil {
			t.Errorf("%s: sealing succeeded (%d bytes); want an error", name, len(out))
		}
	}
}

func TestThePlaceholderIsNeverMistakenForANonce(t *testing.T) {
	// The bridge posts bare JSON when SCHEMA.seal does not look like a nonce; the
	// placeholder must never look like one.
	if validNonce(SealPlaceholder) {
		t.Fatalf("placeholder %q passes as a nonce; an unsealed bridge would prefix its events with it", SealPlaceholder)
	}
	if n := NewNonce(); !validNonce(n) {
		t.Fatalf("NewNonce() = %q, which SealScript would refuse", n)
	}
}
