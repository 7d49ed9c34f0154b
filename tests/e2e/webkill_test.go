//go:build linux

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// The page's web process can die at any moment (a crash, the kernel's OOM killer, a user's
// kill): while the page is idle, while it is loading a conversation, while it is loading
// after a reload or after the previous death, and around the app's idle memory release,
// which talks to the page's process. Each time the page has to come back by itself:
// loaded again, the bridge connected, the open conversation shown. The soak (issue 32.2)
// once saw it not come back: the app logged "web process ended; reloading" and then
// nothing, with a new web process sitting idle (WebKit's reload does nothing in a process
// that has loaded nothing yet, and the idle release's message to the page starts such a
// process when none runs). Before the app's watchdog (app/desktop/window/recover.go) this
// test failed that way at its fifth kill, which lands a few seconds before an idle release
// while the app waits 10 s to reload; now the watchdog loads the page again 15 s later.
//
// The kills follow the app's crash backoff (app/desktop/window/reload.go): after three
// deaths within two minutes it waits 5 s, then 10 s, ... before reloading, so the bound on
// each recovery is that wait plus webKillPatience. CLANKER_WEB_KILLS sets how many kills a
// run makes (default webKillsDefault, which keeps the test under three minutes).
const (
	webKillsDefault = 6
	// webKillPatience bounds a recovery beyond the app's own backoff wait: far more than a
	// reload takes (about a second), enough for the app's watchdog to load the page again
	// after a reload that did nothing, on a loaded machine.
	webKillPatience = 60 * time.Second
)

// webKillMoment is when in the page's life a kill lands.
type webKillMoment int

const (
	killIdle          webKillMoment = iota // the app quiet, its idle release done
	killAfterSwitch                        // right after the user opened another conversation
	killDuringReload                       // right after a reload of the page began
	killDuringRecover                      // as the reload after the previous death begins
	killAfterRelease                       // right after an idle memory release ran
	killBeforeRelease                      // the page quiet for a while, a release still due
)

func (m webKillMoment) String() string {
	return [...]string{"idle", "after a switch", "during a reload", "during the previous recovery",
		"after an idle release", "before an idle release"}[m]
}

func TestFullAppWebProcessKillLoop(t *testing.T) {
	needDisplay(t)
	kills := webKillsDefault
	if s := os.Getenv("CLANKER_WEB_KILLS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("CLANKER_WEB_KILLS=%q: want a positive number", s)
		}
		kills = n
	}
	f := newFullApp(t)
	f.t = t
	f.configure()
	f.launch()
	t.Cleanup(func() {
		if t.Failed() {
			_ = display.Screenshot(filepath.Join(ArtifactsDir(), "webkill-failed.png"))
			out := strings.Split(f.app.Output(), "\n")
			t.Logf("the app's last lines:\n%s", strings.Join(out[max(0, len(out)-120):], "\n"))
		}
	})
	convs := []string{f.conversation(sim.DemoBob), f.conversation(sim.DemoFamily), f.conversation(sim.DemoJane)}
	open := convs[0]
	f.open(open)

	k := &webKiller{t: t, f: f}
	moments := []webKillMoment{killIdle, killAfterSwitch, killDuringReload, killAfterRelease, killBeforeRelease, killDuringRecover}
	for i := 0; k.count < kills; i++ {
		m := moments[i%len(moments)]
		switch m {
		case killIdle:
			f.waitQuiet()
			k.waitReleased()
			k.kill(m)
		case killAfterSwitch:
			open = convs[(i+1)%len(convs)]
			f.open(open)
			k.kill(m)
		case killDuringReload:
			f.post("/reload")
			time.Sleep(time.Duration(i%3) * 150 * time.Millisecond)
			k.kill(m)
		case killAfterRelease:
			// Activity first (a conversation switch), so a release is due; then the kill
			// right after it ran.
			open = convs[(i+1)%len(convs)]
			f.open(open)
			k.waitReleased()
			k.kill(m)
		case killBeforeRelease:
			// The release comes 10 s after the last activity; the kill lands a few seconds
			// before it, so it runs while the page is dead (when the app waits before
			// reloading).
			open = convs[(i+1)%len(convs)]
			f.open(open)
			time.Sleep(6 * time.Second)
			k.kill(m)
		case killDuringRecover:
			pid := k.kill(m)
			if k.count < kills {
				// The next web process, as soon as it is there: the reload is in flight.
				var next int
				testkit.WaitFor(t, webKillPatience+k.delay(), "a new web process after the kill", func() (bool, string) {
					next = k.webProcess()
					return next != 0 && next != pid, fmt.Sprintf("web process %d", next)
				})
				// Not in its first moments: the sandboxed web process sends WebKit its pid
				// early in its start-up, and if it dies before that WebKit aborts the whole
				// app (g_error "readPIDFromPeer: Unexpected short read from PID socket",
				// ProcessLauncherGLib.cpp), which no app can recover from. A second in,
				// the reload (or whatever started the process) is still in flight.
				time.Sleep(time.Second)
				if now := k.webProcess(); now != next {
					k.t.Fatalf("the new web process %d is gone a second after it started (now %d)", next, now)
				}
				k.killPID(next, m)
			}
		}
		k.waitPage(open, m)
	}
	// The page that came back works: the user opens another conversation in it.
	f.open(convs[0])
	if n := strings.Count(f.app.Output(), "web process ended; reloading"); n < kills {
		t.Errorf("the app reported %d web process deaths, want %d (one per kill)", n, kills)
	}
	t.Logf("%d kills; recoveries: %s", k.count, strings.Join(k.took, ", "))
	if n := strings.Count(f.app.Output(), "did not come back"); n > 0 {
		t.Logf("the app's watchdog loaded the page again %d times", n)
	}
	f.noUntrustedInput()
}

