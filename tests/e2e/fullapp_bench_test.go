//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/fakellm"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// The benchmarks here run the real binary on the simulator, like TestFullApp, and
// report figures for BENCHMARKS.md (make bench): start-up time and resident memory.
// They run only with -bench, never as part of go test.

func needDisplayB(b *testing.B) {
	b.Helper()
	if setupErr != nil {
		b.Fatalf("test display: %v", setupErr)
	}
	if display == nil {
		b.Skip("full-app benchmark under Xvfb: not with -short")
	}
}

// configure stores complete settings before the app starts, so it starts configured
// (no first-run settings window) as a returning user's app does.
func (f *fullApp) configure() {
	f.t.Helper()
	f.config("", "set", "endpoint", f.llm.BaseURL())
	f.config("", "set", "model", "fake-model")
	f.config("", "set", "user_name", "Sam")
	f.config("sk-bench-key-0123456789abcdef\n", "set", "api_key", "-")
}

// startsPerOp is how many cold starts one op of BenchmarkAppStartToBridgeReady makes, so a
// single op (what a start of several seconds gets by default) already has a median.
const startsPerOp = 5

// BenchmarkAppStartToBridgeReady measures, per start of the real binary, the milliseconds
// from exec to a usable page: the bridge has reported a page state of no_conversation or
// conversation and the conversation list (its first sidebar event) has reached Go. Every
// run is cold: a fresh HOME (WebKit's caches and GTK's state) and a fresh, configured data
// directory. Beside it, from the same runs: ms-to-page-loaded, when the simulator page's
// own script had run and opened its event stream (it fetches its state and pictures from
// loopback and renders the list right after), the page-load time the usable figure is
// compared with; and where the time went, from the app's log (millisecond timestamps):
// ms-to-boot-page when the bootstrap page ran (process, GTK and WebKit started, the web
// process up), ms-to-bridge-hello when the injected bridge first spoke from the Messages
// page (document start), ms-to-bridge-ready its first page_state. One op is startsPerOp
// cold starts; each figure is the median of its starts, with the fastest and slowest start
// of the two headline figures.
func BenchmarkAppStartToBridgeReady(b *testing.B) {
	needDisplayB(b)
	f := newFullApp(b)
	var toState, toUsable, toLoaded, toBoot, toHello []float64
	b.ResetTimer()
	for i := 0; i < b.N*startsPerOp; i++ {
		b.StopTimer()
		testkit.WaitFor(b, 30*time.Second, "the previous run's page to disconnect from the simulator", func() (bool, string) {
			st, err := f.ctl.Status()
			return err == nil && st.Pages == 0, fmt.Sprintf("%+v %v", st, err)
		})
		f.dataDir = b.TempDir()
		f.configure()
		b.StartTimer()
		f.launch()
		var first, loaded time.Duration
		testkit.WaitFor(b, 60*time.Second, "the bridge's first page_state and a usable page", func() (bool, string) {
			if loaded == 0 {
				if st, err := f.ctl.Status(); err == nil && st.Pages > 0 {
					loaded = time.Since(f.app.Started)
				}
			}
			st := f.status()
			if st.PageState != "" && first == 0 {
				first = time.Since(f.app.Started)
			}
			usable := (st.PageState == "no_conversation" || st.PageState == "conversation") && st.Sidebar > 0
			if usable {
				if loaded == 0 { // connected between the two looks
					loaded = time.Since(f.app.Started)
				}
				toState = append(toState, ms(first))
				toUsable = append(toUsable, ms(time.Since(f.app.Started)))
				toLoaded = append(toLoaded, ms(loaded))
			}
			return usable, fmt.Sprintf("%+v", st)
		})
		b.StopTimer()
		out := f.app.Output()
		toBoot = append(toBoot, logOffset(b, out, f.app.Started, `msg="bootstrap page"`))
		toHello = append(toHello, logOffset(b, out, f.app.Started, `msg="bridge connected"`))
		f.app.Stop()
		b.StartTimer()
	}
	b.ReportMetric(median(toBoot), "ms-to-boot-page")
	b.ReportMetric(median(toHello), "ms-to-bridge-hello")
	b.ReportMetric(median(toState), "ms-to-bridge-ready")
	b.ReportMetric(median(toUsable), "ms-to-page-usable")
	b.ReportMetric(slices.Min(toUsable), "ms-to-page-usable-min")
	b.ReportMetric(slices.Max(toUsable), "ms-to-page-usable-max")
	b.ReportMetric(median(toLoaded), "ms-to-page-loaded")
	b.ReportMetric(slices.Min(toLoaded), "ms-to-page-loaded-min")
	b.ReportMetric(slices.Max(toLoaded), "ms-to-page-loaded-max")
	b.ReportMetric(float64(len(toUsable)), "runs")
}

