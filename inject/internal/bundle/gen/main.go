// Command gen writes inject/gen/schema.gen.js and inject/gen/bridge.gen.js. Run it with
// `go generate ./inject` from the repository root.
package main

import (
	"log"
	"os"

	"github.com/clanker-desktop/clanker/inject/internal/bundle"
)

func main() {
	// go generate runs in the package directory (inject/).
	dir, err := os.Getwd()
	if err != nil {
		log.Fatal(err)
	}
	if err := bundle.Generate(dir); err != nil {
		log.Fatal(err)
	}
}
