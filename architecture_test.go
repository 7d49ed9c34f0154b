package main

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The package map in ARCHITECTURE.md says, for each package of the module, what it imports
// inside the module. TestPackageMapMatchesGoList holds it to `go list`, so the map cannot
// drift from the code.
//
// The table's first column names a row's packages in backquotes: a module-relative path,
// `main.go` for the module's root package, or `dir/...` for dir and everything below it.
// Its last column names, in backquotes, what the row's packages import from outside the
// row, in the same notation; text outside backquotes is for people. A row whose last
// column is "anything" is not held to a list (test-only code).

// mapRow is one row of the package map.
type mapRow struct {
	packages []string // module-relative paths or dir/... patterns; "" is main.go's package
	imports  []string // nil when the row may import anything
	any      bool
	line     int
}

var backquoted = regexp.MustCompile("`([^`]+)`")

// quotedPaths returns the backquoted names of a cell, with `main.go` as "".
func quotedPaths(cell string) []string {
	var out []string
	for _, m := range backquoted.FindAllStringSubmatch(cell, -1) {
		p := strings.TrimSuffix(strings.TrimSpace(m[1]), "/")
		if p == "main.go" {
			p = ""
		}
		out = append(out, p)
	}
	return out
}

// parsePackageMap reads the table under the "## Package map" heading of an ARCHITECTURE.md.
func parsePackageMap(doc string) ([]mapRow, error) {
	lines := strings.Split(doc, "\n")
	start := slices.Index(lines, "## Package map")
	if start < 0 {
		return nil, fmt.Errorf(`no "## Package map" heading`)
	}
	var rows []mapRow
	inTable := false
	for i := start + 1; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "|") {
			if inTable || strings.HasPrefix(l, "#") {
				break
			}
			continue
		}
		inTable = true
		cells := strings.Split(strings.Trim(l, "|"), "|")
		if len(cells) < 3 || strings.Trim(cells[0], " -") == "" || strings.TrimSpace(cells[0]) == "package" {
			continue // header and rule lines
		}
		last := strings.TrimSpace(cells[len(cells)-1])
		r := mapRow{packages: quotedPaths(cells[0]), line: i + 1}
		if last == "anything" {
			r.any = true
		} else {
			r.imports = quotedPaths(last)
		}
		if len(r.packages) == 0 {
			return nil, fmt.Errorf("line %d: the first column names no package in backquotes", i+1)
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf(`no table under "## Package map"`)
	}
	return rows, nil
}

// covers reports whether a name of the map (a path or dir/...) stands for the package p.
func covers(name, p string) bool {
	if dir, ok := strings.CutSuffix(name, "/..."); ok {
		return under(p, dir)
	}
	return name == p
}

// coveredBy reports whether any of names stands for p.
func coveredBy(names []string, p string) bool {
	return slices.ContainsFunc(names, func(n string) bool { return covers(n, p) })
}

// display writes a map name as the table does.
func display(p string) string {
	if p == "" {
		return "main.go"
	}
	return p
}

// checkPackageMap compares the rows with the module's packages (module-relative paths) and
// what each imports inside the module (the union over every build). It returns one
// sentence per difference.
func checkPackageMap(rows []mapRow, packages []string, imports map[string][]string) []string {
	var problems []string
	for _, p := range packages {
		var in []int
		for _, r := range rows {
			if coveredBy(r.packages, p) {
				in = append(in, r.line)
			}
		}
		switch len(in) {
		case 0:
			problems = append(problems, fmt.Sprintf("package %s is in no row of the map: add a row for it", display(p)))
		case 1:
		default:
			problems = append(problems, fmt.Sprintf("package %s is in more than one row (lines %v): keep it in one", display(p), in))
		}
	}
	for _, r := range rows {
		var mine []string
		for _, p := range packages {
			if coveredBy(r.packages, p) {
				mine = append(mine, p)
			}
		}
		for _, n := range r.packages {
			if !slices.ContainsFunc(mine, func(p string) bool { return covers(n, p) }) {
				problems = append(problems, fmt.Sprintf("line %d: `%s` is no package of the module (go list)", r.line, display(n)))
			}
		}
		if r.any {
			continue
		}
		// actual: each import from outside the row, and who makes it.
		actual := map[string][]string{}
		for _, p := range mine {
			for _, imp := range imports[p] {
				if !coveredBy(r.packages, imp) {
					actual[imp] = append(actual[imp], display(p))
				}
			}
		}
		var listed, missing []string
		for _, n := range r.imports {
			used := false
			for imp := range actual {
				used = used || covers(n, imp)
			}
			if !used {
				listed = append(listed, "`"+display(n)+"`")
			}
		}
		for imp, who := range actual {
			if !coveredBy(r.imports, imp) {
				missing = append(missing, fmt.Sprintf("`%s` (imported by %s)", display(imp), strings.Join(slices.Compact(who), ", ")))
			}
		}
		sort.Strings(missing)
		names := strings.Join(quote(r.packages), ", ")
		if len(listed) > 0 {
			problems = append(problems, fmt.Sprintf("line %d, %s: the map lists %s, which go list shows nothing in the row importing: remove it", r.line, names, strings.Join(listed, ", ")))
		}
		if len(missing) > 0 {
			problems = append(problems, fmt.Sprintf("line %d, %s: the map leaves out %s: add it", r.line, names, strings.Join(missing, ", ")))
		}
	}
	return problems
}

