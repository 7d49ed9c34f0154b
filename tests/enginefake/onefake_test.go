package enginefake

import (
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/tests/testkit"
)

// shared are the ports this package fakes: test code elsewhere uses these fakes.
var shared = []string{"Page", "Store", "LLM", "MemoryStore", "UsageRecorder"}

// notFakes are test types that implement a shared port without being a second fake of it,
// each with the reason.
var notFakes = map[string]string{
	// The chaos suite's page is a model of the page with the invariant checker built in: its
	// compose box, refusals and switch timing are what the chaos oracles check against.
	"tests/chaos.page": "a model of the page, not a fake",
	// The chaos suite's model answers from its own script and checks what it is asked.
	"tests/chaos.model": "a model with its own oracle, not a fake",
	// The browser chaos test watches the real page link on its way to the bridge.
	"tests/browser/chaostest.watchedPage": "wraps the real page.Link",
}

// portMethods reads the method signatures of every interface the engine declares (its ports;
// Event, which only the engine's own types implement, aside), with the engine's own types
// unqualified, keyed by port then method name.
func portMethods(t *testing.T, root string) map[string]map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(root, "app", "engine", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var decls []ast.Decl
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		decls = append(decls, f.Decls...)
	}
	ports := map[string]map[string]string{}
	for _, d := range decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			it, ok := ts.Type.(*ast.InterfaceType)
			if !ok || ts.Name.Name == "Event" {
				continue
			}
			ms := map[string]string{}
			for _, m := range it.Methods.List {
				if ft, ok := m.Type.(*ast.FuncType); ok && len(m.Names) == 1 {
					ms[m.Names[0].Name] = signature(fset, ft)
				}
			}
			ports[ts.Name.Name] = ms
		}
	}
	return ports
}

// signature prints a function type's parameter and result types without names, dropping the
// "engine." qualifier so a method written outside the engine compares with the port's.
func signature(fset *token.FileSet, ft *ast.FuncType) string {
	list := func(fl *ast.FieldList) string {
		if fl == nil {
			return ""
		}
		var parts []string
		for _, f := range fl.List {
			var b strings.Builder
			_ = printer.Fprint(&b, fset, f.Type)
			n := max(len(f.Names), 1)
			for range n {
				parts = append(parts, strings.ReplaceAll(b.String(), "engine.", ""))
			}
		}
		return strings.Join(parts, ",")
	}
	return "(" + list(ft.Params) + ")(" + list(ft.Results) + ")"
}

// TestOneFakePerPort fails when test code outside this package declares a method of one of
// the shared ports (with the port's signature): that is a second fake, which should be a
// field or method of the one here instead. The other ports' fakes are listed in the log.
// Product code (the adapters) is not looked at.
func TestOneFakePerPort(t *testing.T) {
	root := testkit.RepoRoot(t)
	ports := portMethods(t, root)
	for _, p := range shared {
		if len(ports[p]) == 0 {
			t.Fatalf("port %s not found in app/engine", p)
		}
	}
	// implementers maps a port to the test types ("dir.Type") that declare one of its methods.
	implementers := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if name := d.Name(); rel != "." && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || (!strings.HasSuffix(rel, "_test.go") && !strings.HasPrefix(rel, "tests/")) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 {
				continue
			}
			recv := fd.Recv.List[0].Type
			if st, ok := recv.(*ast.StarExpr); ok {
				recv = st.X
			}
			id, ok := recv.(*ast.Ident)
			if !ok {
				continue
			}
			sig := signature(fset, fd.Type)
			for port, ms := range ports {
				if want, ok := ms[fd.Name.Name]; ok && want == sig {
					who := dir + "." + id.Name
					if !slices.Contains(implementers[port], who) {
						implementers[port] = append(implementers[port], who)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for port, types := range implementers {
		sort.Strings(types)
		var fakes []string
		for _, who := range types {
			if _, ok := notFakes[who]; !ok {
				fakes = append(fakes, who)
			}
		}
		if slices.Contains(shared, port) {
			for _, who := range fakes {
				if !strings.HasPrefix(who, "tests/enginefake.") {
					t.Errorf("%s is a second fake of engine.%s; use tests/enginefake's (add a field there if it must behave differently)", who, port)
				}
			}
			continue
		}
		if len(fakes) > 1 {
			// Not shared yet: the fakes differ in behaviour the tests rely on (SecretStore's
			// in the store tests fails every call, the fault rig's lets a delete succeed).
			t.Logf("engine.%s has %d fakes in test code (%s)", port, len(fakes), strings.Join(fakes, ", "))
		}
	}
	// The check must see the shared fakes themselves, or it is reading nothing.
	for _, p := range shared {
		if !slices.ContainsFunc(implementers[p], func(who string) bool { return strings.HasPrefix(who, "tests/enginefake.") }) {
			t.Errorf("the scan found no tests/enginefake type implementing engine.%s; the check reads the wrong files", p)
		}
	}
	t.Logf("implementations in test code: %v", implementers)
}
