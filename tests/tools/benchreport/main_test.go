package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const sample = `goos: linux
goarch: amd64
pkg: github.com/clanker-desktop/clanker/tests/imagebench
cpu: Some CPU
BenchmarkOptimize12MP/scene-2        	       3	 400000000 ns/op	 36.1 PSNR-Y-dB	 5000 B/op	      10 allocs/op
BenchmarkOptimize12MP/scene-2        	       3	 200000000 ns/op	 34.2 PSNR-Y-dB	 7000 B/op	      10 allocs/op
BenchmarkOptimize12MP/scene-2        	       3	 300000000 ns/op	 34.4 PSNR-Y-dB	 6000 B/op	      10 allocs/op
BenchmarkOptimize12MPBaseline/scene-2   	       2	 600000000 ns/op	 9000 B/op	      12 allocs/op
BenchmarkOptimize12MP/scene-canvas-2   	       2	 150000000 ns/op
BenchmarkOptimize12MPHeap-2   	       1	 9000000000 ns/op	 30.5 heap-held-MiB	 20 heap-inuse-MiB
some log line that is not a result
PASS
pkg: github.com/clanker-desktop/clanker/app/llm
BenchmarkPrompt50-2   	  1000	      1500 ns/op	      0.875 stable-prefix-share	 12000 prompt-bytes
ok  	github.com/clanker-desktop/clanker/app/llm	1.0s
`

func TestParseGroupsRunsByBenchmarkAndUnit(t *testing.T) {
	res := Parse(strings.NewReader(sample))
	if len(res) != 5 {
		t.Fatalf("got %d results, want 5", len(res))
	}
	opt := res[0]
	if opt.Name != "BenchmarkOptimize12MP/scene" || opt.Pkg != "github.com/clanker-desktop/clanker/tests/imagebench" {
		t.Fatalf("first result = %s in %s", opt.Name, opt.Pkg)
	}
	if got := opt.Runs["ns/op"]; len(got) != 3 {
		t.Fatalf("ns/op runs = %v, want 3 values", got)
	}
	if m := Median(opt.Runs["ns/op"]); m != 300000000 {
		t.Fatalf("median ns/op = %v, want 3e8", m)
	}
	if got := res[4].Runs["stable-prefix-share"]; len(got) != 1 || got[0] != 0.875 {
		t.Fatalf("custom metric = %v, want [0.875]", got)
	}
}

func TestMedianOfEvenCountAveragesTheMiddlePair(t *testing.T) {
	if m := Median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Fatalf("median = %v, want 2.5", m)
	}
}

