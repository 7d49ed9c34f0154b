package main

import (
	"os"
	"strings"
	"testing"
)

// stream is a shortened govulncheck -format json run: a config, three OSV entries and
// findings at the three levels (a called function, an imported package, a required module).
const stream = `{"config":{"protocol_version":"v1.0.0","scanner_name":"govulncheck","scanner_version":"v1.9.0","db":"file:///db","go_version":"go1.26.8"}}
{"progress":{"message":"Scanning your code"}}
{"osv":{"id":"GO-2026-0001","summary":"Crash in net/http"}}
{"osv":{"id":"GO-2026-0002","summary":"Leak in example.com/lib"}}
{"osv":{"id":"GO-2026-0003","summary":"Bug in example.com/other"}}
{"finding":{"osv":"GO-2026-0001","fixed_version":"v1.26.10","trace":[{"module":"stdlib","version":"v1.26.8","package":"net/http","function":"Get","receiver":"*Client"},{"module":"example.com/app","package":"example.com/app","function":"main","position":{"filename":"main.go","line":12}}]}}
{"finding":{"osv":"GO-2026-0001","fixed_version":"v1.26.10","trace":[{"module":"stdlib","version":"v1.26.8","package":"net/http"}]}}
{"finding":{"osv":"GO-2026-0002","trace":[{"module":"example.com/lib","version":"v0.1.0","package":"example.com/lib"}]}}
{"finding":{"osv":"GO-2026-0003","fixed_version":"v2.0.1","trace":[{"module":"example.com/other","version":"v2.0.0"}]}}
`

func run(t *testing.T, accepted map[string]string) (string, bool) {
	t.Helper()
	rep, err := read(strings.NewReader(stream))
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	var out strings.Builder
	ok := rep.print(&out, accepted)
	return out.String(), ok
}

func TestCalledVulnerabilityFailsWithItsTrace(t *testing.T) {
	out, ok := run(t, nil)
	if ok {
		t.Fatalf("check passed with a called vulnerability; output:\n%s", out)
	}
	for _, want := range []string{
		"VULNERABLE GO-2026-0001: Crash in net/http",
		"stdlib@v1.26.8 calls net/http.Client.Get (fixed in v1.26.10), reached from example.com/app.main (main.go:12)",
		"1 called, 1 in imported packages but not called, 1 in required modules but not imported",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q; got:\n%s", want, out)
		}
	}
}

func TestAcceptedVulnerabilityPassesAndStaysVisible(t *testing.T) {
	out, ok := run(t, map[string]string{"GO-2026-0001": "fixed only in a newer toolchain"})
	if !ok {
		t.Fatalf("check failed although the only called vulnerability is accepted; output:\n%s", out)
	}
	if !strings.Contains(out, "accepted (fixed only in a newer toolchain) GO-2026-0001") {
		t.Errorf("accepted vulnerability not printed with its reason; got:\n%s", out)
	}
}

func TestStaleAcceptLineFails(t *testing.T) {
	out, ok := run(t, map[string]string{"GO-2026-0001": "reason", "GO-2026-0002": "only imported, never called"})
	if ok {
		t.Fatalf("check passed with an accept line for a vulnerability that is not called; output:\n%s", out)
	}
	if !strings.Contains(out, "STALE accept line GO-2026-0002") {
		t.Errorf("stale line not named; got:\n%s", out)
	}
}

func TestEmptyInputIsAnError(t *testing.T) {
	if _, err := read(strings.NewReader("")); err == nil {
		t.Fatal("read accepted empty input; a failed scan must not look like a clean one")
	}
}

func TestAcceptLineNeedsAReason(t *testing.T) {
	path := t.TempDir() + "/accept"
	if err := os.WriteFile(path, []byte("# comment\nGO-2026-0001\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readAccept(path); err == nil || !strings.Contains(err.Error(), "has no reason") {
		t.Fatalf("readAccept error = %v, want one saying the line has no reason", err)
	}
}