// logOffset is the milliseconds from start to the first line of the app's log holding
// marker (slog's text format: time=2006-01-02T15:04:05.000Z07:00 ... msg="..."). The log
// has millisecond timestamps, so the figure is as exact as that.
func logOffset(b *testing.B, out string, start time.Time, marker string) float64 {
	b.Helper()
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, marker) {
			continue
		}
		f := strings.Fields(strings.TrimSpace(line))
		if len(f) == 0 || !strings.HasPrefix(f[0], "time=") {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, strings.TrimPrefix(f[0], "time="))
		if err != nil {
			b.Fatalf("log time in %q: %v", line, err)
		}
		return ms(at.Sub(start))
	}
	b.Fatalf("no %s in the app's log:\n%s", marker, out)
	return 0
}

// BenchmarkAppMemory reports the memory of the app process and of WebKit's web and
// network processes as PSS (proportional set size, MiB: shared pages are split between the
// processes sharing them, so the figures add up), idle and after a simulated 10-minute
// conversation, and what an open settings window adds. The conversation is compressed in
// time: 200 incoming messages (one every 3 s would be 10 minutes) delivered back to back,
// every tenth addressing Clanker, which answers at zero model latency (20 typed replies).
//
// Every sample compares like with like: the app's Go heap is collected and returned to the
// OS first (the test control's /gc), and the sample is taken once the processes' PSS has
// stopped falling (WebKit collects JavaScript garbage on its own timers when the page is
// idle; it offers no call to force it). Two pages are sampled each time: the chat's
// conversation (Bob), whose page holds 220 more rows after the chat, as Messages for web
// does while a conversation stays open, and another conversation (Jane), whose page content
// is the same before and after. Growth counts what the processes allocated (anonymous and
// shared memory), over the idle PSS: file-backed pages (code, fonts) do not grow with a
// chat, but their share of PSS moves with whatever else on the machine maps the same
// libraries. growth-% is on the chat's page (including the page's own new rows),
// growth-same-page-% on the other, growth-pss-% the plain PSS ratio for comparison. The
// other conversation is sampled once more after a page reload (the page's and the bridge's
// JavaScript start afresh): what the web process still holds then is WebKit's own.
//
// The settings window is opened from the status pill's Settings... item, as a user does;
// it is a process of its own (clanker settings, with its own WebKit processes), measured
// while open and again once it has been closed.
func BenchmarkAppMemory(b *testing.B) {
	needDisplayB(b)
	var idle, after, idleOther, afterOther, reloaded, withSettings, closed memSample
	commands := 0
	for i := 0; i < b.N; i++ {
		f := newFullApp(b)
		f.configure()
		f.launch()
		bob := f.conversation(sim.DemoBob)
		jane := f.conversation(sim.DemoJane)
		f.open(bob)
		f.pillMenu("available")
		f.waitSent(bob, engine.AvailableText)
		f.waitQuiet()
		idle = f.memSample(b)
		f.open(jane)
		idleOther = f.memSample(b)
		f.open(bob)

		for m := 1; m <= 200; m++ {
			text := fmt.Sprintf("message %d of the long chat about nothing in particular", m)
			if m%10 == 0 {
				text = fmt.Sprintf("clanker, what do you think about number %d?", m)
				f.llm.Enqueue(fakellm.JSONReply(fmt.Sprintf("Number %d is fine.", m), "A long chat."))
			}
			if _, err := f.ctl.Deliver(bob, sim.Message{From: "Bob", Text: text}); err != nil {
				b.Fatal(err)
			}
			if m%10 == 0 {
				f.waitSent(bob, fmt.Sprintf("[clanker] Number %d is fine.", m))
				f.waitQuiet()
			}
		}
		after = f.memSample(b)
		commands = 0
		kinds := f.status().Commands
		for _, n := range kinds {
			commands += n
		}
		b.Logf("commands the chat took, by kind: %v", kinds)
		f.open(jane)
		afterOther = f.memSample(b)
		// The same page once more after a reload: the page's and the bridge's JavaScript
		// start afresh, so what the web process still holds beyond idle is WebKit's own.
		f.post("/reload")
		testkit.WaitFor(b, 60*time.Second, "the reloaded page to show the conversation again", func() (bool, string) {
			st := f.status()
			return st.Current == jane && st.PageState == "conversation" && st.Sidebar > 0, fmt.Sprintf("%+v", st)
		})
		reloaded = f.memSample(b)
		f.open(bob)

		f.openSettingsFromPill()
		time.Sleep(3 * time.Second)
		withSettings = f.memSample(b)
		f.closeSettingsWindows()
		testkit.WaitFor(b, 20*time.Second, "the settings process to end", func() (bool, string) {
			n := len(Descendants(f.app.Cmd.Process.Pid, "clanker"))
			return n == 0, fmt.Sprintf("%d settings processes", n)
		})
		closed = f.memSample(b)
		f.app.Stop()
	}
	for _, name := range []string{"app", "webprocess", "networkprocess", "total"} {
		b.ReportMetric(idle.pss[name], "MiB-pss-"+name+"-idle")
		b.ReportMetric(after.pss[name], "MiB-pss-"+name+"-after-chat")
	}
	for _, name := range []string{"app", "webprocess", "total"} {
		b.ReportMetric(idle.alloc[name], "MiB-alloc-"+name+"-idle")
		b.ReportMetric(after.alloc[name], "MiB-alloc-"+name+"-after-chat")
	}
	b.ReportMetric(idle.goHeap, "MiB-go-heap-idle")
	b.ReportMetric(after.goHeap, "MiB-go-heap-after-chat")
	// File-backed pages (code, fonts) do not grow with a chat, but their PSS share moves
	// with whatever else runs on the machine; growth-% therefore counts what the processes
	// allocated, over the idle PSS. growth-pss-% is the plain PSS ratio, for comparison.
	b.ReportMetric(100*(after.pss["total"]/idle.pss["total"]-1), "growth-pss-%")
	b.ReportMetric(100*(after.alloc["total"]-idle.alloc["total"])/idle.pss["total"], "growth-%")
	b.ReportMetric(100*(afterOther.alloc["total"]-idleOther.alloc["total"])/idleOther.pss["total"], "growth-same-page-%")
	b.ReportMetric(afterOther.alloc["app"]-idleOther.alloc["app"], "MiB-alloc-app-growth-same-page")
	b.ReportMetric(afterOther.alloc["webprocess"]-idleOther.alloc["webprocess"], "MiB-alloc-webprocess-growth-same-page")
	b.ReportMetric(reloaded.alloc["webprocess"]-idleOther.alloc["webprocess"], "MiB-alloc-webprocess-growth-after-reload")
	// Every command is a script of its own run in the page (the web process keeps some
	// memory per distinct script), so how many the chat took is reported beside the growth.
	b.ReportMetric(float64(commands), "page-commands")
	// Opening the settings window also shifts shared pages onto its processes, so what it
	// adds is the whole tree's PSS while it is open less the tree's PSS just before.
	b.ReportMetric(withSettings.pss["total"]+withSettings.pss["settings"]-after.pss["total"], "MiB-pss-settings-extra")
	b.ReportMetric(withSettings.alloc["total"]+withSettings.alloc["settings"]-after.alloc["total"], "MiB-alloc-settings-extra")
	b.ReportMetric(withSettings.pss["settings"], "MiB-pss-settings-window")
	b.ReportMetric(closed.pss["settings"], "MiB-pss-settings-after-close")
	b.ReportMetric(closed.pss["total"], "MiB-pss-total-after-settings-closed")
	b.ReportMetric(closed.alloc["total"]-after.alloc["total"], "MiB-alloc-left-by-settings")
}