func TestRenderShowsCommandMachineMediansAndBaselineRatio(t *testing.T) {
	out := Render(Parse(strings.NewReader(sample)), "Test CPU, 2 cores", "make bench", time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC))
	for _, want := range []string{
		"Command: `make bench`",
		"Machine: Test CPU, 2 cores",
		"| Optimize12MP/scene | 3 | 300.00 ms/op |",
		"0.50x the time of Optimize12MPBaseline/scene",
		"**target <= 0.5x: met**",
		"2.00x the time of Optimize12MP/scene-canvas",
		"**target 34.40 PSNR-Y-dB >= 34.5: NOT met**",
		"**target 30.5 heap-held-MiB <= 64: met**",
		"## app/llm",
		"0.875 stable-prefix-share",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestDistSectionListsArtifactsWithSizesAndPeers(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "clanker_1.0.0_amd64.deb"), make([]byte, 2_500_000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Clanker-1.0.0-windows-amd64-setup.exe"), make([]byte, 10_000_001), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "clanker-1.0.0-windows-amd64.exe"), make([]byte, 40_000_000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "clanker-1.0.0-1.x86_64.rpm"), make([]byte, 9_900_000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "clanker-1.0.0-1-x86_64.pkg.tar.zst"), make([]byte, 11_000_000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "manifests", "scoop"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	arts, err := Artifacts(dir)
	if err != nil {
		t.Fatal(err)
	}
	sec := DistSection(dir, arts)
	for _, want := range []string{"| clanker_1.0.0_amd64.deb | 2.50 MB (2500000 bytes) **target <= 10 MB: met** |",
		"| Clanker-1.0.0-windows-amd64-setup.exe | 10.00 MB (10000001 bytes) **target <= 10 MB: NOT met** |",
		"| clanker-1.0.0-windows-amd64.exe | 40.00 MB (40000000 bytes) |", "Tauri wrapper about 8 MB", "120 MB",
		"| clanker-1.0.0-1.x86_64.rpm | 9.90 MB (9900000 bytes) **target <= 10 MB: met** |",
		"| clanker-1.0.0-1-x86_64.pkg.tar.zst | 11.00 MB (11000000 bytes) **target <= 10 MB: NOT met** |"} {
		if !strings.Contains(sec, want) {
			t.Errorf("section lacks %q:\n%s", want, sec)
		}
	}
	if strings.Contains(sec, "| manifests |") {
		t.Errorf("the manifests folder is listed as an artifact:\n%s", sec)
	}
	if strings.Contains(sec, "SHA256SUMS |") {
		t.Errorf("the checksum file is listed as an artifact:\n%s", sec)
	}
	if _, err := Artifacts(t.TempDir()); err == nil {
		t.Error("an empty folder gave no error; it should say to run make dist")
	}
}

const appSample = `pkg: github.com/clanker-desktop/clanker/tests/e2e
BenchmarkAppStartToBridgeReady-2   	1	 9000000000 ns/op	 1200 ms-to-page-usable	 1100 ms-to-page-loaded
BenchmarkAppMemory-2   	1	 9000000000 ns/op	 240 MiB-pss-total-idle	 260 MiB-pss-total-after-chat	 3.5 growth-same-page-%	 80 MiB-pss-settings-extra	 0 MiB-pss-settings-after-close
`

func TestSummaryJudgesEveryTargetAndSaysWhatWasNotMeasured(t *testing.T) {
	res := Parse(strings.NewReader(sample + appSample))
	arts := []Artifact{{"Clanker-1-windows-amd64-setup.exe", 9_900_000}, {"clanker_1_amd64.deb", 9_000_000}, {"clanker-1-1.x86_64.rpm", 9_500_000},
		{"clanker-1-1-x86_64.pkg.tar.zst", 8_700_000}, {"clanker-1.tar.gz", 12_000_000}}
	out := insertSummary(Render(res, "m", "make bench", time.Date(2026, 11, 25, 1, 0, 0, 0, time.UTC)), Summary(res, arts, "webkit2_41"))
	if i, j := strings.Index(out, "## Targets (issues 17 and 32)"), strings.Index(out, "## tests/imagebench"); i < 0 || j < 0 || i > j {
		t.Fatalf("the summary is not above the package sections:\n%s", out)
	}
	for _, want := range []string{
		"| 17.1 | prompt cache: reuse of consecutive requests, history 50, a request per message | not in this run | `go test -tags webkit2_41 -run '^$' -bench '^BenchmarkPromptCacheReplay$/^active$/^history=50$' ./app/llm` | not measured |",
		"| 32.1 | prompt cache, Available (a request per mention, 11-18 messages apart), history 20: reuse under OpenAI's rule (1,024 tokens, then 128-token steps) | not in this run |",
		"0.50x the time of Optimize12MPBaseline/scene (target <= 0.5x)",
		"34.40 PSNR-Y-dB (target >= 34.5)",
		"`go test -tags webkit2_41 -run '^$' -bench '^BenchmarkOptimize12MP$/^scene$' ./tests/imagebench` | **NOT met** |",
		"1200 ms-to-page-usable (target <= 1500); 1100 ms-to-page-loaded",
		"260 MiB-pss-total-after-chat (target <= 250)",
		"3.5 growth-same-page-% (target <= 5)",
		"80 MiB-pss-settings-extra (target <= 60); 0 MiB-pss-settings-after-close | `go test -tags webkit2_41 -run '^$' -bench '^BenchmarkAppMemory$' ./tests/e2e` | **met: closed when not shown",
		"| 17.5 | installer",
		"Clanker-1-windows-amd64-setup.exe 9.90 MB; clanker_1_amd64.deb 9.00 MB; clanker-1-1.x86_64.rpm 9.50 MB; clanker-1-1-x86_64.pkg.tar.zst 8.70 MB | `make dist` | **met** |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "tar.gz 12") {
		t.Error("the tarball is judged as an installer")
	}
	if s := Summary(res, nil, "webkit2_41"); !strings.Contains(s, "no release artifacts in this run | `make dist` | not measured |") {
		t.Errorf("without artifacts the installer row should say not measured:\n%s", s)
	}
}

const promptSample = `pkg: github.com/clanker-desktop/clanker/app/llm
BenchmarkPromptCacheReplay/active/history=20-2   	1	 900000000 ns/op	 95.4 reuse-%	 94.5 cached-%	 0.86 fresh-%	 0.792 x-upstream-tokens	 1910 tokens/req	 2411 upstream-tokens/req	 20 rebase-min-gap	 15 rebases
BenchmarkPromptCacheReplay/available/history=50-2   	1	 90000000 ns/op	 89.5 reuse-%	 84.1 cached-%	 0.86 x-upstream-tokens	 12 rebase-min-gap
`

// Issue 32's prompt rows judge each replay case on its own bounds, beside the comparisons.
func TestSummaryJudgesThePromptCacheReplayCases(t *testing.T) {
	res := Parse(strings.NewReader(promptSample))
	out := Summary(res, nil, "webkit2_41")
	for _, want := range []string{
		"| 32.1 | prompt cache, Active (a request per message), history 20: reuse under OpenAI's rule (1,024 tokens, then 128-token steps) | 95.4 reuse-% (target >= 90); 94.5 cached-%; 0.86 fresh-% | `go test -tags webkit2_41 -run '^$' -bench '^BenchmarkPromptCacheReplay$/^active$/^history=20$' ./app/llm` | **met** |",
		"0.792 x-upstream-tokens (target <= 0.85); 1910 tokens/req; 2411 upstream-tokens/req",
		"20 rebase-min-gap (target >= 20); 15 rebases",
		"89.5 reuse-% (target >= 90); 84.1 cached-%",
		"0.86 x-upstream-tokens (target <= 0.85)",
		"12 rebase-min-gap (target >= 50)",
		"| 32.1 | prompt cache, Active (a request per message), history 50: reuse under OpenAI's rule (1,024 tokens, then 128-token steps) | not in this run |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "| **NOT met** |"); n != 3 {
		t.Errorf("want the three missed Available history-50 targets judged NOT met, got %d:\n%s", n, out)
	}
}

func TestParseJoinsFiguresALogLinePushedOntoTheNextLine(t *testing.T) {
	out := "pkg: example.com/e2e\n" +
		"BenchmarkStart-2   \t       1\t5000 ns/op\t 900 ms-to-usable\n" +
		"BenchmarkStart-2   \t2026/11/25 18:47:40 INFO simulator listening seed=7\n" +
		"       1\t6000 ns/op\t 1100 ms-to-usable\n" +
		"BenchmarkStart-2   \t2026/11/25 18:47:49 INFO simulator listening seed=7\n" +
		"       1\t7000 ns/op\t 1000 ms-to-usable\n"
	res := Parse(strings.NewReader(out))
	if len(res) != 1 || res[0].Name != "BenchmarkStart" {
		t.Fatalf("got %d results: %+v", len(res), res)
	}
	if got := res[0].Runs["ms-to-usable"]; len(got) != 3 || Median(got) != 1000 {
		t.Fatalf("ms-to-usable runs = %v, want the three runs with median 1000", got)
	}
}

const imageSample = `pkg: github.com/clanker-desktop/clanker/tests/imagebench
BenchmarkOptimize12MP/scene-444-2   	5	 80000000 ns/op	 37.5 PSNR-Y-dB	 35.1 PSNR-RGB-dB
BenchmarkOptimize2MP/scene-1600x1200-2   	5	 20000000 ns/op	 39.9 PSNR-Y-dB	 37.0 PSNR-RGB-dB
BenchmarkOptimize12MP/scene-444-canvas-2   	5	 100000000 ns/op	 37.0 PSNR-Y-dB	 34.9 PSNR-RGB-dB
BenchmarkOptimize2MP/scene-1600x1200-canvas-2   	5	 16000000 ns/op	 39.2 PSNR-Y-dB	 37.2 PSNR-RGB-dB
`

// Issue 32's image rows hold the time to the canvas's on the same photo and each PSNR to
// the canvas's own figure: met only when all three are.
func TestImageTargetsCompareWithTheCanvasOnTheSamePhoto(t *testing.T) {
	res := Parse(strings.NewReader(imageSample))
	out := insertSummary(Render(res, "m", "make bench", time.Date(2026, 11, 25, 1, 0, 0, 0, time.UTC)), Summary(res, nil, "webkit2_41"))
	for _, want := range []string{
		"| 32.3 | images: 12 MP 4:4:4 photo (scene-444), time over Chromium's canvas, PSNR at least the canvas's | 0.80x the time of Optimize12MP/scene-444-canvas (target <= 1x); 37.50 PSNR-Y-dB (target >= 37.00 PSNR-Y-dB of Optimize12MP/scene-444-canvas); 35.10 PSNR-RGB-dB (target >= 34.90 PSNR-RGB-dB of Optimize12MP/scene-444-canvas) | `go test -tags webkit2_41 -run '^$' -bench '^BenchmarkOptimize12MP$/^scene-444$' ./tests/imagebench` | **met** |",
		"| 32.3 | images: 1600x1200 photo (scene-1600x1200), time over Chromium's canvas, PSNR at least the canvas's | 1.25x the time of Optimize2MP/scene-1600x1200-canvas (target <= 1x)",
		"37.00 PSNR-RGB-dB (target >= 37.20 PSNR-RGB-dB of Optimize2MP/scene-1600x1200-canvas) | `go test -tags webkit2_41 -run '^$' -bench '^BenchmarkOptimize2MP$/^scene-1600x1200$' ./tests/imagebench` | **NOT met** |",
		"| 32.3 | images: 12 MP 4:2:0 photo (scene), time over Chromium's canvas, PSNR at least the canvas's | not in this run |",
		"**target 37.50 PSNR-Y-dB >= 37.00 PSNR-Y-dB of Optimize12MP/scene-444-canvas: met**",
		"**target 37.00 PSNR-RGB-dB >= 37.20 PSNR-RGB-dB of Optimize2MP/scene-1600x1200-canvas: NOT met**",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// A run of one package keeps the earlier report's other sections, its release artifacts and
// its summary rows for targets this run did not measure, and says where they come from.
func TestKeepCarriesOverWhatThisRunDidNotMeasure(t *testing.T) {
	when := time.Date(2026, 11, 25, 1, 0, 0, 0, time.UTC)
	all := Parse(strings.NewReader(sample + appSample))
	arts := []Artifact{{"Clanker-1-windows-amd64-setup.exe", 9_900_000}}
	old := insertSummary(Render(all, "m", "old command", when), Summary(all, arts, "webkit2_41")) + DistSection("dist", arts)
	old = strings.Replace(old, "## Targets (issues 17 and 32)", "## Issue 17 targets", 1) // as earlier reports were titled
	images := Parse(strings.NewReader(imageSample))
	out := KeepFrom(insertSummary(Render(images, "m", "new command", when), Summary(images, nil, "webkit2_41")), old)
	for _, want := range []string{
		"- Command: `new command`",
		"- Kept from the previous report (app/llm, tests/e2e, Release artifacts, and the summary rows this run did not measure): Command: `old command`",
		"## Targets (issues 17 and 32)",
		"1200 ms-to-page-usable (target <= 1500)", // e2e's summary row, from the old report
		"| 32.3 | images: 12 MP 4:4:4 photo (scene-444)",
		"| Optimize12MP/scene-444 | 1 | 80.00 ms/op |",
		"| AppMemory | 1 |",
		"## Release artifacts",
		"| Clanker-1-windows-amd64-setup.exe | 9.90 MB",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "## tests/imagebench") != 1 || strings.Contains(out, "| Optimize12MP/scene | 3 |") {
		t.Errorf("the imagebench section must be this run's alone:\n%s", out)
	}
	if strings.Index(out, "## tests/imagebench") > strings.Index(out, "## tests/e2e") {
		t.Errorf("sections are not in the earlier report's order:\n%s", out)
	}
}

const soakSample = `pkg: github.com/clanker-desktop/clanker/tests/e2e
BenchmarkAppSoak-2   	1	 2100000000000 ns/op	 3.2 growth-pss-%	 6.1 growth-rss-%	 231 MiB-pss-total-idle	 219 MiB-pss-total-end-idle	 250 MiB-pss-total-10min	 258 MiB-pss-total-end	 480 MiB-rss-total-10min	 509 MiB-rss-total-end	 33.5 minutes
`

// Issue 32.2's rows judge the soak's growth (PSS and RSS) and both idle figures, each with
// the command that runs the soak alone, timeout included.
func TestSummaryJudgesTheSoak(t *testing.T) {
	out := Summary(Parse(strings.NewReader(soakSample)), nil, "webkit2_41")
	cmd := "`go test -tags webkit2_41 -run '^$' -bench '^BenchmarkAppSoak$' -timeout 120m ./tests/e2e`"
	for _, want := range []string{
		"3.2 growth-pss-% (target <= 5); 250 MiB-pss-total-10min; 258 MiB-pss-total-end; 33.5 minutes | " + cmd + " | **met** |",
		"6.1 growth-rss-% (target <= 5); 480 MiB-rss-total-10min; 509 MiB-rss-total-end | " + cmd + " | **NOT met** |",
		"231 MiB-pss-total-idle (target <= 225) | " + cmd + " | **NOT met** |",
		"219 MiB-pss-total-end-idle (target <= 225) | " + cmd + " | **met** |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "| 32.2 |"); n != 4 {
		t.Errorf("want 4 rows for 32.2, got %d:\n%s", n, out)
	}
	rendered := Render(Parse(strings.NewReader(soakSample)), "m", "make bench", time.Date(2026, 11, 28, 1, 0, 0, 0, time.UTC))
	if !strings.Contains(rendered, "Soak (issue 32.2)") || !strings.Contains(rendered, "**target 3.2 growth-pss-% <= 5: met**") {
		t.Errorf("the e2e section lacks the soak's description or its target:\n%s", rendered)
	}
}

// The soak runs in a pass of its own when the packages cover tests/e2e, never in the pass
// over every package (which skips it), and not at all with -soak-count 0.
func TestSoakRunsInAPassOfItsOwn(t *testing.T) {
	want := "test -tags webkit2_41 -run '^$' -bench '^BenchmarkAppSoak$' -benchmem -count 1 -timeout 120m ./tests/e2e"
	for _, pkgs := range []string{"./...", "./app/... ./tests/e2e", "./tests/...", "github.com/clanker-desktop/clanker/tests/e2e"} {
		if got := shellJoin(soakArgs(pkgs, "webkit2_41", 1)); got != want {
			t.Errorf("pkgs %q: soak pass %q, want %q", pkgs, got, want)
		}
	}
	for _, pkgs := range []string{"./app/...", "./tests/imagebench ./tests/browser/bridgetest", "./tests/e2e/internal/..."} {
		if got := soakArgs(pkgs, "webkit2_41", 1); got != nil {
			t.Errorf("pkgs %q do not cover the soak, yet it runs: %q", pkgs, got)
		}
	}
	if got := soakArgs("./...", "webkit2_41", 0); got != nil {
		t.Errorf("-soak-count 0 still runs the soak: %q", got)
	}
	if got := shellJoin(soakArgs("./...", "webkit2_41", 3)); !strings.Contains(got, "-count 3") {
		t.Errorf("-soak-count 3 gives %q", got)
	}
}

func TestShellJoinQuotesWhatTheShellWouldRead(t *testing.T) {
	got := shellJoin([]string{"test", "-run", "^$", "-bench", ".", "-skip", "^BenchmarkAppSoak$", "it's", "", "./..."})
	want := `test -run '^$' -bench . -skip '^BenchmarkAppSoak$' 'it'\''s' '' ./...`
	if got != want {
		t.Errorf("shellJoin = %s, want %s", got, want)
	}
}

// A run of the soak alone (-keep-rows) keeps the earlier report's other rows of its package,
// with the paragraphs that say what they measure, and says which rows it kept.
func TestKeepRowsCarriesOverTheOtherBenchmarksOfAPackage(t *testing.T) {
	when := time.Date(2026, 11, 28, 1, 0, 0, 0, time.UTC)
	all := Parse(strings.NewReader(sample + appSample))
	old := insertSummary(Render(all, "m", "old command", when), Summary(all, nil, "webkit2_41"))
	soak := Parse(strings.NewReader(soakSample))
	out := keepFrom(insertSummary(Render(soak, "m", "soak command", when), Summary(soak, nil, "webkit2_41")), old, true)
	for _, want := range []string{
		"| AppStartToBridgeReady | 1 |",
		"| AppMemory | 1 |",
		"| AppSoak | 1 |",
		"Soak (issue 32.2)",
		"The real app under Xvfb",
		"tests/e2e's rows AppStartToBridgeReady, AppMemory",
		"| 17.4 | memory: PSS of app + WebKit processes, idle, main window | 240 MiB-pss-total-idle",
		"| 32.2 | memory over hours: PSS growth",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "| AppMemory |") > strings.Index(out, "| AppSoak |") {
		t.Errorf("the earlier rows are not first, in their order:\n%s", out)
	}
	if n := strings.Count(out, "The real app under Xvfb"); n != 1 {
		t.Errorf("the e2e paragraph is there %d times:\n%s", n, out)
	}
	// A report made from an earlier wording of the descriptions: the new wording replaces
	// each old paragraph instead of joining it.
	reworded := strings.ReplaceAll(strings.ReplaceAll(old, "The real app under Xvfb on the simulator (issues 6 and 17).",
		"The real app under Xvfb on the simulator (issues 6 and 17). An older wording."), "Soak (issue 32.2):", "Soak (issue 32.2): an older wording,")
	if reworded == old {
		t.Fatal("the sample report has neither paragraph to reword")
	}
	again := keepFrom(insertSummary(Render(soak, "m", "soak command", when), Summary(soak, nil, "webkit2_41")), reworded, true)
	if n := strings.Count(again, "The real app under Xvfb"); n != 1 || strings.Contains(again, "older wording") {
		t.Errorf("after a rewording the e2e paragraph is there %d times (old wording kept: %v):\n%s", n, strings.Contains(again, "older wording"), again)
	}
	// Without -keep-rows the section is this run's alone, as before.
	if plain := KeepFrom(insertSummary(Render(soak, "m", "soak command", when), Summary(soak, nil, "webkit2_41")), old); strings.Contains(plain, "| AppMemory | 1 |") {
		t.Errorf("KeepFrom without rows kept AppMemory's row:\n%s", plain)
	}
}
