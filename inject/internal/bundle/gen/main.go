// Command gen writes inject/src/schema.gen.js and inject/bridge.gen.js. Run it with
// `go generate ./inject` from the repository root.
package main

import (
	"log"
	"os"
	"path/filepath"

	"github.com/clanker-desktop/clanker/inject/internal/bundle"
)

func main() {
	// go generate runs in the package directory (inject/).
	dir, err := os.Getwd()
	if err != nil {
		log.Fatal(err)
	}
	src := filepath.Join(dir, "src")
	if err := os.WriteFile(filepath.Join(src, "schema.gen.js"), bundle.SchemaJS(), 0o644); err != nil {
		log.Fatal(err)
	}
	out, err := bundle.Bundle(src)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bridge.gen.js"), out, 0o644); err != nil {
		log.Fatal(err)
	}
}
