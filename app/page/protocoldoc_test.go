package page

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// cellSplit splits a table row on pipes that are not escaped as \|.
var cellSplit = regexp.MustCompile(`\s\|\s`)

var docHeading = regexp.MustCompile("^### (event|command|type) `([a-zA-Z_]+)`$")

// readProtocolDoc parses inject/PROTOCOL.md into its tables, keyed like docTables.
func readProtocolDoc(t *testing.T) map[string][]docField {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "inject", "PROTOCOL.md"))
	if err != nil {
		t.Fatalf("open PROTOCOL.md: %v", err)
	}
	defer f.Close()
	tables := map[string][]docField{}
	key := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if m := docHeading.FindStringSubmatch(line); m != nil {
			key = m[1] + " " + m[2]
			if _, dup := tables[key]; dup {
				t.Errorf("PROTOCOL.md documents %s twice", key)
			}
			tables[key] = []docField{}
			continue
		}
		if strings.HasPrefix(line, "## ") {
			key = ""
			continue
		}
		if key == "" || !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "| Field") || strings.HasPrefix(line, "|---") {
			continue
		}
		cells := cellSplit.Split(strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|"), -1)
		if len(cells) != 3 {
			t.Errorf("PROTOCOL.md %s: row %q has %d cells, want Field | Type | Limit", key, line, len(cells))
			continue
		}
		tables[key] = append(tables[key], docField{
			Name: strings.TrimSpace(cells[0]), Type: strings.TrimSpace(cells[1]), Limit: strings.TrimSpace(cells[2]),
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return tables
}

func TestProtocolDocMatchesGoTypes(t *testing.T) {
	doc := readProtocolDoc(t)
	code := docTables()
	var keys []string
	for k := range code {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		d, ok := doc[k]
		if !ok {
			t.Errorf("%s exists in app/page but PROTOCOL.md has no \"### %s\" section", k, strings.Replace(k, " ", " `", 1)+"`")
			continue
		}
		want := map[string]docField{}
		for _, f := range code[k] {
			want[f.Name] = f
		}
		got := map[string]docField{}
		for _, f := range d {
			got[f.Name] = f
			w, ok := want[f.Name]
			if !ok {
				t.Errorf("PROTOCOL.md %s lists field %q, which the Go type does not have", k, f.Name)
				continue
			}
			if w.Type != f.Type || w.Limit != f.Limit {
				t.Errorf("PROTOCOL.md %s field %q: doc says %s / %s, Go says %s / %s", k, f.Name, f.Type, f.Limit, w.Type, w.Limit)
			}
		}
		for name := range want {
			if _, ok := got[name]; !ok {
				t.Errorf("Go %s has field %q that PROTOCOL.md does not list", k, name)
			}
		}
	}
	for k := range doc {
		if _, ok := code[k]; !ok {
			t.Errorf("PROTOCOL.md documents %s, which app/page does not define", k)
		}
	}
}