func quote(names []string) []string {
	var out []string
	for _, n := range names {
		out = append(out, "`"+display(n)+"`")
	}
	return out
}

// modulePackages lists every package of the module (module-relative) with `go list ./...`.
func modulePackages(t *testing.T) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-tags", "webkit2_41", "./...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	var pkgs []string
	for _, l := range strings.Fields(string(out)) {
		if r, ok := rel(l); ok {
			pkgs = append(pkgs, r)
		}
	}
	return pkgs
}

// TestPackageMapMatchesGoList holds ARCHITECTURE.md's package map to `go list`: every
// package of the module is in one row, and each row lists exactly what its packages import
// from the rest of the module on Linux, Windows and macOS, with and without testcontrol.
func TestPackageMapMatchesGoList(t *testing.T) {
	doc, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := parsePackageMap(string(doc))
	if err != nil {
		t.Fatalf("ARCHITECTURE.md: %v", err)
	}
	imports := map[string][]string{}
	for _, b := range builds {
		for _, p := range goList(t, b.goos, b.tags, layeredDirs...) {
			from, ok := rel(p.ImportPath)
			if !ok {
				continue
			}
			for _, imp := range p.Imports {
				if to, ok := rel(imp); ok && !slices.Contains(imports[from], to) {
					imports[from] = append(imports[from], to)
				}
			}
		}
	}
	for _, p := range checkPackageMap(rows, modulePackages(t), imports) {
		t.Errorf("ARCHITECTURE.md's package map: %s", p)
	}
}

// TestPackageMapCheckCatchesDrift feeds the check a small map and module with one drift of
// each kind.
func TestPackageMapCheckCatchesDrift(t *testing.T) {
	doc := "# A\n\n## Package map\n\n| package | role | imports (inside this module) |\n|---|---|---|\n" +
		"| `main.go` | command line | `app/run` |\n" + // line 7: right
		"| `app/engine` | domain | standard library only |\n" + // line 8: right
		"| `app/demo/sim` | simulator | `app/engine` |\n" + // line 9: lists an import that does not exist
		"| `app/run` | wiring | `app/...` |\n" + // line 10: leaves out inject
		"| `app/gone` | removed | — |\n" + // line 11: no such package
		"| `app/desktop/...` | shell | `app/engine` |\n" + // line 12: pattern, right
		"| `app/desktop/window` | window | `app/engine` |\n" + // line 13: a second row for one package
		"| `tests/...` | tests | anything |\n" + // line 14: not held to a list
		"\nAfter the table.\n"
	rows, err := parsePackageMap(doc)
	if err != nil {
		t.Fatal(err)
	}
	packages := []string{"", "app/engine", "app/demo/sim", "app/run", "app/desktop/window", "app/desktop/menus", "inject", "build/icons", "tests/fakellm"}
	imports := map[string][]string{
		"":                   {"app/run"},
		"app/run":            {"app/engine", "app/demo/sim", "inject"},
		"app/desktop/window": {"app/engine", "app/desktop/menus"},
		"app/desktop/menus":  {"app/engine"},
		"tests/fakellm":      {"app/engine", "app/run"},
	}
	got := checkPackageMap(rows, packages, imports)
	want := []string{
		"package app/desktop/window is in more than one row (lines [12 13]): keep it in one",
		"package inject is in no row of the map: add a row for it",
		"package build/icons is in no row of the map: add a row for it",
		"line 9, `app/demo/sim`: the map lists `app/engine`, which go list shows nothing in the row importing: remove it",
		"line 10, `app/run`: the map leaves out `inject` (imported by app/run): add it",
		"line 11: `app/gone` is no package of the module (go list)",
		// Inside a row of several packages their imports of each other are not listed (line
		// 12); alone in a row, the window's import of the menus is.
		"line 13, `app/desktop/window`: the map leaves out `app/desktop/menus` (imported by app/desktop/window): add it",
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
