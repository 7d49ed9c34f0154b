//go:build unix

package session

import (
	"strings"
	"testing"
)

func TestLongDataDirectoryGetsAShortSocketPath(t *testing.T) {
	long := "/" + strings.Repeat("d", 150)
	p := socketPath(long)
	if len(p) >= 100 || !strings.HasSuffix(p, ".sock") {
		t.Fatalf("socketPath of a 151-byte directory: want a short .sock path, got %q (%d bytes)", p, len(p))
	}
	if socketPath(long) != p {
		t.Fatal("socketPath must be stable for one directory, so the second launch finds the first")
	}
}
