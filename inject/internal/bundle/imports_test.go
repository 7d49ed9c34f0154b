package bundle

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
)

// importRules lists, for every module in inject/src, the modules it may import (paths as
// seen from inject/src), in the spirit of a DEPS file. The layers, from the bottom: util
// holds pure helpers and may be imported anywhere; selectors is the page's DOM shape in
// one table and imports nothing; parse reads the page and compose types into the compose
// box, and neither knows the other. The observer is split by concern, each part with its
// own state, and the parts import one way only: pagestate (what kind of page) imports no
// other part; pane (which pane and rows the person sees, and whether the view is at the
// live end) only reads the page; labels (what rows say, rows waiting for a label) and rows
// (novelty) read rows through parse, rows through pane too; conversation (the foreground
// conversation and its settling) asks pagestate whether a pane is there and pane which one
// it is; sidebar reads the visible list through parse and pane; composewatch
// reads compose's state; selfwatch (the self-test kept current) runs selectors' self-test.
// No part imports another's state: observe creates them and hands
// each the others it calls, so the wiring is in one place. commands carries out Go's
// validated commands through compose; transport only sends events out; ui only draws its
// shadow root (with ui.css) and reports clicks through the emit function it is given, so
// it never reads conversation content. main wires them together and is the only module
// that sees them all. The generated schema is read where commands are checked (commands),
// where events are capped (transport) and at start (main). A new module needs a line
// here, and a new import a reason to be allowed.
var importRules = map[string][]string{
	"util.js":         {},
	"selectors.js":    {},
	"parse.js":        {"selectors.js"},
	"compose.js":      {"selectors.js"},
	"pagestate.js":    {"selectors.js"},
	"pane.js":         {"selectors.js"},
	"labels.js":       {"parse.js"},
	"rows.js":         {"selectors.js", "parse.js", "pane.js"},
	"conversation.js": {"selectors.js", "parse.js", "pagestate.js", "pane.js"},
	"sidebar.js":      {"selectors.js", "parse.js", "pane.js"},
	"composewatch.js": {"selectors.js", "compose.js"},
	"observe.js": {"selectors.js", "pagestate.js", "labels.js", "rows.js", "conversation.js",
		"sidebar.js", "composewatch.js"},
	"commands.js":  {"selectors.js", "compose.js", "../gen/schema.gen.js"},
	"transport.js": {"../gen/schema.gen.js"},
	"ui.js":        {"ui.css"},
	"selfwatch.js": {"selectors.js"},
	"main.js": {"transport.js", "observe.js", "ui.js", "commands.js", "selectors.js", "selfwatch.js",
		"../gen/schema.gen.js"},
}

// importableAnywhere may be imported by every module but itself.
const importableAnywhere = "util.js"

var (
	// importFrom matches `import ... from 'x'` and `export ... from 'x'` starting a line;
	// the part before `from` may span lines (a long import list) but holds no semicolon.
	importFrom = regexp.MustCompile(`(?m)^\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]`)
	// importBare matches a side-effect import, `import 'x'`.
	importBare = regexp.MustCompile(`(?m)^\s*import\s*['"]([^'"]+)['"]`)
	// importCall matches a dynamic import(), which the bundled IIFE must not contain.
	importCall = regexp.MustCompile(`\bimport\s*\(`)
)

// parseImports returns the module paths a source file imports, as written.
func parseImports(src string) (paths []string, dynamic bool) {
	for _, re := range []*regexp.Regexp{importFrom, importBare} {
		for _, m := range re.FindAllStringSubmatch(src, -1) {
			paths = append(paths, m[1])
		}
	}
	sort.Strings(paths)
	return paths, importCall.MatchString(src)
}

// checkImports applies importRules to the given files (name -> source) and returns one
// message per broken rule, naming the file and the forbidden import.
func checkImports(rules map[string][]string, files map[string]string) []string {
	var problems []string
	for _, name := range sortedNames(files) {
		allowed, known := rules[name]
		if !known {
			problems = append(problems, "src/"+name+" has no entry in importRules; add one listing what it may import")
			continue
		}
		imports, dynamic := parseImports(files[name])
		if dynamic {
			problems = append(problems, "src/"+name+" uses a dynamic import(); the bridge is one bundled script, import statically")
		}
		for _, spec := range imports {
			target := path.Clean(strings.TrimPrefix(spec, "./"))
			if target == importableAnywhere && name != importableAnywhere || slices.Contains(allowed, target) {
				continue
			}
			may := slices.Clone(allowed)
			if name != importableAnywhere {
				may = append(may, importableAnywhere)
			}
			if len(may) == 0 {
				may = []string{"nothing"}
			}
			problems = append(problems, "src/"+name+" imports "+spec+", which importRules forbid (it may import "+strings.Join(may, ", ")+")")
		}
	}
	for _, name := range sortedNames(rules) {
		if _, ok := files[name]; !ok {
			problems = append(problems, "importRules has an entry for src/"+name+", which does not exist; remove it")
		}
	}
	return problems
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// readSrc reads every inject/src/*.js file.
func readSrc(t *testing.T) map[string]string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("..", "..", "src", "*.js"))
	if err != nil || len(names) == 0 {
		t.Fatalf("list inject/src: %v (%d files)", err, len(names))
	}
	files := map[string]string{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(n)] = string(b)
	}
	return files
}

