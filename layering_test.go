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
	"sync"
	"testing"
)

// The layering rules of ARCHITECTURE.md, checked on what `go list -deps` reports for main.go
// and everything under app/, inject/, frontend/ and build/, on every system the app is built
// for. app/engine is the domain: it imports only the standard library, so the decision core
// can be read and tested alone. The adapters around it (store, model client, images,
// keychain, page link, diagnostics, demo, desktop shell) import the domain and never each
// other, so each can be replaced or tested without the rest; app/run is the one place that
// wires them, and nothing under app/ imports it; main.go reaches the app only through
// app/run. Inside the desktop shell imports run one way (desktopImports). The bridge script
// (inject), the pages (frontend/) and the icons (build/icons) are embedded files that import
// nothing of the app, and only the part of the app that uses each imports it; generators and
// build tools are never linked. Test-only code in tests/ never reaches the product. A few
// third-party libraries belong to one part each, so, for example, D-Bus stays in the
// desktop session.

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
	"github.com/evanw/esbuild":      "inject/internal/bundle",
}

// desktopImports is the one-way rule inside the desktop shell (app/desktop/doc.go): for each
// package under app/desktop, the other app/desktop packages it may import. The window
// drives the rest; the settings window shares only the appearance hand-over, the native layer
// and the log adapter;
// the menus' models and the session stay free of the window and the native layer, except
// that macOS notifications go through the native layer; the internal packages below them
// import only what is under them.
var desktopImports = map[string][]string{
	"app/desktop":                     nil,
	"app/desktop/window":              {"app/desktop/menus", "app/desktop/session", "app/desktop/internal/appearance", "app/desktop/internal/native", "app/desktop/internal/wailslog"},
	"app/desktop/settingswin":         {"app/desktop/internal/appearance", "app/desktop/internal/native", "app/desktop/internal/wailslog"},
	"app/desktop/internal/appearance": {"app/desktop/session", "app/desktop/internal/native"},
	"app/desktop/menus":               {"app/desktop/internal/text"},
	"app/desktop/session":             {"app/desktop/internal/text", "app/desktop/internal/native", "app/desktop/internal/macos"},
	"app/desktop/internal/native":     {"app/desktop/menus", "app/desktop/internal/macos", "app/desktop/internal/ipc"},
	"app/desktop/internal/macos":      {"app/desktop/menus"},
	"app/desktop/internal/ipc":        nil,
	"app/desktop/internal/text":       nil,
	"app/desktop/internal/wailslog":   nil,
}

// embedded names, for each folder of embedded files, who may import its packages: the
// bridge script is injected by app/run, the pages are served by the desktop shell, and of
// build/ only the icons are data the app embeds (the window's and the tray's).
var embedded = []struct{ dir, only, importer, why string }{
	{"inject", "inject", "app/run", "only app/run injects the bridge script"},
	{"frontend", "", "app/desktop", "only the desktop shell serves the pages"},
	{"build", "build/icons", "app/desktop", "the app takes only its icons from build/ (build/icons), in the desktop shell"},
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

// linkedByProduct returns the module-relative paths of the module's packages main.go and
// app/ link: the product. pkgs may list more (the generators and tools under inject/ and
// build/), which the product must not reach.
func linkedByProduct(pkgs []listedPackage) map[string]bool {
	byPath := map[string]listedPackage{}
	for _, p := range pkgs {
		byPath[p.ImportPath] = p
	}
	linked := map[string]bool{}
	var visit func(importPath string)
	visit = func(importPath string) {
		r, ok := rel(importPath)
		if !ok || linked[r] {
			return
		}
		linked[r] = true
		for _, imp := range byPath[importPath].Imports {
			visit(imp)
		}
	}
	for _, p := range pkgs {
		if r, ok := rel(p.ImportPath); ok && (r == "" || under(r, "app")) {
			visit(p.ImportPath)
		}
	}
	return linked
}

// checkLayering returns one sentence per broken rule; pkgs is the output of
// `go list -deps -json` for the product's packages and those under inject/, frontend/ and
// build/.
func checkLayering(pkgs []listedPackage) []string {
	byPath := map[string]listedPackage{}
	for _, p := range pkgs {
		byPath[p.ImportPath] = p
	}
	linked := linkedByProduct(pkgs)
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
		if under(from, "tests") && linked[from] {
			problems = append(problems, from+" is test-only code but the product links it; move what the product needs under app/")
		}
		if linked[from] && (under(from, "inject/internal") || under(from, "build") && from != "build/icons") {
			problems = append(problems, "the product links "+from+", a generator or build tool; it may link only the files they make")
		}
		if from == "app/engine" {
			for _, d := range p.Deps {
				if dp, ok := byPath[d]; !ok || !dp.Standard {
					problems = append(problems, "app/engine depends on "+d+"; the domain may use only the standard library")
				}
			}
		}
		allowedDesktop, desktopListed := desktopImports[from]
		if under(from, "app/desktop") && !desktopListed {
			problems = append(problems, from+" is not in desktopImports; add the desktop packages it may import there and in app/desktop/doc.go")
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
				if !under(from, "tests") {
					problems = append(problems, name+" imports "+to+"; nothing outside tests/ may import tests/")
				}
			case from == "" && to != "app/run":
				problems = append(problems, "main.go imports "+to+"; the command line reaches the app only through app/run")
			case to == "app/run" && under(from, "app"):
				problems = append(problems, name+" imports app/run; only main.go assembles the app")
			case under(from, "app/desktop") && under(to, "app/desktop") && desktopListed && !slices.Contains(allowedDesktop, to):
				problems = append(problems, from+" imports "+to+"; inside app/desktop imports run one way, and "+from+" may import only "+orNone(allowedDesktop)+" (desktopImports, app/desktop/doc.go)")
			case fromAdapter != "" && under(to, "app") && to != "app/engine" && adapterOf(to) != fromAdapter:
				problems = append(problems, name+" imports "+to+"; an adapter imports only app/engine and its own subpackages, app/run wires adapters together")
			}
			if under(to, "tests") {
				continue // reported above
			}
			for _, e := range embedded {
				if !under(to, e.dir) || under(from, e.dir) {
					continue
				}
				if (e.only != "" && to != e.only) || !under(from, e.importer) {
					problems = append(problems, name+" imports "+to+"; "+e.why)
				}
			}
			switch {
			case from == "inject" || under(from, "frontend") || from == "build/icons":
				if !under(to, from) {
					problems = append(problems, from+" imports "+to+"; embedded files import nothing of the app")
				}
			case under(from, "inject") && !under(to, "inject") && to != "app/page":
				problems = append(problems, from+" imports "+to+"; the bridge's bundler reads only the protocol types in app/page")
			case under(from, "build") && !under(to, "build"):
				problems = append(problems, from+" imports "+to+"; the build's tools stand apart from the app (run it as a program instead)")
			}
		}
	}
	sort.Strings(problems)
	return slices.Compact(problems)
}

