package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The layering rules of ARCHITECTURE.md, checked on what `go list -deps` reports for main.go
// and everything under app/, on every system the app is built for. app/engine is the domain:
// it imports only the standard library, so the decision core can be read and tested alone.
// The adapters around it (store, model client, images, keychain, page link, diagnostics,
// demo, desktop shell) import the domain and never each other, so each can be replaced or
// tested without the rest; app/run is the one place that wires them, and nothing under app/
// imports it; main.go reaches the app only through app/run. Test-only code in tests/ never reaches the product. A few third-party
// libraries belong to one adapter each, so, for example, D-Bus stays in the desktop session.

const modulePath = "github.com/clanker-desktop/clanker"

// adapters lists the adapter packages (each with its subpackages). Two packages in the same
// adapter may import each other; packages in different adapters may not.
var adapters = []string{
	"app/sqlite", "app/llm", "app/images", "app/keychain", "app/page", "app/diag", "app/demo", "app/desktop", "app/update",
}

// ownedLibraries names, for third-party modules only one part of the app may use, that part.
var ownedLibraries = map[string]string{
	"github.com/godbus/dbus":        "app/desktop/session",
	"github.com/zalando/go-keyring": "app/keychain",
	"github.com/openai/openai-go":   "app/llm",
	"modernc.org/sqlite":            "app/sqlite",
	"github.com/wailsapp/wails":     "app/desktop",
}

// listedPackage is the part of `go list -json` output the rules read.
type listedPackage struct {
	ImportPath string
	Standard   bool
	Imports    []string
	Deps       []string
}

// rel returns a module package's path relative to the module ("" for the root) and whether
// it is in the module at all.
func rel(importPath string) (string, bool) {
	if importPath == modulePath {
		return "", true
	}
	r, ok := strings.CutPrefix(importPath, modulePath+"/")
	return r, ok
}

// under reports whether path is dir or inside it.
func under(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// adapterOf returns the adapter a module-relative path belongs to ("" when none).
func adapterOf(path string) string {
	for _, a := range adapters {
		if under(path, a) {
			return a
		}
	}
	return ""
}

// checkLayering returns one sentence per broken rule; pkgs is the output of
// `go list -deps -json` for the product's packages.
func checkLayering(pkgs []listedPackage) []string {
	byPath := map[string]listedPackage{}
	for _, p := range pkgs {
		byPath[p.ImportPath] = p
	}
	var problems []string
	for _, p := range pkgs {
		from, inModule := rel(p.ImportPath)
		if !inModule {
			continue
		}
		name := from
		if name == "" {
			name = "main.go's package"
		}
		if under(from, "tests") {
			problems = append(problems, from+" is test-only code but the product links it; move what the product needs under app/")
		}
		if from == "app/engine" {
			for _, d := range p.Deps {
				if dp, ok := byPath[d]; !ok || !dp.Standard {
					problems = append(problems, "app/engine depends on "+d+"; the domain may use only the standard library")
				}
			}
		}
		fromAdapter := adapterOf(from)
		for _, imp := range p.Imports {
			for lib, owner := range ownedLibraries {
				if under(imp, lib) && !under(from, owner) {
					problems = append(problems, name+" imports "+imp+", which only "+owner+" may use")
				}
			}
			to, ok := rel(imp)
			if !ok {
				continue
			}
			switch {
			case under(to, "tests"):
				problems = append(problems, name+" imports "+to+"; nothing in the product may import tests/")
			case from == "" && to != "app/run":
				problems = append(problems, "main.go imports "+to+"; the command line reaches the app only through app/run")
			case to == "app/run" && under(from, "app"):
				problems = append(problems, name+" imports app/run; only main.go assembles the app")
			case fromAdapter != "" && under(to, "app") && to != "app/engine" && adapterOf(to) != fromAdapter:
				problems = append(problems, name+" imports "+to+"; an adapter imports only app/engine and its own subpackages, app/run wires adapters together")
			}
		}
	}
	sort.Strings(problems)
	return slices.Compact(problems)
}

// goList runs `go list -deps -json` on the product's packages for one system and tag set.
func goList(t *testing.T, goos, tags string) []listedPackage {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the layering test runs `go list` and found no go command on PATH: %v", err)
	}
	cmd := exec.Command(gobin, "list", "-deps", "-json", "-tags", tags, ".", "./app/...")
	cmd.Env = append(os.Environ(), "GOOS="+goos)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list for %s (tags %s): %v\n%s", goos, tags, err, stderr.String())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("read go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestLayering applies the rules to the product as built for Linux, Windows and macOS, in
// release builds and in the test builds the full-app tests make.
func TestLayering(t *testing.T) {
	for _, goos := range []string{"linux", "windows", "darwin"} {
		for _, tags := range []string{"webkit2_41", "webkit2_41,testcontrol"} {
			pkgs := goList(t, goos, tags)
			if len(pkgs) < 50 {
				t.Fatalf("go list for %s (tags %s) listed only %d packages", goos, tags, len(pkgs))
			}
			for _, p := range checkLayering(pkgs) {
				t.Errorf("%s, tags %s: %s", goos, tags, p)
			}
		}
	}
}

// TestLayeringRulesCatchViolations feeds the checker a made-up dependency graph with one
// breach of each rule, so a rule that stopped matching would show here.
func TestLayeringRulesCatchViolations(t *testing.T) {
	m := func(p string) string { return modulePath + "/" + p }
	pkgs := []listedPackage{
		{ImportPath: "fmt", Standard: true},
		{ImportPath: "github.com/some/lib"},
		{ImportPath: "github.com/godbus/dbus/v5"},
		{ImportPath: m("app/engine"), Imports: []string{"fmt", "github.com/some/lib"}, Deps: []string{"fmt", "github.com/some/lib"}},
		{ImportPath: m("app/sqlite"), Imports: []string{m("app/engine"), m("app/llm")}},
		{ImportPath: m("app/llm"), Imports: []string{m("app/engine"), m("tests/fakellm")}},
		{ImportPath: m("tests/fakellm"), Imports: []string{"fmt"}},
		{ImportPath: m("app/desktop/window"), Imports: []string{m("app/desktop/menus"), m("app/run"), "github.com/godbus/dbus/v5"}},
		{ImportPath: m("app/desktop/menus"), Imports: []string{m("app/engine")}},
		{ImportPath: m("app/desktop/session"), Imports: []string{"github.com/godbus/dbus/v5"}},
		{ImportPath: m("app/run"), Imports: []string{m("app/sqlite"), m("app/llm"), m("app/desktop/window")}},
		{ImportPath: modulePath, Imports: []string{m("app/run"), m("app/sqlite")}},
	}
	want := []string{
		"app/desktop/window imports app/run; only main.go assembles the app",
		"app/desktop/window imports github.com/godbus/dbus/v5, which only app/desktop/session may use",
		"app/engine depends on github.com/some/lib; the domain may use only the standard library",
		"app/llm imports tests/fakellm; nothing in the product may import tests/",
		"app/sqlite imports app/llm; an adapter imports only app/engine and its own subpackages, app/run wires adapters together",
		"main.go imports app/sqlite; the command line reaches the app only through app/run",
		"tests/fakellm is test-only code but the product links it; move what the product needs under app/",
	}
	got := checkLayering(pkgs)
	if !slices.Equal(got, want) {
		t.Errorf("problems found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
