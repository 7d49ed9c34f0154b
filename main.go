// Command clanker is the Clanker desktop app: Google Messages in a window, with an
// OpenAI-compatible model taking part in the conversations the user switches on.
//
// main only wires things together; all logic lives under app/.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

// version is stamped at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("clanker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	showVersion := fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: clanker [--version]\n\n"+
			"The desktop app is being assembled; see README.md for what runs today\n"+
			"(make sim serves the Google Messages simulator, make test runs every test).\n")
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *showVersion {
		fmt.Fprintf(stdout, "clanker %s\n", version)
		return 0
	}
	fs.Usage()
	return 2
}