// memSample is one memory sample: PSS and its allocated part (anonymous and shared
// memory) by kind of process (see pssMiB) and the app's Go heap in use, in MiB.
type memSample struct {
	pss, alloc map[string]float64
	goHeap     float64
}

// memSample waits for the app's own idle memory release (the app hands freed memory back
// to the system 10 s after work stops, as it does for a user), then samples the process
// tree once its PSS has settled: two readings 2 s apart within 1 MiB of each other
// (WebKit's collector runs on its own timers), at most 30 s. The Go heap in use is read
// after the sample, with a collection the app would not otherwise run at that moment.
func (f *fullApp) memSample(b *testing.B) memSample {
	b.Helper()
	f.waitIdleSettled(b)
	pss, alloc := pssMiB(b, f)
	dumpSmaps(b, f)
	heap := f.collectGo(b)
	b.Logf("sample: PSS %v, allocated %v, Go heap %.1f MiB", pss, alloc, heap)
	return memSample{pss: pss, alloc: alloc, goHeap: heap}
}

// waitIdleSettled waits for the app's own idle memory release, then until the process
// tree's PSS has settled: two readings 2 s apart within 1 MiB of each other, at most 30 s.
func (f *fullApp) waitIdleSettled(b *testing.B) {
	b.Helper()
	// The deep release comes 2 minutes after the last activity (app/run/idlerelease.go).
	testkit.WaitFor(b, 4*time.Minute, "the app's idle memory release, the deep one too", func() (bool, string) {
		st := f.status()
		return !st.MemoryReleaseDue && !st.DeepMemoryReleaseDue, fmt.Sprintf("%d releases so far (%d deep), one due: %v, a deep one due: %v",
			st.MemoryReleases, st.DeepMemoryReleases, st.MemoryReleaseDue, st.DeepMemoryReleaseDue)
	})
	prev, _ := pssMiB(b, f)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		time.Sleep(2 * time.Second)
		cur, _ := pssMiB(b, f)
		done := math.Abs(cur["total"]-prev["total"]) < 1
		prev = cur
		if done {
			break
		}
	}
}

