// Command clanker is the Clanker desktop app: Google Messages in a window, with an
// OpenAI-compatible model taking part in the conversations the user switches on.
//
// main only wires things together; all logic lives under app/ (app/run assembles it).
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/clanker-desktop/clanker/app/run"
)

// version is stamped at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(runMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage: clanker [flags] [command]

Commands:
  (none)              run the app on Google Messages (https://messages.google.com/web)
  demo                run the same app on the built-in simulator with a fake model
  settings            open the settings window (its own process; the app opens it too)
  config list         show every setting (the API key masked)
  config get KEY      show one setting
  config set KEY VAL  change one setting; "config set apiKey -" reads the key from stdin
  diag                print a sanitised diagnostics snapshot of the stored data

Flags:
`

type globalFlags struct {
	version     bool
	dataDir     string
	messagesURL string
	testControl string
	popups      stringList
	noKeychain  bool
	demo        bool
	verbose     bool
	hidden      bool
	showDiag    bool
}

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func newFlagSet(g *globalFlags, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("clanker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&g.version, "version", false, "print the version and exit")
	fs.StringVar(&g.dataDir, "data-dir", "", "directory holding Clanker's database (default: the user config dir's Clanker folder)")
	fs.StringVar(&g.messagesURL, "messages-url", "", "page to show: https, or http on loopback for tests")
	fs.BoolVar(&g.demo, "demo", false, "act on the demo data (same as the demo command, for config and diag)")
	fs.BoolVar(&g.noKeychain, "no-keychain", false, "keep the API key in the database instead of the OS keychain")
	fs.BoolVar(&g.verbose, "v", false, "log debug details (never the API key)")
	fs.BoolVar(&g.hidden, "hidden", false, "start with the window hidden in the tray (the login entry uses it)")
	fs.BoolVar(&g.showDiag, "show-diagnostics", false, "settings: open on the Diagnostics view with the text read from stdin (the app uses it)")
	fs.StringVar(&g.testControl, "test-control", "", "tests only (test builds): start the loopback test control and write its address to this file")
	fs.Var(&g.popups, "popup-origin", "tests only: an extra origin allowed to open sign-in popups (repeatable)")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

// runMain parses the command line and runs the command. --version is answered before
// anything else happens, so it works without a display.
func runMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var g globalFlags
	fs := newFlagSet(&g, stderr)
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	cmd := ""
	if len(rest) > 0 {
		cmd, rest = rest[0], rest[1:]
	}
	if g.version {
		fmt.Fprintf(stdout, "clanker %s\n", version)
		return 0
	}
	level := slog.LevelInfo
	if g.verbose {
		level = slog.LevelDebug
	}
	// The app and its settings window also log to the rotating file in the data folder:
	// launched from a desktop menu they have no terminal, and errors must not vanish.
	// Everything they print to stderr goes there too.
	logFile := ""
	switch cmd {
	case "", "run", "demo", "settings":
		if dir, err := run.DataDir(g.dataDir, g.demo || cmd == "demo"); err == nil {
			if f, err := run.OpenLog(dir); err != nil {
				fmt.Fprintf(stderr, "clanker: no log file (%v); logging to stderr only\n", err)
			} else {
				defer f.Close()
				stderr = io.MultiWriter(stderr, f)
				logFile = run.LogPath(dir)
			}
		}
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(log)

	switch cmd {
	case "", "run":
		return app(g, false, logFile, log, stderr)
	case "demo":
		return app(g, true, logFile, log, stderr)
	case "settings":
		return settingsWindow(g, stdin, stderr, log)
	case "config":
		return config(g, rest, stdin, stdout, stderr, log)
	case "diag":
		return diagnostics(g, stdout, stderr, log)
	case "help":
		fs.Usage()
		return 0
	}
	fmt.Fprintf(stderr, "clanker: unknown command %q\n\n", cmd)
	fs.Usage()
	return 2
}

// parseInterspersed parses flags wherever they stand among the command's words, so
// `clanker config list --data-dir X` means what `clanker --data-dir X config list` does.
// The words come back in order; everything after "--" is a word, even when it starts
// with a dash (`clanker config set userName -- -Bob`).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var words []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := args[:len(args)-len(rest)]; len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			return append(words, rest...), nil
		}
		if len(rest) == 0 {
			return words, nil
		}
		words = append(words, rest[0])
		args = rest[1:]
	}
}

func app(g globalFlags, demo bool, logFile string, log *slog.Logger, stderr io.Writer) int {
	// The display itself is checked in run.New, after the single-instance check: waking
	// the running app needs no display.
	run.AvoidBusAutolaunch(log)
	if g.messagesURL != "" {
		if err := run.CheckMessagesURL(g.messagesURL); err != nil {
			fmt.Fprintf(stderr, "clanker: %v\n", err)
			return 2
		}
	}
	a, err := run.New(run.Options{
		DataDir:         g.dataDir,
		MessagesURL:     g.messagesURL,
		Demo:            demo,
		PopupOrigins:    g.popups,
		NoKeychain:      g.noKeychain,
		TestControlFile: g.testControl,
		StartHidden:     g.hidden,
		Version:         version,
		LogFile:         logFile,
		Logger:          log,
	})
	if errors.Is(err, run.ErrAlreadyRunning) {
		// Not a failure: the running app was asked to show its window.
		fmt.Fprintf(stderr, "clanker: %v\n", err)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "clanker: %v\n", err)
		return 1
	}
	defer a.Close()
	if err := a.Run(); err != nil {
		fmt.Fprintf(stderr, "clanker: %v\n", err)
		return 1
	}
	return 0
}

// maxDiagnosticsBytes caps the diagnostics text read from stdin.
const maxDiagnosticsBytes = 4 << 20

// settingsWindow runs the settings window on the app's data (the demo's with --demo),
// with the same keychain choice as the app.
func settingsWindow(g globalFlags, stdin io.Reader, stderr io.Writer, log *slog.Logger) int {
	if err := run.CheckDesktop(log); err != nil {
		fmt.Fprintf(stderr, "clanker: %v\n", err)
		return 1
	}
	text := ""
	if g.showDiag {
		b, err := io.ReadAll(io.LimitReader(stdin, maxDiagnosticsBytes))
		if err != nil {
			fmt.Fprintf(stderr, "clanker: read the diagnostics from stdin: %v\n", err)
			return 1
		}
		text = string(b)
	}
	dir, err := run.DataDir(g.dataDir, g.demo)
	if err == nil {
		err = run.SettingsWindow(run.SettingsWindowOptions{
			DataDir:         dir,
			NoKeychain:      g.noKeychain,
			Diagnostics:     text,
			ShowDiagnostics: g.showDiag,
			Demo:            g.demo,
			Version:         version,
			Logger:          log,
		})
	}
	if err != nil {
		fmt.Fprintf(stderr, "clanker: %v\n", err)
		return 1
	}
	return 0
}

func config(g globalFlags, args []string, stdin io.Reader, stdout, stderr io.Writer, log *slog.Logger) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: clanker config list | get KEY | set KEY VALUE (set apiKey - reads stdin)")
		return 2
	}
	sc, err := run.OpenDataStore(g.dataDir, g.demo, g.noKeychain, log)
	if err != nil {
		fmt.Fprintf(stderr, "clanker: %v\n", err)
		return 1
	}
	defer sc.Close()
	ctx := context.Background()
	switch {
	case args[0] == "list" && len(args) == 1:
		entries, err := run.ConfigList(ctx, sc)
		if err != nil {
			fmt.Fprintf(stderr, "clanker: %v\n", err)
			return 1
		}
		for _, e := range entries {
			fmt.Fprintf(stdout, "%s=%s\n", e.Key, e.Value)
		}
		return 0
	case args[0] == "get" && len(args) == 2:
		v, err := run.ConfigGet(ctx, sc, args[1])
		if err != nil {
			fmt.Fprintf(stderr, "clanker: %v\n", err)
			return 1
		}
		fmt.Fprintln(stdout, v)
		return 0
	case args[0] == "set" && len(args) == 3:
		value := args[2]
		if value == "-" {
			line, err := bufio.NewReader(io.LimitReader(stdin, 1<<16)).ReadString('\n')
			if err != nil && !errors.Is(err, io.EOF) {
				fmt.Fprintf(stderr, "clanker: read the value from stdin: %v\n", err)
				return 1
			}
			value = strings.TrimRight(line, "\r\n")
		}
		if err := run.ConfigSet(ctx, sc, args[1], value); err != nil {
			fmt.Fprintf(stderr, "clanker: %v\n", err)
			return 1
		}
		if note := run.ConfigSetNote(ctx, sc, args[1]); note != "" {
			fmt.Fprintf(stderr, "clanker: %s\n", note)
		}
		return 0
	}
	fmt.Fprintln(stderr, "usage: clanker config list | get KEY | set KEY VALUE (set apiKey - reads stdin)")
	return 2
}

func diagnostics(g globalFlags, stdout, stderr io.Writer, log *slog.Logger) int {
	sc, err := run.OpenDataStore(g.dataDir, g.demo, g.noKeychain, log)
	if err != nil {
		fmt.Fprintf(stderr, "clanker: %v\n", err)
		return 1
	}
	defer sc.Close()
	logFile := ""
	if dir, err := run.DataDir(g.dataDir, g.demo); err == nil {
		logFile = run.LogPath(dir)
	}
	b, err := run.DiagnosticsJSON(context.Background(), sc, version, logFile, log)
	if err != nil {
		fmt.Fprintf(stderr, "clanker: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s\n", b)
	return 0
}
