//go:build linux

package e2e

import (
	"fmt"
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

// BenchmarkAppStartToBridgeReady measures, per start of the real binary (a fresh HOME,
// so WebKit's caches are cold; a configured data directory), the milliseconds from exec
// to the bridge's first page_state event reaching Go, and to the page being usable (a
// page_state of no_conversation or conversation: the bridge has seen the conversation
// list). Beside them, from the same runs, ms-to-page-loaded: when the simulator page's own
// script had run and opened its event stream (it renders the list right after fetching its
// state and pictures from loopback), the page-load time the usable figure is compared with.
func BenchmarkAppStartToBridgeReady(b *testing.B) {
	needDisplayB(b)
	f := newFullApp(b)
	f.configure()
	var toState, toUsable, toLoaded []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		testkit.WaitFor(b, 30*time.Second, "the previous run's page to disconnect from the simulator", func() (bool, string) {
			st, err := f.ctl.Status()
			return err == nil && st.Pages == 0, fmt.Sprintf("%+v %v", st, err)
		})
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
			usable := st.PageState == "no_conversation" || st.PageState == "conversation"
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
		f.app.Stop()
		b.StartTimer()
	}
	b.ReportMetric(median(toState), "ms-to-bridge-ready")
	b.ReportMetric(median(toUsable), "ms-to-page-usable")
	b.ReportMetric(median(toLoaded), "ms-to-page-loaded")
}

// BenchmarkAppMemory reports the resident memory (VmRSS, MiB) of the app process and of
// WebKit's web and network processes, idle on an open conversation and after a
// simulated 10-minute conversation. The conversation is compressed in time: 200
// incoming messages (one every 3 s would be 10 minutes) delivered back to back, every
// tenth addressing Clanker, which answers at zero model latency (20 typed replies).
func BenchmarkAppMemory(b *testing.B) {
	needDisplayB(b)
	var idle, after map[string]float64
	for i := 0; i < b.N; i++ {
		f := newFullApp(b)
		f.configure()
		f.launch()
		bob := f.conversation(sim.DemoBob)
		f.open(bob)
		f.pillMenu("available")
		f.waitSent(bob, engine.AvailableText)
		f.waitQuiet()
		time.Sleep(3 * time.Second) // let the page and WebKit settle before sampling
		idle = rssMiB(b, f)

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
		time.Sleep(3 * time.Second)
		after = rssMiB(b, f)
		f.app.Stop()
	}
	for _, name := range []string{"app", "webprocess", "networkprocess"} {
		b.ReportMetric(idle[name], "MiB-"+name+"-idle")
		b.ReportMetric(after[name], "MiB-"+name+"-after-chat")
	}
}

// rssMiB sums the app's process tree by kind: the app itself, WebKit's web processes
// and its network process (process names are cut to 15 bytes by the kernel).
func rssMiB(b *testing.B, f *fullApp) map[string]float64 {
	b.Helper()
	byName, err := ProcessTreeRSS(f.app.Cmd.Process.Pid)
	if err != nil {
		b.Fatal(err)
	}
	out := map[string]float64{}
	for name, kib := range byName {
		switch {
		case name == "clanker":
			out["app"] += float64(kib) / 1024
		case strings.HasPrefix(name, "WebKitWebProces"):
			out["webprocess"] += float64(kib) / 1024
		case strings.HasPrefix(name, "WebKitNetworkPr"):
			out["networkprocess"] += float64(kib) / 1024
		}
	}
	b.Logf("resident memory by process name (KiB): %v", byName)
	return out
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