// collectGo asks the app to collect its Go heap and return free pages to the OS, and
// returns the heap in use afterwards, in MiB.
func (f *fullApp) collectGo(b *testing.B) float64 {
	b.Helper()
	resp, err := f.request("POST", "/gc")
	if err != nil {
		b.Fatalf("POST /gc: %v", err)
	}
	defer resp.Body.Close()
	var st struct {
		HeapInuse uint64 `json:"heapInuse"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		b.Fatalf("decode /gc: %v", err)
	}
	return float64(st.HeapInuse) / (1 << 20)
}

// openSettingsFromPill opens the settings window with the status pill's last item
// (Settings...), clicked as pillMenu clicks, and waits for its window.
func (f *fullApp) openSettingsFromPill() {
	f.t.Helper()
	x, y, _, h := windowGeometry(f.t, "Clanker")
	for attempt := 1; ; attempt++ {
		click(f.t, x+50, y+h-28)
		click(f.t, x+60, y+h-52-15) // half a 31 px item above the menu's bottom
		if ok, _ := testkit.Poll(10*time.Second, func() (bool, string) { return windowVisible("Clanker settings"), "" }); ok {
			return
		}
		if attempt == 3 {
			f.t.Fatalf("the settings window did not open from the status pill after %d attempts", attempt)
		}
	}
}

// pssMiB sums the PSS of the app's process tree by kind: the app itself, WebKit's web
// processes, its network process, and the settings window (a clanker child process and its
// own WebKit processes), which "total" leaves out.
func pssMiB(b *testing.B, f *fullApp) (pss, alloc map[string]float64) {
	b.Helper()
	root := f.app.Cmd.Process.Pid
	procs, err := ProcessTreePSS(root)
	if err != nil {
		b.Fatal(err)
	}
	settings := map[int]bool{}
	for _, p := range procs {
		if p.PID != root && p.Name == "clanker" {
			settings[p.PID] = true
		}
	}
	parentOf := map[int]int{}
	for _, p := range procs {
		parentOf[p.PID] = p.Parent
	}
	inSettings := func(pid int) bool {
		for q := pid; q > 1 && q != root; q = parentOf[q] {
			if settings[q] {
				return true
			}
		}
		return false
	}
	pss, alloc = map[string]float64{}, map[string]float64{}
	for _, p := range procs {
		mib, allocMiB := float64(p.KiB)/1024, float64(p.AllocKiB)/1024
		kind := "settings"
		switch {
		case inSettings(p.PID):
		case p.PID == root:
			kind = "app"
		case strings.HasPrefix(p.Name, "WebKitWebProces"):
			kind = "webprocess"
		case strings.HasPrefix(p.Name, "WebKitNetworkPr"):
			kind = "networkprocess"
		default:
			kind = "other"
		}
		pss[kind] += mib
		alloc[kind] += allocMiB
		if kind != "settings" {
			pss["total"] += mib
			alloc["total"] += allocMiB
		}
	}
	return pss, alloc
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// smapsSamples numbers the samples dumpSmaps writes.
var smapsSamples int

// dumpSmaps copies each process's /proc/PID/smaps into the directory named by
// CLANKER_BENCH_SMAPS, when set, so a run's growth can be traced to its mappings.
func dumpSmaps(b *testing.B, f *fullApp) {
	dir := os.Getenv("CLANKER_BENCH_SMAPS")
	if dir == "" {
		return
	}
	smapsSamples++
	procs, err := ProcessTreePSS(f.app.Cmd.Process.Pid)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range procs {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", p.PID))
		if err != nil {
			continue
		}
		name := filepath.Join(dir, fmt.Sprintf("%d-%s-%d.smaps", smapsSamples, p.Name, p.PID))
		if err := os.WriteFile(name, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}