// orNone lists paths for a sentence.
func orNone(paths []string) string {
	if len(paths) == 0 {
		return "no other desktop package"
	}
	return strings.Join(paths, ", ")
}

// layeredDirs are the package patterns the rules are checked on: the product and the
// embedded files, generators and build tools beside it.
var layeredDirs = []string{".", "./app/...", "./inject/...", "./frontend/...", "./build/..."}

// listings caches what `go list` reported per system and tag set: the layering test and the
// package-map test read the same listings.
var listings struct {
	sync.Mutex
	m map[string][]listedPackage
}

// goList runs `go list -deps -json` on patterns for one system and tag set, with cgo on
// (as the app is built), so files that need cgo, such as the macOS layer, are seen too.
func goList(t *testing.T, goos, tags string, patterns ...string) []listedPackage {
	t.Helper()
	key := goos + " " + tags + " " + strings.Join(patterns, " ")
	listings.Lock()
	defer listings.Unlock()
	if pkgs, ok := listings.m[key]; ok {
		return pkgs
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the layering test runs `go list` and found no go command on PATH: %v", err)
	}
	cmd := exec.Command(gobin, append([]string{"list", "-deps", "-json", "-tags", tags}, patterns...)...)
	cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=1")
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
	if listings.m == nil {
		listings.m = map[string][]listedPackage{}
	}
	listings.m[key] = pkgs
	return pkgs
}

// builds are the systems and tag sets the app is built for: release builds and the test
// builds the full-app tests make.
var builds = []struct{ goos, tags string }{
	{"linux", "webkit2_41"}, {"linux", "webkit2_41,testcontrol"},
	{"windows", "webkit2_41"}, {"windows", "webkit2_41,testcontrol"},
	{"darwin", "webkit2_41"}, {"darwin", "webkit2_41,testcontrol"},
}

// TestLayering applies the rules to the product as built for Linux, Windows and macOS, in
// release builds and in the test builds the full-app tests make.
func TestLayering(t *testing.T) {
	for _, b := range builds {
		pkgs := goList(t, b.goos, b.tags, layeredDirs...)
		if len(pkgs) < 50 {
			t.Fatalf("go list for %s (tags %s) listed only %d packages", b.goos, b.tags, len(pkgs))
		}
		for _, p := range checkLayering(pkgs) {
			t.Errorf("%s, tags %s: %s", b.goos, b.tags, p)
		}
	}
}

// m is a module package's import path.
func m(p string) string { return modulePath + "/" + p }

