//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/window"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

var (
	display  *Display
	binDir   string
	setupErr error
)

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	display, setupErr = StartDisplay()
	var err error
	binDir, err = os.MkdirTemp("", "clanker-e2e-bin-")
	if err != nil && setupErr == nil {
		setupErr = err
	}
	code := m.Run()
	if display != nil {
		display.Close()
	}
	os.RemoveAll(binDir)
	os.Exit(code)
}

// shellRun is one run of tests/e2e/shellapp and the test page it shows.
type shellRun struct {
	t    *testing.T
	app  *App
	page *testPage
}

type shellState struct {
	Events []string `json:"events"`
	Loads  []struct {
		URL      string
		Finished bool
		Failed   bool
		Error    string
	} `json:"loads"`
	Popups     []string                            `json:"popups"`
	External   []string                            `json:"external"`
	OpenPopups int                                 `json:"openPopups"`
	Geometry   []struct{ X, Y, Width, Height int } `json:"geometry"`
	LastGeo    struct{ X, Y, Width, Height int }   `json:"lastGeo"`
	SetupError string                              `json:"setupError"`
	PID        int                                 `json:"pid"`
}

// pageEvent is what the test page and user script emit to the shell.
type pageEvent struct {
	Kind          string `json:"kind"`
	Href          string `json:"href"`
	ReadyState    string `json:"readyState"`
	PageScriptRan bool   `json:"pageScriptRan"`
	UA            string `json:"ua"`
	Text          string `json:"text"`
	Hidden        bool   `json:"hidden"`
}

func needDisplay(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("full-app test under Xvfb: runs in make test, not with -short")
	}
	if setupErr != nil {
		t.Fatalf("test display: %v", setupErr)
	}
}

// startShell builds (once) and starts the shell app on page's app URL (or target).
func startShell(t *testing.T, page *testPage, target string, args ...string) *shellRun {
	t.Helper()
	needDisplay(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin, err := Build(ctx, "./tests/e2e/shellapp", binDir)
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "user.js")
	if err := os.WriteFile(script, []byte(userScript), 0o600); err != nil {
		t.Fatal(err)
	}
	if target == "" {
		target = page.URL()
	}
	all := append([]string{"-target", target, "-script", script, "-ready-file", "{ready}"}, args...)
	app := StartApp(t, display, bin, 60*time.Second, all...)
	return &shellRun{t: t, app: app, page: page}
}

