package inject

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/inject/internal/bundle"
)

func TestCommittedBundleIsFresh(t *testing.T) {
	schema, err := os.ReadFile(filepath.FromSlash(bundle.SchemaFile))
	if err != nil {
		t.Fatalf("read committed schema: %v", err)
	}
	if !bytes.Equal(schema, bundle.SchemaJS()) {
		t.Fatal("inject/" + bundle.SchemaFile + " is stale: the app/page command types changed; run `go generate ./inject` and commit")
	}
	abs, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := bundle.Bundle(abs)
	if err != nil {
		t.Fatalf("re-bundle bridge: %v", err)
	}
	if string(fresh) != Script() {
		t.Fatal("inject/" + bundle.ScriptFile + " is stale: inject/src changed since the last `go generate ./inject`; regenerate and commit")
	}
}

func TestScriptIsOneASCIIIIFEWithTheCommandEntryPoint(t *testing.T) {
	s := Script()
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			t.Fatalf("bridge script has a non-ASCII byte 0x%02x at %d; want pure ASCII so no encoding can change it", s[i], i)
		}
	}
	for _, want := range []string{"(() => {", "__clanker", "execCommand", "attachShadow"} {
		if !strings.Contains(s, want) {
			t.Errorf("bridge script lacks %q", want)
		}
	}
	if strings.Contains(s, "eval(") || strings.Contains(s, "new Function") {
		t.Error("bridge script contains eval or new Function; it must never evaluate strings")
	}
}