// cleanGraph is a made-up dependency graph shaped like the app that breaks no rule: the
// starting point of each case of TestLayeringRulesCatchViolations.
func cleanGraph() map[string]listedPackage {
	g := map[string]listedPackage{}
	add := func(p listedPackage) { g[p.ImportPath] = p }
	add(listedPackage{ImportPath: "fmt", Standard: true})
	add(listedPackage{ImportPath: "github.com/some/lib"})
	add(listedPackage{ImportPath: "github.com/godbus/dbus/v5"})
	add(listedPackage{ImportPath: "github.com/evanw/esbuild/pkg/api"})
	add(listedPackage{ImportPath: modulePath, Imports: []string{m("app/run")}})
	add(listedPackage{ImportPath: m("app/engine"), Imports: []string{"fmt"}, Deps: []string{"fmt"}})
	add(listedPackage{ImportPath: m("app/sqlite"), Imports: []string{m("app/engine"), "github.com/some/lib"}})
	add(listedPackage{ImportPath: m("app/llm"), Imports: []string{m("app/engine")}})
	add(listedPackage{ImportPath: m("app/page"), Imports: []string{m("app/engine")}})
	add(listedPackage{ImportPath: m("app/desktop/window"), Imports: []string{m("app/desktop/menus"), m("app/desktop/session"),
		m("app/desktop/internal/native"), m("build/icons"), m("frontend/bootstrap"), m("app/engine")}})
	add(listedPackage{ImportPath: m("app/desktop/settingswin"), Imports: []string{m("app/desktop/internal/native"), m("frontend/settings")}})
	add(listedPackage{ImportPath: m("app/desktop/menus"), Imports: []string{m("app/desktop/internal/text"), m("app/engine")}})
	add(listedPackage{ImportPath: m("app/desktop/session"), Imports: []string{m("app/desktop/internal/text"), "github.com/godbus/dbus/v5"}})
	add(listedPackage{ImportPath: m("app/desktop/internal/native"), Imports: []string{m("app/desktop/menus"), m("app/desktop/internal/ipc")}})
	add(listedPackage{ImportPath: m("app/desktop/internal/ipc")})
	add(listedPackage{ImportPath: m("app/desktop/internal/text")})
	add(listedPackage{ImportPath: m("app/run"), Imports: []string{m("app/sqlite"), m("app/llm"), m("app/page"),
		m("app/desktop/window"), m("app/desktop/settingswin"), m("inject")}})
	add(listedPackage{ImportPath: m("inject")})
	add(listedPackage{ImportPath: m("inject/internal/bundle"), Imports: []string{m("app/page"), "github.com/evanw/esbuild/pkg/api"}})
	add(listedPackage{ImportPath: m("frontend/bootstrap")})
	add(listedPackage{ImportPath: m("frontend/settings")})
	add(listedPackage{ImportPath: m("build/icons")})
	add(listedPackage{ImportPath: m("build/icons/gen"), Imports: []string{m("build/icons"), "fmt"}})
	add(listedPackage{ImportPath: m("build/vulncheck"), Imports: []string{"fmt"}})
	add(listedPackage{ImportPath: m("tests/fakellm"), Imports: []string{"fmt"}})
	return g
}