// webKiller kills the main window's web process and waits for the page to come back.
type webKiller struct {
	t     *testing.T
	f     *fullApp
	count int         // kills so far
	times []time.Time // when each kill was made
	took  []string    // how long each recovery took, with its moment
	// loadsAtKill is how many times the bridge had connected when the last kill was made:
	// the page is back once it connects again. killed is the pid the last kill killed.
	loadsAtKill, killed int
}

// loads is how many times the bridge has connected so far.
func (k *webKiller) loads() int { return strings.Count(k.f.app.Output(), `msg="bridge connected"`) }

// webProcess is the pid of the main window's one web process, or 0 while there is none or
// more than one (between a death and the reload).
func (k *webKiller) webProcess() int {
	pids := Descendants(k.f.app.Cmd.Process.Pid, "WebKitWebProces")
	if len(pids) != 1 {
		return 0
	}
	return pids[0]
}

// kill kills the web process as it is now and returns its pid.
func (k *webKiller) kill(m webKillMoment) int {
	k.t.Helper()
	var pid int
	testkit.WaitFor(k.t, 30*time.Second, "the main window's web process", func() (bool, string) {
		pid = k.webProcess()
		return pid != 0, "none or several"
	})
	k.killPID(pid, m)
	return pid
}

func (k *webKiller) killPID(pid int, m webKillMoment) {
	k.t.Helper()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		k.t.Fatalf("kill %d (%v): %v", pid, m, err)
	}
	k.count++
	k.times = append(k.times, time.Now())
	k.loadsAtKill, k.killed = k.loads(), pid
	k.t.Logf("kill %d (%v): web process %d, %d deaths in the last 2 minutes", k.count, m, pid, k.recent())
}

// recent is how many kills fell within the app's crash window (2 minutes) up to now.
func (k *webKiller) recent() int {
	n := 0
	for _, at := range k.times {
		if time.Since(at) < 2*time.Minute {
			n++
		}
	}
	return n
}

// delay is the wait the app's crash backoff puts before the reload after the latest kill
// (reloadDelay in app/desktop/window/reload.go).
func (k *webKiller) delay() time.Duration {
	n := k.recent()
	if n <= 3 {
		return 200 * time.Millisecond
	}
	return min(time.Minute, 5*time.Second<<(n-4))
}

// waitReleased waits until the app has no idle memory release due: the last one ran.
func (k *webKiller) waitReleased() {
	k.t.Helper()
	testkit.WaitFor(k.t, 90*time.Second, "the app's idle memory release", func() (bool, string) {
		st := k.f.status()
		return !st.MemoryReleaseDue, fmt.Sprintf("%d releases, one due: %v", st.MemoryReleases, st.MemoryReleaseDue)
	})
}

// waitPage waits until the bridge has connected again since the last kill and the page
// shows conversation conv with its sidebar.
func (k *webKiller) waitPage(conv string, m webKillMoment) {
	k.t.Helper()
	start, before := time.Now(), k.loadsAtKill
	bound := webKillPatience + k.delay()
	testkit.WaitFor(k.t, bound, fmt.Sprintf("the page to come back after kill %d (%v)", k.count, m), func() (bool, string) {
		loads, pid := k.loads(), k.webProcess()
		st := k.f.status()
		return loads > before && pid != 0 && pid != k.killed && st.Current == conv && st.PageState == "conversation" && st.Sidebar > 0,
			fmt.Sprintf("%d bridge connections (%d before); web process %d (killed %d); app %+v", loads, before, pid, k.killed, st)
	})
	k.took = append(k.took, fmt.Sprintf("%v %.1fs", m, time.Since(start).Seconds()))
}
