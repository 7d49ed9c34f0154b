package bundle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSrc lays out a throwaway inject directory with the given src files.
func writeSrc(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		path := filepath.Join(dir, "src", name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestBundleFailsOnAnEsbuildWarning(t *testing.T) {
	dir := writeSrc(t, map[string]string{
		"main.js": "const limits = { max: 1, max: 2 };\nconsole.log(limits);\n",
	})
	_, err := Bundle(dir)
	if err == nil {
		t.Fatal("Bundle succeeded on a source with a duplicate object key; a warning must fail the build")
	}
	if !strings.Contains(err.Error(), `src/main.js:1:`) || !strings.Contains(err.Error(), `Duplicate key "max"`) {
		t.Fatalf("error = %q, want the warning's text and its file:line", err)
	}
}

func TestBundleOfCleanSourcesSucceeds(t *testing.T) {
	dir := writeSrc(t, map[string]string{
		"main.js": "import { twice } from './util.js';\nconsole.log(twice(2));\n",
		"util.js": "export function twice(n) { return 2 * n; }\n",
	})
	out, err := Bundle(dir)
	if err != nil {
		t.Fatalf("Bundle: %v", err)
	}
	if !strings.Contains(string(out), "function twice(n)") {
		t.Fatalf("bundle lacks the imported function:\n%s", out)
	}
}