func TestSrcModulesImportOnlyWhatTheRulesAllow(t *testing.T) {
	for _, p := range checkImports(importRules, readSrc(t)) {
		t.Error(p)
	}
}

// TestImportParserSeesWhatEsbuildSees guards the line parser: for every module the bundle
// reaches, the imports it found must be exactly those esbuild resolved.
func TestImportParserSeesWhatEsbuildSees(t *testing.T) {
	injectDir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	res := api.Build(api.BuildOptions{
		EntryPoints:   []string{filepath.Join(injectDir, "src", "main.js")},
		Bundle:        true,
		Write:         false,
		Metafile:      true,
		Loader:        map[string]api.Loader{".css": api.LoaderText},
		LogLevel:      api.LogLevelSilent,
		AbsWorkingDir: injectDir,
	})
	if len(res.Errors) > 0 {
		t.Fatalf("esbuild: %v", res.Errors[0].Text)
	}
	var meta struct {
		Inputs map[string]struct {
			Imports []struct {
				Original string `json:"original"`
			} `json:"imports"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(res.Metafile), &meta); err != nil {
		t.Fatalf("decode metafile: %v", err)
	}
	files := readSrc(t)
	seen := 0
	for input, info := range meta.Inputs {
		name, ok := strings.CutPrefix(input, "src/")
		if !ok || !strings.HasSuffix(name, ".js") {
			continue
		}
		seen++
		var want []string
		for _, imp := range info.Imports {
			want = append(want, imp.Original)
		}
		sort.Strings(want)
		got, _ := parseImports(files[name])
		if !slices.Equal(got, want) {
			t.Errorf("src/%s: the line parser found imports %q, esbuild resolved %q", name, got, want)
		}
	}
	if seen != len(files) {
		t.Errorf("esbuild reached %d of the %d modules in inject/src; one is not imported by anything", seen, len(files))
	}
}

func TestImportRulesNameTheForbiddenImport(t *testing.T) {
	rules := map[string][]string{
		"util.js":  {},
		"parse.js": {"selectors.js"},
		"ui.js":    {"ui.css"},
		"main.js":  {"ui.js", "parse.js"},
		"lazy.js":  {},
		"reexp.js": {},
		"ghost.js": {},
	}
	files := map[string]string{
		"util.js": "import { S } from './selectors.js';\n",
		"parse.js": "// import { x } from './observe.js' in a comment is not an import\n" +
			"import { S } from './selectors.js';\nimport { clean } from './util.js';\n",
		"ui.js":    "import CSS from './ui.css'\nimport {\n  parseCore,\n  isReady,\n} from \"./parse.js\";\n",
		"main.js":  "import { createUI } from './ui.js';\nimport { parseCore } from './parse.js';\nimport '../gen/schema.gen.js';\n",
		"lazy.js":  "const m = await import('./parse.js');\n",
		"reexp.js": "export { clean } from './util.js';\nexport * from './parse.js';\n",
		"extra.js": "export const x = 1;\n",
	}
	got := checkImports(rules, files)
	want := []string{
		"src/extra.js has no entry in importRules; add one listing what it may import",
		"src/lazy.js uses a dynamic import(); the bridge is one bundled script, import statically",
		"src/main.js imports ../gen/schema.gen.js, which importRules forbid (it may import ui.js, parse.js, util.js)",
		"src/reexp.js imports ./parse.js, which importRules forbid (it may import util.js)",
		"src/ui.js imports ./parse.js, which importRules forbid (it may import ui.css, util.js)",
		"src/util.js imports ./selectors.js, which importRules forbid (it may import nothing)",
		"importRules has an entry for src/ghost.js, which does not exist; remove it",
	}
	if !slices.Equal(got, want) {
		t.Errorf("checkImports:\n got  %q\n want %q", got, want)
	}
}