// TestLayeringRulesCatchViolations breaks each rule once in a graph that is otherwise
// clean, so a rule that stopped matching would show here.
func TestLayeringRulesCatchViolations(t *testing.T) {
	imports := func(from string, to ...string) func(map[string]listedPackage) {
		return func(g map[string]listedPackage) {
			p := g[from]
			p.ImportPath = from
			p.Imports = append(slices.Clone(p.Imports), to...)
			g[from] = p
		}
	}
	cases := []struct {
		rule   string
		change func(map[string]listedPackage)
		want   []string
	}{
		{"the engine uses the standard library only", func(g map[string]listedPackage) {
			p := g[m("app/engine")]
			p.Deps = append(p.Deps, "github.com/some/lib")
			g[m("app/engine")] = p
		}, []string{"app/engine depends on github.com/some/lib; the domain may use only the standard library"}},
		{"an adapter imports no other adapter", imports(m("app/sqlite"), m("app/llm")),
			[]string{"app/sqlite imports app/llm; an adapter imports only app/engine and its own subpackages, app/run wires adapters together"}},
		{"only main.go imports app/run", imports(m("app/desktop/window"), m("app/run")),
			[]string{"app/desktop/window imports app/run; only main.go assembles the app"}},
		{"main.go imports only app/run", imports(modulePath, m("app/sqlite")),
			[]string{"main.go imports app/sqlite; the command line reaches the app only through app/run"}},
		{"the product imports nothing of tests/", imports(m("app/llm"), m("tests/fakellm")), []string{
			"app/llm imports tests/fakellm; nothing outside tests/ may import tests/",
			"tests/fakellm is test-only code but the product links it; move what the product needs under app/",
		}},
		{"build tools import nothing of tests/ either", imports(m("build/vulncheck"), m("tests/fakellm")),
			[]string{"build/vulncheck imports tests/fakellm; nothing outside tests/ may import tests/"}},
		{"a library belongs to its part", imports(m("app/desktop/window"), "github.com/godbus/dbus/v5"),
			[]string{"app/desktop/window imports github.com/godbus/dbus/v5, which only app/desktop/session may use"}},
		{"esbuild belongs to the bundler", imports(m("app/page"), "github.com/evanw/esbuild/pkg/api"),
			[]string{"app/page imports github.com/evanw/esbuild/pkg/api, which only inject/internal/bundle may use"}},
		{"inside app/desktop imports run one way", imports(m("app/desktop/menus"), m("app/desktop/window")),
			[]string{"app/desktop/menus imports app/desktop/window; inside app/desktop imports run one way, and app/desktop/menus may import only app/desktop/internal/text (desktopImports, app/desktop/doc.go)"}},
		{"a leaf of app/desktop imports no desktop package", imports(m("app/desktop/internal/ipc"), m("app/desktop/internal/text")),
			[]string{"app/desktop/internal/ipc imports app/desktop/internal/text; inside app/desktop imports run one way, and app/desktop/internal/ipc may import only no other desktop package (desktopImports, app/desktop/doc.go)"}},
		{"every desktop package has a line in desktopImports", imports(m("app/desktop/tray"), m("app/engine")),
			[]string{"app/desktop/tray is not in desktopImports; add the desktop packages it may import there and in app/desktop/doc.go"}},
		{"only app/run imports the bridge script", imports(m("app/desktop/window"), m("inject")),
			[]string{"app/desktop/window imports inject; only app/run injects the bridge script"}},
		{"only the desktop shell imports the pages", imports(m("app/llm"), m("frontend/settings")),
			[]string{"app/llm imports frontend/settings; only the desktop shell serves the pages"}},
		{"the app takes only the icons from build/", imports(m("app/desktop/window"), m("build/vulncheck")), []string{
			"app/desktop/window imports build/vulncheck; the app takes only its icons from build/ (build/icons), in the desktop shell",
			"the product links build/vulncheck, a generator or build tool; it may link only the files they make",
		}},
		{"only the desktop shell imports the icons", imports(m("app/run"), m("build/icons")),
			[]string{"app/run imports build/icons; the app takes only its icons from build/ (build/icons), in the desktop shell"}},
		{"embedded files import nothing of the app", imports(m("frontend/bootstrap"), m("app/engine")),
			[]string{"frontend/bootstrap imports app/engine; embedded files import nothing of the app"}},
		{"the bridge package links no generator", imports(m("inject"), m("inject/internal/bundle")), []string{
			"the product links inject/internal/bundle, a generator or build tool; it may link only the files they make",
		}},
		{"the bundler reads only the protocol types", imports(m("inject/internal/bundle"), m("app/engine")),
			[]string{"inject/internal/bundle imports app/engine; the bridge's bundler reads only the protocol types in app/page"}},
		{"build tools stand apart from the app", imports(m("build/icons/gen"), m("app/desktop/window")),
			[]string{"build/icons/gen imports app/desktop/window; the build's tools stand apart from the app (run it as a program instead)"}},
	}
	list := func(g map[string]listedPackage) []listedPackage {
		var out []listedPackage
		for _, p := range g {
			out = append(out, p)
		}
		return out
	}
	if got := checkLayering(list(cleanGraph())); len(got) != 0 {
		t.Fatalf("the clean graph breaks rules:\n%s", strings.Join(got, "\n"))
	}
	for _, c := range cases {
		g := cleanGraph()
		c.change(g)
		got := checkLayering(list(g))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: problems found:\n%s\nwant:\n%s", c.rule, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}

// TestDesktopImportsRunOneWay checks the table itself: following the imports it allows never
// leads back to where it started, and every package it names is in it.
func TestDesktopImportsRunOneWay(t *testing.T) {
	state := map[string]int{} // 1: on the path, 2: done
	var visit func(p string, path []string)
	visit = func(p string, path []string) {
		switch state[p] {
		case 1:
			t.Errorf("desktopImports allows a cycle: %s", strings.Join(append(path, p), " -> "))
			return
		case 2:
			return
		}
		state[p] = 1
		for _, q := range desktopImports[p] {
			if _, ok := desktopImports[q]; !ok {
				t.Errorf("desktopImports lets %s import %s, which has no line of its own", p, q)
			}
			visit(q, append(path, p))
		}
		state[p] = 2
	}
	for p := range desktopImports {
		visit(p, nil)
	}
}