func (r *shellRun) post(path, body string) {
	r.t.Helper()
	resp, err := http.Post(r.app.Control+path, "text/plain", strings.NewReader(body))
	if err != nil {
		r.t.Fatalf("POST %s to the shell app: %v", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(resp.Body)
		r.t.Fatalf("POST %s to the shell app: %s: %s", path, resp.Status, b)
	}
}

func (r *shellRun) state() shellState {
	r.t.Helper()
	var st shellState
	resp, err := http.Get(r.app.Control + "/state")
	if err != nil {
		r.t.Fatalf("GET /state from the shell app: %v", err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		r.t.Fatalf("decode /state: %v", err)
	}
	return st
}

// events returns the page events the shell handed to Go, decoded.
func (r *shellRun) events(kind string) []pageEvent {
	r.t.Helper()
	var out []pageEvent
	for _, raw := range r.state().Events {
		var e pageEvent
		if err := json.Unmarshal([]byte(raw), &e); err != nil {
			r.t.Fatalf("shell handed over an event that is not the JSON the page sent: %q: %v", raw, err)
		}
		if kind == "" || e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

func (r *shellRun) waitEvents(kind string, n int, timeout time.Duration) []pageEvent {
	r.t.Helper()
	var got []pageEvent
	testkit.WaitFor(r.t, timeout, fmt.Sprintf("%d %q event(s) to reach Go", n, kind), func() (bool, string) {
		got = r.events(kind)
		return len(got) >= n, fmt.Sprintf("%d %q events; all events: %v", len(got), kind, r.state().Events)
	})
	return got
}

func (r *shellRun) waitReports(kind string, n int, timeout time.Duration) []report {
	r.t.Helper()
	var got []report
	testkit.WaitFor(r.t, timeout, fmt.Sprintf("%d %q report(s) from the test page", n, kind), func() (bool, string) {
		got = r.page.Reports(kind)
		return len(got) >= n, fmt.Sprintf("%d %q reports; page reported: %s", len(got), kind, r.page.Kinds())
	})
	return got
}

func decode[T any](t *testing.T, raw json.RawMessage) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decode report %s: %v", raw, err)
	}
	return v
}

func TestUserScriptRunsAtDocumentStartOnEveryLoadAndSeesPushState(t *testing.T) {
	page := newTestPage(t, "127.0.0.1:0")
	r := startShell(t, page, "")

	first := r.waitEvents("script-ran", 1, 30*time.Second)[0]
	if first.ReadyState != "loading" || first.PageScriptRan {
		t.Fatalf("user script ran with readyState=%q, page script already ran=%v; want it at document start (loading, before the page's own head script)", first.ReadyState, first.PageScriptRan)
	}
	if first.Href != page.URL() {
		t.Fatalf("user script ran on %q, want the target %q", first.Href, page.URL())
	}

	r.post("/reload", "")
	second := r.waitEvents("script-ran", 2, 20*time.Second)[1]
	if second.ReadyState != "loading" || second.PageScriptRan {
		t.Fatalf("after reload the user script ran with readyState=%q, page script already ran=%v; want document start", second.ReadyState, second.PageScriptRan)
	}

	r.post("/exec", `window.__goSpa('/app/conversations/42')`)
	nav := r.waitEvents("navigated", 1, 10*time.Second)[0]
	if want := "http://" + page.Addr + "/app/conversations/42"; nav.Href != want {
		t.Fatalf("after pushState the user script reported %q, want %q", nav.Href, want)
	}
	// The DOM-ready fallback must not run the script a second time in the same document.
	loads := len(r.waitReports("app-loaded", 2, 30*time.Second))
	if runs := len(r.events("script-ran")); runs != loads {
		t.Fatalf("user script ran %d times for %d page loads; want exactly once per load", runs, loads)
	}
}

func TestPageEventsReachGoOnlyFromTheAllowedOrigin(t *testing.T) {
	page := newTestPage(t, "127.0.0.1:0")
	r := startShell(t, page, "")
	r.waitEvents("from-page", 1, 30*time.Second)

	// Same server, other host name: a different origin.
	_, port, _ := net.SplitHostPort(page.Addr)
	other := "http://localhost:" + port + "/other"
	js := fmt.Sprintf("location.href = %q", other)
	r.post("/exec", js)
	rep := decode[struct {
		Posted   bool
		Injected bool
	}](t, r.waitReports("other-loaded", 1, 20*time.Second)[0].Data)
	if !rep.Posted {
		t.Fatalf("the other-origin page could not even post its message; the test proves nothing")
	}
	if rep.Injected {
		t.Fatalf("the user script was injected into the other origin %s; want it only on %s", other, page.URL())
	}
	// Go back to the allowed page and wait for its event: anything the other origin sent
	// would have been processed before it, on the same ordered channel.
	r.post("/exec", fmt.Sprintf("location.href = %q", page.URL()))
	r.waitEvents("from-page", 2, 20*time.Second)
	if got := r.events("from-other-origin"); len(got) != 0 {
		t.Fatalf("an event from %s reached Go: %+v; want it dropped", other, got)
	}
	// The guard in front of Wails' handler drops it, before Wails' own origin check.
	if out := r.app.Output(); !strings.Contains(out, "page message dropped before Wails") || !strings.Contains(out, "origin=http://localhost:"+port) {
		t.Fatalf("want the guard to log the dropped message and its origin; output:\n%s", out)
	}
}

func TestExecJSRoundTripsHostileText(t *testing.T) {
	page := newTestPage(t, "127.0.0.1:0")
	r := startShell(t, page, "")
	r.waitEvents("from-page", 1, 30*time.Second)

	hostile := []string{
		`"); alert(1); ("`,
		`'; window.pwned = 1; '`,
		"</script><script>window.pwned=1</script>",
		"back\\slash \\\" \\u0041 ${x} `tpl`",
		"line\nbreak\r\n\ttab \u2028 \u2029 sep",
		"emoji 😀👍🏽 CJK 日本語 RTL مرحبا combining é",
		"[clanker] quoted 'single' \"double\"",
	}
	for i, text := range hostile {
		r.post("/echo", text)
		got := r.waitEvents("echo", i+1, 10*time.Second)[i]
		if got.Text != text {
			t.Fatalf("echo %d: page handed back %q, want %q", i, got.Text, text)
		}
		seen := decode[struct{ Text string }](t, r.waitReports("echo", i+1, 10*time.Second)[i].Data)
		if seen.Text != text {
			t.Fatalf("echo %d: page received %q, want %q", i, seen.Text, text)
		}
	}
	r.post("/exec", `report('pwned-check', {pwned: !!window.pwned})`)
	if p := decode[struct{ Pwned bool }](t, r.waitReports("pwned-check", 1, 10*time.Second)[0].Data); p.Pwned {
		t.Fatalf("hostile text executed as code in the page")
	}
}

// focusBox focuses the compose box through script, as the bridge would.
func focusBox(r *shellRun) {
	r.post("/exec", `document.getElementById('box').value=''; document.getElementById('box').focus();`)
}

// insertText empties and focuses the box, then inserts text as the bridge does
// (execCommand insertText), and waits for the page's nth report that it did.
func insertText(r *shellRun, text string, nth int) {
	r.t.Helper()
	focusBox(r)
	lit, err := json.Marshal(text)
	if err != nil {
		r.t.Fatal(err)
	}
	r.post("/exec", "window.__insertText("+string(lit)+");")
	got := decode[struct{ Text string }](r.t, r.waitReports("inserted", nth, 10*time.Second)[nth-1].Data)
	if got.Text != text {
		r.t.Fatalf("the box holds %q after inserting %q", got.Text, text)
	}
}

func TestNativeInputIsTrustedWhileVisibleAndHidden(t *testing.T) {
	page := newTestPage(t, "127.0.0.1:0")
	r := startShell(t, page, "")
	r.waitEvents("from-page", 1, 30*time.Second)

	// A script-made Enter is ignored by the page: the page really checks isTrusted.
	focusBox(r)
	r.post("/exec", `document.getElementById('box').dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}))`)
	r.waitReports("ignored-untrusted-enter", 1, 10*time.Second)

	// The text goes in as the bridge inserts it; the Enter that sends it must be native.
	text := "Hello, wörld! ✓ 😀 日本 [clanker]"
	insertText(r, text, 1)
	probe := len(page.Reports("box-event")) // earlier events include the script-made Enter, untrusted on purpose
	r.post("/enter", "")
	sent := decode[struct {
		Text   string
		Hidden bool
	}](t, r.waitReports("sent", 1, 15*time.Second)[0].Data)
	if sent.Text != text {
		t.Fatalf("visible window: page sent %q, want the inserted %q", sent.Text, text)
	}
	// The key events are reported on their own requests, which may arrive after "sent".
	testkit.WaitFor(t, 10*time.Second, "the page to report the native Enter", func() (bool, string) {
		enters := 0
		for _, rep := range page.Reports("box-event")[probe:] {
			ev := decode[struct {
				Type    string
				Key     string
				Trusted bool
			}](t, rep.Data)
			if ev.Type != "keydown" && ev.Type != "keyup" {
				continue
			}
			if !ev.Trusted {
				t.Fatalf("the page saw an untrusted %s event from native input: %s", ev.Type, rep.Data)
			}
			if ev.Type == "keydown" && ev.Key == "Enter" {
				enters++
			}
		}
		return enters == 1, fmt.Sprintf("%d trusted Enter key presses", enters)
	})

	r.post("/hide", "")
	testkit.WaitFor(t, 10*time.Second, "the page to see itself hidden (visibilitychange)", func() (bool, string) {
		reps := page.Reports("visibility")
		return len(reps) > 0 && decode[struct{ Hidden bool }](t, reps[len(reps)-1].Data).Hidden, fmt.Sprintf("%d visibility reports", len(reps))
	})
	insertText(r, "while hidden", 2)
	r.post("/enter", "")
	hidden := decode[struct {
		Text   string
		Hidden bool
	}](t, r.waitReports("sent", 2, 15*time.Second)[1].Data)
	if hidden.Text != "while hidden" {
		t.Fatalf("hidden window: page sent %q, want %q", hidden.Text, "while hidden")
	}
	r.post("/show", "")
}

func TestPopupOpensWithSharedSessionAndClosesItself(t *testing.T) {
	page := newTestPage(t, "127.0.0.1:0")
	r := startShell(t, page, "")
	r.waitEvents("from-page", 1, 30*time.Second)

	// A trusted Enter on the focused button clicks it: a real user gesture opens the popup.
	r.post("/exec", `document.getElementById('signin').focus()`)
	r.post("/enter", "")
	r.waitReports("popup-requested", 1, 10*time.Second)
	loaded := decode[struct {
		HasOpener bool
		Cookie    string
	}](t, r.waitReports("popup-loaded", 1, 15*time.Second)[0].Data)
	if !loaded.HasOpener || !strings.Contains(loaded.Cookie, "session=s3cret") {
		t.Fatalf("popup: opener=%v cookie=%q; want window.opener and the main window's session cookie", loaded.HasOpener, loaded.Cookie)
	}
	msg := decode[struct{ Data string }](t, r.waitReports("opener-message", 1, 10*time.Second)[0].Data)
	if msg.Data != "signed-in" {
		t.Fatalf("main page got %q from the popup, want %q", msg.Data, "signed-in")
	}
	testkit.WaitFor(t, 10*time.Second, "the popup window to close itself", func() (bool, string) {
		st := r.state()
		return st.OpenPopups == 0 && strings.Join(st.Popups, ",") == "created,shown,closed",
			fmt.Sprintf("open=%d lifecycle=%v", st.OpenPopups, st.Popups)
	})
	// The popup shares the main view's user scripts (WebKit related view); the guard keeps
	// the bridge out of it.
	if runs := len(r.events("script-ran")); runs != 1 {
		t.Fatalf("user script ran %d times; want once (main page only, not in the popup)", runs)
	}

	// A popup for an origin not on the list opens outside the app, not in a child window.
	r.post("/exec", `document.getElementById('external').focus()`)
	r.post("/enter", "")
	r.waitReports("external-requested", 1, 10*time.Second)
	_, port, _ := net.SplitHostPort(page.Addr)
	want := "http://localhost:" + port + "/other"
	testkit.WaitFor(t, 10*time.Second, "the other-origin popup to go to OpenExternal", func() (bool, string) {
		st := r.state()
		return len(st.External) == 1 && st.External[0] == want, fmt.Sprintf("external=%v popups=%v", st.External, st.Popups)
	})
	if st := r.state(); len(st.Popups) != 3 || len(page.Reports("other-loaded")) != 0 {
		t.Fatalf("other-origin popup: lifecycle %v, other page loads %d; want no in-app window and no load", st.Popups, len(page.Reports("other-loaded")))
	}
}

func TestUserAgentIsABrowserWithoutWailsSuffix(t *testing.T) {
	page := newTestPage(t, "127.0.0.1:0")
	r := startShell(t, page, "")
	ev := r.waitEvents("script-ran", 1, 30*time.Second)[0]
	var header string
	for _, rep := range page.Reports("http-get") {
		header = rep.UserAgent
	}
	for _, ua := range []string{ev.UA, header} {
		if strings.Contains(strings.ToLower(ua), "wails") || ua != window.DefaultUserAgent {
			t.Fatalf("user agent %q: want the desktop browser user agent %q, without wails.io", ua, window.DefaultUserAgent)
		}
	}
	t.Logf("user agent: %s", ev.UA)
}

func TestBootstrapShowsRetryWhenTargetIsDownAndLoadsItAfterRetry(t *testing.T) {
	needDisplay(t)
	// Reserve a port, then free it: the target is down at start.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	target := "http://" + addr + "/app/"
	r := startShell(t, nil, target)

	testkit.WaitFor(t, 30*time.Second, "the offline page after the failed load", func() (bool, string) {
		st := r.state()
		failed, offline := false, false
		for _, l := range st.Loads {
			failed = failed || (l.Failed && l.URL == target)
			offline = offline || (l.Finished && strings.HasPrefix(l.URL, "wails://wails/?offline="))
		}
		return failed && offline && strings.Contains(r.app.Output(), "state=offline"),
			fmt.Sprintf("loads=%+v", st.Loads)
	})
	if err := display.Screenshot(filepath.Join(ArtifactsDir(), "desktop-offline.png")); err != nil {
		t.Errorf("screenshot of the offline page: %v", err)
	}
	if n := len(r.events("")); n != 0 {
		t.Fatalf("the offline page must not produce page events; got %d", n)
	}

	page := newTestPage(t, addr)
	r.page = page
	// Retry has the focus: a trusted Enter presses it.
	r.post("/enter", "")
	r.waitEvents("script-ran", 1, 20*time.Second)
	r.waitReports("app-loaded", 1, 10*time.Second)
}

func TestWebProcessCrashReloadsThePage(t *testing.T) {
	page := newTestPage(t, "127.0.0.1:0")
	r := startShell(t, page, "")
	r.waitEvents("script-ran", 1, 30*time.Second)
	pid := r.state().PID
	procs := Descendants(pid, "WebKitWebProces") // comm is cut to 15 bytes
	if len(procs) == 0 {
		t.Fatalf("no WebKitWebProcess found under the app (pid %d)", pid)
	}
	for _, p := range procs {
		if err := killPID(p); err != nil {
			t.Fatalf("kill web process %d: %v", p, err)
		}
	}
	r.waitEvents("script-ran", 2, 20*time.Second)
	if !strings.Contains(r.app.Output(), "web process ended; reloading") {
		t.Fatalf("want the shell to log the crash and reload; output:\n%s", r.app.Output())
	}
}

func TestWindowGeometryIsRestoredAndReported(t *testing.T) {
	page := newTestPage(t, "127.0.0.1:0")
	r := startShell(t, page, "", "-geometry", "60,40,900,700")
	r.waitEvents("from-page", 1, 30*time.Second)
	testkit.WaitFor(t, 10*time.Second, "the remembered geometry to be applied and reported", func() (bool, string) {
		st := r.state()
		if len(st.Geometry) == 0 {
			return false, "no geometry reported"
		}
		g := st.Geometry[len(st.Geometry)-1]
		return g.Width == 900 && g.Height == 700 && g.X == 60 && g.Y == 40, fmt.Sprintf("reported %+v", st.Geometry)
	})
}

// TestMainWindowScreenshotAndFootprint keeps a screenshot of the main window as an
// artifact and records start-up time to page-ready (the user script's first event in Go)
// and the resident memory of the app and its WebKit processes. The numbers are reported,
// not asserted: timing on a shared 2-core machine is not a pass/fail signal.
func TestMainWindowScreenshotAndFootprint(t *testing.T) {
	page := newTestPage(t, "127.0.0.1:0")
	r := startShell(t, page, "")
	r.waitEvents("script-ran", 1, 30*time.Second)
	ready := time.Since(r.app.Started)
	// The screenshot shows a reply in the box, inserted as the bridge inserts it.
	insertText(r, "[clanker] hello from the shell test", 1)

	shot := filepath.Join(ArtifactsDir(), "desktop-shell.png")
	if err := display.Screenshot(shot); err != nil {
		t.Fatal(err)
	}
	assertBusyPNG(t, shot)

	rss, err := ProcessTreeRSS(r.state().PID)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, kb := range rss {
		total += kb
	}
	if rss["shellapp"] == 0 || total == rss["shellapp"] {
		t.Fatalf("RSS by process %v: want the app and its WebKit processes", rss)
	}
	metrics := map[string]any{
		"startup_to_page_ready_ms": ready.Milliseconds(),
		"rss_kib_by_process":       rss,
		"rss_kib_total":            total,
		"note":                     "includes the first-run cost of a fresh HOME; WebKit GPU policy Never; Xvfb",
	}
	b, _ := json.MarshalIndent(metrics, "", "  ")
	if err := os.WriteFile(filepath.Join(ArtifactsDir(), "desktop-shell-metrics.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("start-up to page-ready %v; RSS %s", ready.Round(time.Millisecond), b)
}
