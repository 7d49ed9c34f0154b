package inject

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
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

// The bridge searches rows and their parts with util.js's within, never with an element's
// querySelectorAll: WebKitGTK caches that call's result for a lone tag or class selector
// with the elements found held alive and drops the entry only when the searched element's
// subtree changes while in the page, so each removed row the bridge had read stayed alive,
// a photo's <img> with it and the picture's decoded pixels too (the full-app test
// TestFullAppPictureLeftBehindIsNotKeptDecoded). The document's own querySelectorAll is
// fine: any element added to or removed from the page drops the document's entries.
func TestBridgeSearchesOnlyTheDocumentWithQuerySelectorAll(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("src", "*.js"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no bridge sources found: %v", err)
	}
	call := regexp.MustCompile(`([\w$\])]+)\s*\.\s*querySelectorAll\s*\(`)
	found := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if c := strings.TrimSpace(line); strings.HasPrefix(c, "//") || strings.HasPrefix(c, "*") {
				continue
			}
			for _, m := range call.FindAllStringSubmatch(line, -1) {
				found++
				if m[1] != "document" {
					t.Errorf("%s:%d calls %s.querySelectorAll; search an element with within (util.js) instead:\n\t%s", f, i+1, m[1], strings.TrimSpace(line))
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("found no querySelectorAll call at all; the pattern no longer matches the sources")
	}
}
