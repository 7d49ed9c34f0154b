// Command vulncheck reads govulncheck's JSON output (-format json) on standard input and
// decides whether `make check` passes. It fails on every vulnerability that the code can
// reach (a finding whose trace starts at a function, the same level at which govulncheck's
// own text mode exits with status 3), unless the vulnerability is listed in the accept
// file with a reason. It also fails on an accept line that no longer matches a finding, so
// the list only ever holds what is still true. Findings in imported packages or required
// modules that the code does not call are counted and printed, but do not fail.
//
// build/vulncheck.sh runs it; see there for the offline database.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// message is one value of govulncheck's JSON stream; only the fields read here are named.
type message struct {
	Config *struct {
		ScannerVersion string `json:"scanner_version"`
		DB             string `json:"db"`
		GoVersion      string `json:"go_version"`
	} `json:"config"`
	OSV *struct {
		ID      string `json:"id"`
		Summary string `json:"summary"`
	} `json:"osv"`
	Finding *finding `json:"finding"`
}

type finding struct {
	OSV          string  `json:"osv"`
	FixedVersion string  `json:"fixed_version"`
	Trace        []frame `json:"trace"`
}

type frame struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Package  string `json:"package"`
	Function string `json:"function"`
	Receiver string `json:"receiver"`
	Position *struct {
		Filename string `json:"filename"`
		Line     int    `json:"line"`
	} `json:"position"`
}

func main() {
	acceptPath := flag.String("accept", "", "file of accepted vulnerability IDs, one per line with a reason")
	flag.Parse()
	accepted, err := readAccept(*acceptPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "vulncheck:", err)
		os.Exit(2)
	}
	rep, err := read(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "vulncheck:", err)
		os.Exit(2)
	}
	if !rep.print(os.Stdout, accepted) {
		os.Exit(1)
	}
}

// readAccept parses the accept file: blank lines and lines starting with # are ignored;
// every other line is an ID, white space and a reason, which must not be empty.
func readAccept(path string) (map[string]string, error) {
	out := map[string]string{}
	if path == "" {
		return out, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read accept file: %w", err)
	}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, reason, _ := strings.Cut(line, " ")
		if strings.TrimSpace(reason) == "" {
			return nil, fmt.Errorf("%s:%d: %s has no reason; write why it is accepted after the ID", path, i+1, id)
		}
		out[id] = strings.TrimSpace(reason)
	}
	return out, nil
}

type report struct {
	scanner, db, goVersion string
	summaries              map[string]string
	called                 map[string]finding // first symbol-level finding per ID
	imported, required     map[string]bool    // IDs found only at package or module level
}

func read(r io.Reader) (*report, error) {
	rep := &report{
		summaries: map[string]string{},
		called:    map[string]finding{},
		imported:  map[string]bool{},
		required:  map[string]bool{},
	}
	sawConfig := false
	dec := json.NewDecoder(bufio.NewReader(r))
	for {
		var m message
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("decode govulncheck output: %w", err)
		}
		switch {
		case m.Config != nil:
			sawConfig = true
			rep.scanner, rep.db, rep.goVersion = m.Config.ScannerVersion, m.Config.DB, m.Config.GoVersion
		case m.OSV != nil:
			rep.summaries[m.OSV.ID] = m.OSV.Summary
		case m.Finding != nil && len(m.Finding.Trace) > 0:
			f, top := *m.Finding, m.Finding.Trace[0]
			switch {
			case top.Function != "":
				if _, seen := rep.called[f.OSV]; !seen {
					rep.called[f.OSV] = f
				}
			case top.Package != "":
				rep.imported[f.OSV] = true
			default:
				rep.required[f.OSV] = true
			}
		}
	}
	if !sawConfig {
		return nil, errors.New("no govulncheck output on standard input (did the scan fail?)")
	}
	return rep, nil
}

// print writes the verdict and reports whether the check passes.
func (rep *report) print(w io.Writer, accepted map[string]string) bool {
	fmt.Fprintf(w, "govulncheck %s, %s, database %s\n", rep.scanner, rep.goVersion, rep.db)
	ok := true
	for _, id := range sortedKeys(rep.called) {
		f := rep.called[id]
		verdict := "VULNERABLE"
		if reason, yes := accepted[id]; yes {
			verdict = "accepted (" + reason + ")"
		} else {
			ok = false
		}
		fmt.Fprintf(w, "%s %s: %s\n", verdict, id, rep.summaries[id])
		top, last := f.Trace[0], f.Trace[len(f.Trace)-1]
		fixed := f.FixedVersion
		if fixed == "" {
			fixed = "no fix yet"
		}
		fmt.Fprintf(w, "    %s@%s calls %s (fixed in %s), reached from %s\n",
			top.Module, top.Version, symbol(top), fixed, where(last))
	}
	for _, id := range sortedKeys(accepted) {
		if _, found := rep.called[id]; !found {
			ok = false
			fmt.Fprintf(w, "STALE accept line %s: the scan no longer reports it as called; remove it from the accept file\n", id)
		}
	}
	for id := range rep.called {
		delete(rep.imported, id)
		delete(rep.required, id)
	}
	for id := range rep.imported {
		delete(rep.required, id)
	}
	fmt.Fprintf(w, "%d called, %d in imported packages but not called, %d in required modules but not imported\n",
		len(rep.called), len(rep.imported), len(rep.required))
	if !ok {
		fmt.Fprintln(w, "vulncheck failed: upgrade the module or the Go toolchain named above; accept a vulnerability only with a reason in build/vulncheck.accept")
	}
	return ok
}

func symbol(f frame) string {
	s := f.Package + "." + f.Function
	if f.Receiver != "" {
		s = f.Package + "." + strings.TrimPrefix(f.Receiver, "*") + "." + f.Function
	}
	return s
}

func where(f frame) string {
	if f.Position == nil || f.Position.Filename == "" {
		return symbol(f)
	}
	return fmt.Sprintf("%s (%s:%d)", symbol(f), f.Position.Filename, f.Position.Line)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
