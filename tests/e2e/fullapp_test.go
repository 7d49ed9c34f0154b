//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/app/desktop/menus"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/run/testctl"
	"github.com/clanker-desktop/clanker/build/icons"
	"github.com/clanker-desktop/clanker/tests/fakellm"
	"github.com/clanker-desktop/clanker/tests/simctl"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// fullApp is one run of the real clanker binary against the simulator and the fake
// model, both served from this test process on loopback.
type fullApp struct {
	t       testing.TB
	app     *App
	bin     string
	dataDir string
	sim     *simctl.Server
	ctl     *simctl.Control
	llm     *fakellm.Server
	url     string
	token   string
	tray    *trayClient
	notes   *notifyServer
}

func startFullApp(t *testing.T) *fullApp {
	t.Helper()
	needDisplay(t)
	f := newFullApp(t)
	// A desktop with a tray host and a notification service, as the app finds them on
	// the session bus at start.
	f.launchWithTray(t)
	return f
}

// launchWithTray starts the app on a desktop with a tray host and a notification service,
// as it finds them on the session bus at start, and waits for its tray menu.
func (f *fullApp) launchWithTray(t *testing.T) {
	t.Helper()
	watcher, conn := startWatcher(t)
	f.notes = startNotifyServer(t)
	f.launch()
	testkit.WaitFor(t, 30*time.Second, "the app's tray to register with the StatusNotifierWatcher", func() (bool, string) {
		items := watcher.registered()
		if len(items) == 0 {
			return false, "nothing registered"
		}
		f.tray = &trayClient{t: t, conn: conn, name: items[len(items)-1]}
		return true, ""
	})
	testkit.WaitFor(t, 30*time.Second, "the tray menu to be built", func() (bool, string) {
		_, ok := f.tray.layout().find("Quit")
		return ok, fmt.Sprintf("labels %q", f.tray.layout().labels())
	})
}

// newFullApp starts the simulator and the fake model and builds the binary; launch
// starts the app on them.
func newFullApp(tb testing.TB) *fullApp {
	tb.Helper()
	s, err := simctl.Start(sim.Options{Seed: 7})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	llm, _ := fakellm.StartNew(fakellm.Config{})
	tb.Cleanup(llm.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin, err := Build(ctx, "github.com/clanker-desktop/clanker", binDir)
	if err != nil {
		tb.Fatal(err)
	}
	return &fullApp{t: tb, bin: bin, dataDir: tb.TempDir(), sim: s, ctl: s.Control(), llm: llm}
}

// launch starts the real binary on the data directory, the simulator and its sign-in
// origin, with the test control, and waits until the control answers.
func (f *fullApp) launch(extra ...string) {
	f.t.Helper()
	f.app = StartApp(f.t, display, f.bin, 60*time.Second, append([]string{
		"--data-dir", f.dataDir, "--no-keychain", "--messages-url", f.sim.AppURL(),
		"--popup-origin", f.sim.AccountsURL(), "--test-control", "{ready}", "-v"}, extra...)...)
	parts := strings.Fields(f.app.Control)
	if len(parts) != 2 {
		f.t.Fatalf("test control file holds %q, want URL and token", f.app.Control)
	}
	f.url, f.token = parts[0], parts[1]
}

// closeSettingsWindows ends the settings processes the app started (they are its
// children, named like it) and waits for their windows to go.
func (f *fullApp) closeSettingsWindows() {
	f.t.Helper()
	for _, pid := range Descendants(f.app.Cmd.Process.Pid, "clanker") {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	testkit.WaitFor(f.t, 20*time.Second, "the settings window to close", func() (bool, string) {
		return !windowVisible("Clanker settings"), "still visible"
	})
	f.front()
}

// shown shows the main window and waits until it is shown with no unread messages. In
// the full sequence the X server without a window manager does not always hand the
// focus back to the main window after another client's window had it, so this does
// not wait for the focus.
func (f *fullApp) shown() {
	f.t.Helper()
	f.post("/show")
	testkit.WaitFor(f.t, 20*time.Second, "the main window shown", func() (bool, string) {
		st := f.status()
		return !st.Hidden && st.Unread == 0, fmt.Sprintf("%+v", st)
	})
}

// front brings the main window to the front as a user would and waits until it has the
// focus and the unread count is cleared. Without a window manager nothing gives the focus
// back to the main window once another window (settings, a sign-in popup) closes, and
// messages that come while it is not in front count as unread and badge the tray icon.
func (f *fullApp) front() {
	f.t.Helper()
	f.post("/show")
	testkit.WaitFor(f.t, 20*time.Second, "the main window back in front", func() (bool, string) {
		st := f.status()
		return st.Focused && st.Unread == 0, fmt.Sprintf("%+v", st)
	})
}

func (f *fullApp) request(method, path string) (*http.Response, error) {
	req, err := http.NewRequest(method, f.url+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-Clanker-Token", f.token)
	return http.DefaultClient.Do(req)
}

func (f *fullApp) status() testctl.Status {
	f.t.Helper()
	resp, err := f.request("GET", "/status")
	if err != nil {
		f.t.Fatalf("app status: %v\n%s", err, f.app.Output())
	}
	defer resp.Body.Close()
	var st testctl.Status
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		f.t.Fatalf("decode app status: %v", err)
	}
	return st
}

// postBody posts body to the test control.
func (f *fullApp) postBody(path, body string) {
	f.t.Helper()
	req, err := http.NewRequest("POST", f.url+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("X-Clanker-Token", f.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatalf("POST %s: %v", path, err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		f.t.Fatalf("POST %s: %s", path, resp.Status)
	}
}

func (f *fullApp) post(path string) {
	f.t.Helper()
	resp, err := f.request("POST", path)
	if err != nil {
		f.t.Fatalf("POST %s: %v", path, err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		f.t.Fatalf("POST %s: %s", path, resp.Status)
	}
}

// config runs `clanker config ...` as its own process on the app's data directory.
func (f *fullApp) config(stdin string, args ...string) {
	f.t.Helper()
	cmd := exec.Command(f.bin, append([]string{"--data-dir", f.dataDir, "--no-keychain", "config"}, args...)...)
	cmd.Env = display.Env(f.t.TempDir())
	cmd.Stdin = strings.NewReader(stdin)
	if out, err := cmd.CombinedOutput(); err != nil {
		f.t.Fatalf("clanker config %v: %v\n%s", args, err, out)
	}
}

func (f *fullApp) conversation(name string) string {
	f.t.Helper()
	c, err := f.ctl.ConversationByName(name)
	if err != nil {
		f.t.Fatalf("simulator conversation %q: %v", name, err)
	}
	return c.ID
}

// open clicks a conversation in the sidebar and waits until the app sees it settled.
func (f *fullApp) open(id string) {
	f.t.Helper()
	testkit.WaitFor(f.t, 30*time.Second, "the simulator page to connect", func() (bool, string) {
		st, err := f.ctl.Status()
		return err == nil && st.Pages > 0, fmt.Sprintf("%+v %v", st, err)
	})
	if err := f.ctl.ClickConversation(id); err != nil {
		f.t.Fatalf("click conversation: %v", err)
	}
	// Until the bridge has settled on the conversation, what arrives in it belongs to the rows
	// it reports as already there, not to its new messages: a test that goes on at once (a
	// message delivered, a notification awaited) would race the settling.
	testkit.WaitFor(f.t, 30*time.Second, "the app to show conversation "+id+" and the engine to settle on it", func() (bool, string) {
		st := f.status()
		return st.Current == id && st.EngineOn == id && st.PageState == "conversation", fmt.Sprintf("%+v", st)
	})
}

// sends returns the simulator's accepted sends in conv whose text starts with prefix.
func (f *fullApp) sends(conv, prefix string) []sim.Send {
	f.t.Helper()
	all, err := f.ctl.Sent()
	if err != nil {
		f.t.Fatalf("simulator sends: %v", err)
	}
	var out []sim.Send
	for _, s := range all {
		if (conv == "" || s.Conversation == conv) && strings.HasPrefix(s.Text, prefix) {
			out = append(out, s)
		}
	}
	return out
}

func (f *fullApp) waitSent(conv, text string) sim.Send {
	f.t.Helper()
	var got sim.Send
	testkit.WaitFor(f.t, 60*time.Second, fmt.Sprintf("%q to be sent in %s", text, conv), func() (bool, string) {
		ss := f.sends(conv, text)
		if len(ss) == 0 {
			all, _ := f.ctl.Sent()
			return false, fmt.Sprintf("sent so far: %+v; app: %+v", all, f.status())
		}
		got = ss[0]
		return true, ""
	})
	if !got.Trusted || got.Via != "enter" {
		f.t.Fatalf("send %q was trusted=%v via %q; want a trusted Enter", got.Text, got.Trusted, got.Via)
	}
	return got
}

func (f *fullApp) noUntrustedInput() {
	f.t.Helper()
	rej, err := f.ctl.Rejected()
	if err != nil {
		f.t.Fatal(err)
	}
	if len(rej) != 0 {
		f.t.Fatalf("the simulator recorded %d untrusted send attempts, want none: %+v", len(rej), rej)
	}
}

// windowGeometry is the main window's position and size on the X screen.
func windowGeometry(t testing.TB, title string) (x, y, w, h int) {
	t.Helper()
	var out []byte
	testkit.WaitFor(t, 10*time.Second, "the window "+title+" to be visible", func() (bool, string) {
		cmd := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^"+title+"$", "getwindowgeometry", "--shell")
		cmd.Env = []string{"DISPLAY=" + display.Name}
		var err error
		out, err = cmd.Output()
		return err == nil && strings.Contains(string(out), "WIDTH="), string(out)
	})
	vals := map[string]int{}
	for _, line := range strings.Fields(string(out)) {
		if k, v, ok := strings.Cut(line, "="); ok {
			vals[k], _ = strconv.Atoi(v)
		}
	}
	return vals["X"], vals["Y"], vals["WIDTH"], vals["HEIGHT"]
}

func click(t testing.TB, x, y int) {
	t.Helper()
	cmd := exec.Command("xdotool", "mousemove", strconv.Itoa(x), strconv.Itoa(y), "click", "1")
	cmd.Env = []string{"DISPLAY=" + display.Name}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xdotool click: %v: %s", err, out)
	}
}

// pillMenu picks a mode in the bridge's status pill with real (trusted) mouse clicks:
// the pill sits 16 px from the bottom left; its menu opens above it with Deactivated,
// Available, Active and Settings... from top to bottom, each about 31 px high.
func (f *fullApp) pillMenu(choice string) {
	f.t.Helper()
	f.pillMenuOf("Clanker", "pill-menu-failed.png", choice)
}

// pillMenuOf is pillMenu for the window with the given title; a failure leaves a
// screenshot named shot in the artifacts folder.
func (f *fullApp) pillMenuOf(title, shot, choice string) {
	f.t.Helper()
	x, y, _, h := windowGeometry(f.t, title)
	fromBottom := map[string]float64{"settings": 0.5, "active": 1.5, "available": 2.5, "deactivated": 3.5}[choice]
	// The pill is redrawn when the conversation settles; a click racing that redraw is
	// lost, so try again (a few times at most) until the app reports the mode.
	for attempt := 1; ; attempt++ {
		click(f.t, x+50, y+h-28)
		click(f.t, x+60, y+h-52-int(fromBottom*31))
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if f.status().Mode == choice {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		if attempt == 3 {
			_ = display.Screenshot(filepath.Join(ArtifactsDir(), shot))
			f.t.Fatalf("choosing %s in the status pill of %q did not take after %d attempts: %+v", choice, title, attempt, f.status())
		}
	}
}

// pressSignIn presses the pairing page's "Sign in with Google" with real keys: a click on
// an empty part of the page gives it the focus, Tab reaches the button (the first
// focusable element) and Enter activates it. The page may only open the popup from a
// user gesture, as a real user's.
func (f *fullApp) pressSignIn() {
	f.t.Helper()
	x, y, w, h := windowGeometry(f.t, "Clanker")
	click(f.t, x+w-40, y+h/2)
	key := exec.Command("xdotool", "key", "Tab", "Return")
	key.Env = []string{"DISPLAY=" + display.Name}
	if out, err := key.CombinedOutput(); err != nil {
		f.t.Fatalf("xdotool key Tab Return: %v: %s", err, out)
	}
}

func originOfURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Scheme + "://" + u.Host
}

func (f *fullApp) waitMode(mode string) {
	f.t.Helper()
	testkit.WaitFor(f.t, 30*time.Second, "mode "+mode, func() (bool, string) {
		st := f.status()
		return st.Mode == mode, fmt.Sprintf("%+v", st)
	})
}

// waitQuiet waits until the engine has nothing in flight and nothing to send.
func (f *fullApp) waitQuiet() {
	f.t.Helper()
	testkit.WaitFor(f.t, 60*time.Second, "the app to finish sending", func() (bool, string) {
		st := f.status()
		return !st.InFlight && !st.Sending && st.QueuedSends == 0, fmt.Sprintf("%+v", st)
	})
}

func requestText(r fakellm.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Text())
		b.WriteByte('\n')
	}
	b.WriteString(r.Instructions)
	return b.String()
}

// TestFullApp runs the real binary through the scenarios of the full-app proof in order,
// on one app run (a fresh start for each would cost the package minutes).
func TestFullApp(t *testing.T) {
	needDisplay(t)
	// Every way a program opens a URL in the browser (xdg-open and the fallbacks Wails'
	// browser package tries) is a stand-in that writes the URL to browserLog.
	fake := t.TempDir()
	browserLog := filepath.Join(fake, "opened")
	for _, name := range []string{"xdg-open", "x-www-browser", "www-browser", "sensible-browser"} {
		script := "#!/bin/sh\necho \"$@\" >> '" + browserLog + "'\n"
		if err := os.WriteFile(filepath.Join(fake, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", fake+string(os.PathListSeparator)+os.Getenv("PATH"))
	f := startFullApp(t)
	bob := f.conversation(sim.DemoBob)
	jane := f.conversation(sim.DemoJane)

	if !t.Run("FreshDataDirShowsUninitializedBannerAndConfigSetCompletesSetupLive", func(t *testing.T) {
		f.t = t
		testkit.WaitFor(t, 60*time.Second, "the first-run banner: one sentence naming what is missing, for the open settings window", func() (bool, string) {
			st := f.status()
			return st.Banner == "To start, Clanker needs the endpoint, an API key, a model and your name: enter them in the settings window." && !st.Configured, fmt.Sprintf("%+v", st)
		})
		// On first run with missing settings the settings window opens by itself.
		testkit.WaitFor(t, 60*time.Second, "the settings window to open by itself", func() (bool, string) {
			return windowVisible("Clanker settings"), "no visible window titled Clanker settings"
		})
		f.closeSettingsWindows()
		f.open(bob)
		f.waitMode(string(engine.ModeUninitialized))
		f.config("", "set", "endpoint", f.llm.BaseURL())
		f.config("", "set", "model", "fake-model")
		f.config("", "set", "user_name", "Sam")
		f.config("sk-e2e-key-0123456789abcdef\n", "set", "api_key", "-")
		testkit.WaitFor(t, 10*time.Second, "the running app to pick up the settings", func() (bool, string) {
			st := f.status()
			return st.Configured && !strings.Contains(st.Banner, "not set up") && !strings.Contains(st.Banner, "settings window") &&
				st.Mode == "deactivated", fmt.Sprintf("%+v", st)
		})
	}) {
		return
	}

	if !t.Run("AvailableChosenInThePillSendsTheAnnouncement", func(t *testing.T) {
		f.t = t
		f.pillMenu("available")
		f.waitMode("available")
		f.waitSent(bob, engine.AvailableText)
		f.waitQuiet()
		f.noUntrustedInput()
	}) {
		return
	}

	if !t.Run("RemoteMentionGetsATypedReplySentByTrustedEnter", func(t *testing.T) {
		f.t = t
		before, err := f.ctl.Messages(bob)
		if err != nil {
			t.Fatal(err)
		}
		earlier := ""
		for _, m := range before {
			if m.From == "Bob" && m.Text != "" {
				earlier = m.Text
			}
		}
		n := len(f.llm.Requests())
		steps := f.status().Commands["type_step"]
		f.llm.Enqueue(fakellm.JSONReply("Hi Bob, the fake model heard you loud and clear.", "Bob said hi."))
		if _, err := f.ctl.Deliver(bob, sim.Message{From: "Bob", Text: "hey clanker, are you there?"}); err != nil {
			t.Fatal(err)
		}
		reqs, err := f.llm.WaitForRequests(n+1, 60*time.Second)
		if err != nil {
			t.Fatalf("the model was not asked: %v", err)
		}
		text := requestText(reqs[n])
		for _, want := range []string{"hey clanker, are you there?", earlier, "Sam"} {
			if !strings.Contains(text, want) {
				t.Errorf("the model's request lacks %q; it was:\n%s", want, text)
			}
		}
		if key := reqs[n].APIKey(); key != "sk-e2e-key-0123456789abcdef" {
			t.Errorf("the model got API key %q, want the one set with config set", key)
		}
		f.waitSent(bob, "[clanker] Hi Bob, the fake model heard you loud and clear.")
		typed := f.status().Commands["type_step"] - steps
		if typed < 20 {
			t.Errorf("the reply was typed in %d steps, want one per character (at least 20)", typed)
		}
		f.waitQuiet()
		f.noUntrustedInput()
		if err := display.Screenshot(filepath.Join(ArtifactsDir(), "demo-reply.png")); err != nil {
			t.Logf("screenshot: %v", err)
		}
	}) {
		return
	}

	if !t.Run("ReplyWaitsForTheUsersDraftAndLeavesItAlone", func(t *testing.T) {
		f.t = t
		if err := f.ctl.UserTypesDraft("my own words"); err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, 20*time.Second, "the app to see the draft", func() (bool, string) {
			st := f.status()
			return st.Draft, fmt.Sprintf("%+v", st)
		})
		f.llm.Enqueue(fakellm.JSONReply("Answer held behind your draft.", "Bob asked again."))
		if _, err := f.ctl.Deliver(bob, sim.Message{From: "Bob", Text: "clanker, still there?"}); err != nil {
			t.Fatal(err)
		}
		// The engine holds the trigger (or its finished answer) while the draft is there.
		testkit.WaitFor(t, 30*time.Second, "the reply to be held behind the draft", func() (bool, string) {
			st := f.status()
			return (st.Pending || st.QueuedSends > 0) && !st.Sending && st.Draft, fmt.Sprintf("%+v", st)
		})
		// The wait is not silent: the tray says Clanker waits for the draft.
		f.tray.t = t
		testkit.WaitFor(t, 20*time.Second, "the tray to say Clanker waits for the draft", func() (bool, string) {
			l := f.tray.layout()
			line, ok := l.find(menus.WaitingSentence)
			return ok && !line.Enabled && f.status().Waiting, fmt.Sprintf("labels %q, status %+v", l.labels(), f.status())
		})
		if ss := f.sends(bob, "[clanker] Answer held"); len(ss) != 0 {
			t.Fatalf("the reply was sent while the user's draft was in the box: %+v", ss)
		}
		if ss := f.sends("", "my own words"); len(ss) != 0 {
			t.Fatalf("the user's draft was sent: %+v", ss)
		}
		// The user deletes the draft with real keys (the box still has focus).
		key := exec.Command("xdotool", "key", "ctrl+a", "BackSpace")
		key.Env = []string{"DISPLAY=" + display.Name}
		if out, err := key.CombinedOutput(); err != nil {
			t.Fatalf("xdotool: %v: %s", err, out)
		}
		f.waitSent(bob, "[clanker] Answer held behind your draft.")
		f.waitQuiet()
		if ss := f.sends("", "my own words"); len(ss) != 0 {
			t.Fatalf("the user's draft was sent: %+v", ss)
		}
		testkit.WaitFor(t, 20*time.Second, "the tray's waiting line to go once the answer is out", func() (bool, string) {
			l := f.tray.layout()
			_, shown := l.find(menus.WaitingSentence)
			return !shown && !f.status().Waiting, fmt.Sprintf("labels %q", l.labels())
		})
		f.noUntrustedInput()
	}) {
		return
	}

	if !t.Run("SwitchingConversationMidTypingSendsNothingToTheWrongOne", func(t *testing.T) {
		f.t = t
		story := "Once upon a time a small robot learned to wait for its turn, to read before it spoke, and never to type into the wrong chat."
		steps := f.status().Commands["type_step"]
		f.llm.Enqueue(fakellm.JSONReply(story, "Bob asked for a story."))
		if _, err := f.ctl.Deliver(bob, sim.Message{From: "Bob", Text: "clanker tell me a story"}); err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, 60*time.Second, "typing to start", func() (bool, string) {
			st := f.status()
			return st.Commands["type_step"]-steps >= 3, fmt.Sprintf("%+v", st)
		})
		f.open(jane)
		testkit.WaitFor(t, 30*time.Second, "the app to stop typing", func() (bool, string) {
			st := f.status()
			return !st.Sending, fmt.Sprintf("%+v", st)
		})
		if ss := f.sends(jane, "[clanker]"); len(ss) != 0 {
			t.Fatalf("Clanker sent into the conversation the user switched to: %+v", ss)
		}
		for _, s := range f.sends(bob, "[clanker] Once") {
			if s.Text != "[clanker] "+story {
				t.Fatalf("a partial reply was sent to Bob: %q", s.Text)
			}
		}
		f.noUntrustedInput()
	}) {
		return
	}

	// The user types while Clanker types (real X keys): Clanker stops at once and takes out only
	// its own text. Deleting the draft brings the whole reply; sending the draft instead sends
	// exactly the user's words and never Clanker's partial text, and Bob, who asked, still gets
	// his answer (issue 27.2: it used to be dropped with the stale held reply).
	for _, then := range []string{"clears", "sends"} {
		if !t.Run("UserTypingWhileClankerTypesKeepsTheirTextThen"+then, func(t *testing.T) {
			f.t = t
			f.open(bob)
			f.waitQuiet()
			story := "Tacos (" + then + ") started as a simple meal of folded tortillas and fillings, and every town has its own favourite way to make them."
			steps := f.status().Commands["type_step"]
			f.llm.Enqueue(fakellm.JSONReply(story, "Bob asked about tacos."))
			if _, err := f.ctl.Deliver(bob, sim.Message{From: "Bob", Text: "clanker, tell me about tacos (" + then + ")"}); err != nil {
				t.Fatal(err)
			}
			testkit.WaitFor(t, 60*time.Second, "typing to start", func() (bool, string) {
				st := f.status()
				return st.Commands["type_step"]-steps >= 3, fmt.Sprintf("%+v", st)
			})
			mine := "wait " + then
			typeKeys := exec.Command("xdotool", "type", "--delay", "40", mine)
			typeKeys.Env = []string{"DISPLAY=" + display.Name}
			if out, err := typeKeys.CombinedOutput(); err != nil {
				t.Fatalf("xdotool type: %v: %s", err, out)
			}
			testkit.WaitFor(t, 20*time.Second, "Clanker to stop typing and hold the reply behind the draft", func() (bool, string) {
				st := f.status()
				return !st.Sending && st.Draft && st.QueuedSends > 0, fmt.Sprintf("%+v", st)
			})
			stepsHeld := f.status().Commands["type_step"]
			time.Sleep(time.Second)
			if n := f.status().Commands["type_step"]; n != stepsHeld {
				t.Fatalf("Clanker typed %d more steps into the user's draft", n-stepsHeld)
			}
			if ss := f.sends(bob, "[clanker] Tacos ("+then); len(ss) != 0 {
				t.Fatalf("the reply was sent while the user was typing: %+v", ss)
			}
			if st := f.status(); strings.Contains(strings.ToLower(strings.Join(st.Notify, " ")), "user_typing") {
				t.Fatalf("the user was shown an error for typing: %+v", st.Notify)
			}
			if then == "clears" {
				key := exec.Command("xdotool", "key", "ctrl+a", "BackSpace")
				key.Env = []string{"DISPLAY=" + display.Name}
				if out, err := key.CombinedOutput(); err != nil {
					t.Fatalf("xdotool: %v: %s", err, out)
				}
				f.waitSent(bob, "[clanker] "+story)
				f.waitQuiet()
				if ss := f.sends(bob, "[clanker] Tacos ("+then); len(ss) != 1 {
					t.Fatalf("want the reply sent once, got %+v", ss)
				}
			} else {
				// The held reply is stale once the user's words are sent: Clanker asks again,
				// with them in view, and posts that answer.
				f.llm.Enqueue(fakellm.JSONReply(story, "Bob asked about tacos."))
				key := exec.Command("xdotool", "key", "Return")
				key.Env = []string{"DISPLAY=" + display.Name}
				if out, err := key.CombinedOutput(); err != nil {
					t.Fatalf("xdotool: %v: %s", err, out)
				}
				testkit.WaitFor(t, 20*time.Second, "the user's own message to be sent", func() (bool, string) {
					ss := f.sends(bob, mine)
					return len(ss) == 1, fmt.Sprintf("%+v", ss)
				})
				if ss := f.sends(bob, mine); ss[0].Text != mine {
					t.Fatalf("the user's message was sent as %q, want exactly %q", ss[0].Text, mine)
				}
				f.waitSent(bob, "[clanker] "+story)
				f.waitQuiet()
				ss := f.sends(bob, "[clanker] Tacos ("+then)
				if len(ss) != 1 || ss[0].Text != "[clanker] "+story {
					t.Fatalf("want Bob's question answered once, whole, after the user's message, got %+v", ss)
				}
			}
			f.noUntrustedInput()
		}) {
			return
		}
	}

	// Answers in flight for two conversations while the user hops through a third: each answer
	// waits for its own conversation and is posted there when the user comes back.
	if !t.Run("AnswersInFlightWhileHoppingAreEachPostedOnReturn", func(t *testing.T) {
		f.t = t
		family := f.conversation(sim.DemoFamily)
		f.open(family)
		f.pillMenu("available")
		f.waitMode("available")
		f.waitSent(family, engine.AvailableText)
		f.waitQuiet()
		f.open(bob)
		f.waitQuiet()
		reqs := len(f.llm.Requests())
		f.llm.Enqueue(fakellm.JSONReply("Answer for Bob.", "Bob asked.").WithLatency(8*time.Second),
			fakellm.JSONReply("Answer for the family.", "The family asked.").WithLatency(8*time.Second))
		if _, err := f.ctl.Deliver(bob, sim.Message{From: "Bob", Text: "clanker, a question for you"}); err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, 30*time.Second, "Bob's request to be in flight", func() (bool, string) {
			return len(f.llm.Requests()) > reqs, fmt.Sprintf("%+v", f.status())
		})
		f.open(family)
		if _, err := f.ctl.Deliver(family, sim.Message{From: "Mom", Text: "clanker, a question from us"}); err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, 60*time.Second, "the family's request to be in flight", func() (bool, string) {
			return len(f.llm.Requests()) > reqs+1, fmt.Sprintf("%+v", f.status())
		})
		f.open(jane)
		testkit.WaitFor(t, 60*time.Second, "both answers to arrive", func() (bool, string) {
			st := f.status()
			return !st.InFlight, fmt.Sprintf("%+v", st)
		})
		if ss := f.sends("", "[clanker] Answer for"); len(ss) != 0 {
			t.Fatalf("an answer was posted while its conversation was not on screen: %+v", ss)
		}
		f.open(bob)
		f.waitSent(bob, "[clanker] Answer for Bob.")
		f.waitQuiet()
		f.open(family)
		f.waitSent(family, "[clanker] Answer for the family.")
		f.waitQuiet()
		if ss := f.sends(jane, "[clanker] Answer for"); len(ss) != 0 {
			t.Fatalf("an answer was posted in the conversation the user hopped through: %+v", ss)
		}
		f.open(jane) // where the earlier steps left the user, as the next step expects
		f.waitQuiet()
		f.noUntrustedInput()
	}) {
		return
	}

	// Issue 32's soak: Bob's last decided message (the mention answered above) scrolls out of
	// the page's window while the user is elsewhere, and Bob asks the same thing again meanwhile.
	// Back in Bob's conversation the question is owed like any that came while away: neither
	// the decided point missing from the page nor the same words make it look decided.
	if !t.Run("AMentionThatCameWhileAwayIsAnsweredAfterMoreMessagesThanThePageShows", func(t *testing.T) {
		f.t = t
		for i := range 40 {
			if _, err := f.ctl.Deliver(bob, sim.Message{From: "Bob", Text: fmt.Sprintf("meanwhile %d", i)}); err != nil {
				t.Fatal(err)
			}
		}
		f.llm.Enqueue(fakellm.JSONReply("Answer for Bob, again.", "Bob asked again."))
		if _, err := f.ctl.Deliver(bob, sim.Message{From: "Bob", Text: "clanker, a question for you"}); err != nil {
			t.Fatal(err)
		}
		f.open(bob)
		f.waitSent(bob, "[clanker] Answer for Bob, again.")
		f.waitQuiet()
		f.open(jane)
		f.waitQuiet()
		f.noUntrustedInput()
	}) {
		return
	}

	if !t.Run("HiddenWindowInProcessModeAnswersABackgroundConversationAndReturns", func(t *testing.T) {
		f.t = t
		f.pillMenu("available")
		f.waitMode("available")
		f.waitSent(jane, engine.AvailableText)
		f.waitQuiet()
		f.open(bob)
		f.waitQuiet()
		f.config("", "set", "inactive_mode", "process")
		// The running app reads saved settings every 300 ms. Under the default policy
		// (ignore) a sidebar change is taken as the new baseline and never queued, so
		// the new message must not arrive before the policy is applied.
		testkit.WaitFor(t, 10*time.Second, "the app to apply inactive_mode=process", func() (bool, string) {
			st := f.status()
			return st.Inactive == "process", fmt.Sprintf("%+v", st)
		})
		f.post("/hide")
		testkit.WaitFor(t, 10*time.Second, "the window to hide", func() (bool, string) {
			return !windowVisible("Clanker"), "still visible"
		})
		f.llm.Enqueue(fakellm.JSONReply("Answered from the background.", "Jane pinged."))
		if _, err := f.ctl.Deliver(jane, sim.Message{From: "Jane Doe", Text: "hey clanker, ping from the background"}); err != nil {
			t.Fatal(err)
		}
		f.waitSent(jane, "[clanker] Answered from the background.")
		testkit.WaitFor(t, 60*time.Second, "the app to return to Bob", func() (bool, string) {
			st := f.status()
			return st.Current == bob && st.Visiting == "", fmt.Sprintf("%+v", st)
		})
		if st := f.status(); !st.Hidden || windowVisible("Clanker") {
			t.Fatalf("the window should have stayed hidden while the background conversation was answered; app %+v, visible %v", st, windowVisible("Clanker"))
		}
		f.noUntrustedInput()
		f.post("/show")
		testkit.WaitFor(t, 10*time.Second, "the window to show again", func() (bool, string) {
			return windowVisible("Clanker"), "hidden"
		})
	}) {
		return
	}

	if !t.Run("SignInPopupCompletesAndTheAppReturnsToMessages", func(t *testing.T) {
		f.t = t
		// Google signs the user out: the page re-renders as the pairing page, no reload.
		if err := f.ctl.SetVariant(sim.VariantSignedOut); err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, 30*time.Second, "the app to see the signed-out page and explain pairing", func() (bool, string) {
			st := f.status()
			return st.PageState == "signed_out" && st.Current == "" && strings.Contains(st.Banner, "Pair Messages for web with your phone"), fmt.Sprintf("%+v", st)
		})
		f.pressSignIn()
		// The popup signs in by itself, posts to its opener on the app origin and closes;
		// the page then loads the conversations, signed in.
		testkit.WaitFor(t, 60*time.Second, "sign-in through the popup and the popup to close", func() (bool, string) {
			sst, err := f.ctl.Status()
			st := f.status()
			return err == nil && sst.SignedIn && sst.SignInOrigin == originOfURL(f.sim.AccountsURL()) && st.Popups == 0 &&
					(st.PageState == "no_conversation" || st.PageState == "conversation") && !strings.Contains(st.Banner, "Pair Messages"),
				fmt.Sprintf("simulator %+v (err %v), app %+v", sst, err, st)
		})
		out := f.app.Output()
		for _, ev := range []string{"event=created", "event=shown", "event=closed"} {
			if !strings.Contains(out, `msg="sign-in popup" `+ev) {
				t.Errorf("the app did not log the popup's %s; its log:\n%s", ev, out)
			}
		}
		if err := f.ctl.SetVariant(); err != nil {
			t.Fatal(err)
		}
	}) {
		return
	}

	if !t.Run("PageTurningUnrecognisedWithoutReloadGetsTheWarningAndNoActionThenRecovers", func(t *testing.T) {
		f.t = t
		f.open(bob)
		f.waitMode("available")
		f.waitQuiet()
		sentBefore := len(f.sends("", ""))
		// Google re-renders the page into something unknown while it is open.
		if err := f.ctl.SetVariant(sim.VariantUnrecognised); err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, 20*time.Second, "the unrecognised warning without a reload", func() (bool, string) {
			st := f.status()
			return st.PageState == "unrecognised" && strings.Contains(st.Banner, "does not recognise"), fmt.Sprintf("%+v", st)
		})
		n := len(f.llm.Requests())
		if _, err := f.ctl.Deliver(bob, sim.Message{From: "Bob", Text: "clanker, did the page change?"}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.llm.WaitForRequests(n+1, 3*time.Second); err == nil {
			t.Fatal("the model was asked about a message on an unrecognised page")
		}
		if got := len(f.sends("", "")); got != sentBefore {
			t.Fatalf("%d messages were sent on an unrecognised page", got-sentBefore)
		}
		// The page comes back: the warning goes, the conversation settles afresh (the
		// message that came meanwhile is its baseline) and Clanker answers new ones.
		if err := f.ctl.SetVariant(); err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, 30*time.Second, "the page to be recognised again with Bob open", func() (bool, string) {
			st := f.status()
			return st.PageState == "conversation" && st.Current == bob && st.Mode == "available" &&
				!strings.Contains(st.Banner, "does not recognise"), fmt.Sprintf("%+v", st)
		})
		f.llm.Enqueue(fakellm.JSONReply("Back on a page I know.", "Bob checked on Clanker."))
		if _, err := f.ctl.Deliver(bob, sim.Message{From: "Bob", Text: "clanker, are you back?"}); err != nil {
			t.Fatal(err)
		}
		reqs, err := f.llm.WaitForRequests(n+1, 60*time.Second)
		if err != nil {
			t.Fatalf("the model was not asked after the page came back: %v", err)
		}
		if text := requestText(reqs[n]); !strings.Contains(text, "clanker, are you back?") {
			t.Errorf("the first request after the page came back lacks the new message; it was:\n%s", text)
		}
		f.waitSent(bob, "[clanker] Back on a page I know.")
		f.waitQuiet()
		if got := len(f.llm.Requests()); got != n+1 {
			t.Fatalf("the model was asked %d times after the page came back, want once (the message from the unrecognised time is baseline)", got-n)
		}
		f.noUntrustedInput()
	}) {
		return
	}

	if !t.Run("TrayModeItemsChangeTheForegroundConversationAndAnnounceIt", func(t *testing.T) {
		f.t = t
		f.tray.t = t
		// The icon checks below compare the icon without an unread badge.
		f.front()
		testkit.WaitFor(t, 20*time.Second, "the tray to show Bob as Available with the on icon", func() (bool, string) {
			l := f.tray.layout()
			a, _ := l.find("Available")
			return a.Checked && a.Enabled && f.tray.iconIs(icons.TrayOn), fmt.Sprintf("labels %q, Available %+v", l.labels(), a)
		})
		f.tray.click("Deactivated")
		f.waitMode("deactivated")
		f.waitSent(bob, engine.DeactivatedText)
		testkit.WaitFor(t, 20*time.Second, "the off icon and Deactivated checked", func() (bool, string) {
			d, _ := f.tray.layout().find("Deactivated")
			return d.Checked && f.tray.iconIs(icons.TrayOff), fmt.Sprintf("Deactivated %+v", d)
		})
		f.waitQuiet()
		before := len(f.sends(bob, engine.AvailableText))
		f.tray.click("Available")
		f.waitMode("available")
		testkit.WaitFor(t, 60*time.Second, "a new Available announcement in Bob's conversation", func() (bool, string) {
			n := len(f.sends(bob, engine.AvailableText))
			return n == before+1, fmt.Sprintf("%d announcements, had %d", n, before)
		})
		f.waitQuiet()
		f.noUntrustedInput()

		// Diagnostics > Show sanitised state opens the settings process on its
		// Diagnostics view (readable, with Copy), the text passed on stdin.
		loads := strings.Count(f.app.Output(), "settings page loaded its values")
		f.tray.click("Show sanitised state")
		testkit.WaitFor(t, 60*time.Second, "the diagnostics view in a settings process", func() (bool, string) {
			diag := false
			for _, pid := range Descendants(f.app.Cmd.Process.Pid, "clanker") {
				cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				diag = diag || strings.Contains(string(cmdline), "--show-diagnostics")
			}
			loaded := strings.Count(f.app.Output(), "settings page loaded its values") > loads
			return diag && loaded && windowVisible("Clanker settings"), fmt.Sprintf("diagnostics process %v, page loaded %v, window %v", diag, loaded, windowVisible("Clanker settings"))
		})
		f.closeSettingsWindows()
	}) {
		return
	}

	if !t.Run("IncomingMessagesNotifyWhenTheWindowIsNotInFrontAndAClickOpensTheirConversation", func(t *testing.T) {
		f.t = t
		f.tray.t = t
		// The defaults: incoming notifications on, with the text.
		f.config("", "set", "notifications.hide_content", "false")
		testkit.WaitFor(t, 10*time.Second, "the app to apply the notification settings", func() (bool, string) {
			st := f.status()
			return strings.Contains(strings.Join(st.Notify, ","), "incoming") && !strings.Contains(strings.Join(st.Notify, ","), "hide-content"), fmt.Sprintf("%+v", st)
		})
		f.open(bob)
		f.post("/show")
		testkit.WaitFor(t, 20*time.Second, "the window to be in front", func() (bool, string) {
			st := f.status()
			return st.Focused && !st.Hidden && st.Unread == 0, fmt.Sprintf("%+v", st)
		})
		fromJane := func(after int) []notifyCall {
			var out []notifyCall
			for _, c := range f.notes.calls()[after:] {
				if strings.Contains(c.Summary, "Jane") {
					out = append(out, c)
				}
			}
			return out
		}
		before := len(f.notes.calls())
		// In front: the message is on screen, in the sidebar; no notification.
		if _, err := f.ctl.Deliver(jane, sim.Message{From: sim.DemoJane, Text: "seen while in front"}); err != nil {
			t.Fatal(err)
		}
		// Behind another application: notified with sender and text, as a click target.
		other, err := OpenOtherWindow(display.Name)
		if err != nil {
			t.Fatal(err)
		}
		other.Focus()
		testkit.WaitFor(t, 20*time.Second, "the app to see its window lose the focus", func() (bool, string) {
			st := f.status()
			return !st.Focused, fmt.Sprintf("%+v", st)
		})
		if _, err := f.ctl.Deliver(jane, sim.Message{From: sim.DemoJane, Text: "tacos at 8 while you are busy"}); err != nil {
			t.Fatal(err)
		}
		var behind notifyCall
		testkit.WaitFor(t, 30*time.Second, "a notification for the message that came while the window was behind", func() (bool, string) {
			got := fromJane(before)
			if len(got) == 0 {
				return false, fmt.Sprintf("notifications %+v", f.notes.calls()[before:])
			}
			behind = got[len(got)-1]
			return true, ""
		})
		if got := fromJane(before); len(got) != 1 || !strings.Contains(got[0].Body, "tacos at 8") {
			t.Fatalf("notifications for Jane's two messages (one in front, one behind): %+v; want one, with the second message's text", got)
		}
		if len(behind.Actions) == 0 || behind.Actions[0] != "default" {
			t.Fatalf("the notification offers no click action: %+v", behind)
		}
		testkit.WaitFor(t, 10*time.Second, "the unread count on the tray", func() (bool, string) {
			title, _ := f.tray.prop("Title").Value().(string)
			st := f.status()
			return st.Unread == 1 && strings.Contains(title, "(1 unread)"), fmt.Sprintf("title %q, status %+v", title, st)
		})
		var pixmaps []pixmap
		_ = dbus.Store([]any{f.tray.prop("IconPixmap").Value()}, &pixmaps)
		if !hasBadgeRed(pixmaps) {
			t.Errorf("the tray icon carries no unread badge (no red pixels in %d pixmaps)", len(pixmaps))
		}
		// A click brings the window to the front on Jane's conversation.
		if err := f.notes.click(behind.ID); err != nil {
			t.Fatal(err)
		}
		// Without a window manager the X server may keep the focus on the other window
		// (a focus request can lose to an earlier one), so the focus itself is checked
		// once that window is gone.
		testkit.WaitFor(t, 30*time.Second, "the click to show the window on Jane's conversation", func() (bool, string) {
			st := f.status()
			return st.Current == jane && !st.Hidden && st.Unread == 0, fmt.Sprintf("%+v", st)
		})
		other.Close()
		f.shown()
		// Hidden in the tray: notified too.
		before = len(f.notes.calls())
		f.post("/hide")
		if _, err := f.ctl.Deliver(bob, sim.Message{From: sim.DemoBob, Text: "are you hiding?"}); err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, 30*time.Second, "a notification while hidden", func() (bool, string) {
			for _, c := range f.notes.calls()[before:] {
				if strings.Contains(c.Summary, "Bob") && strings.Contains(c.Body, "are you hiding?") {
					return true, ""
				}
			}
			return false, fmt.Sprintf("notifications %+v", f.notes.calls()[before:])
		})
		// The page asks for its own web notifications (the simulator does so at load and at
		// the first click, as Messages for web does); Clanker refuses them, so each message
		// has exactly one notification, Clanker's.
		f.post("/show")
		before = len(f.notes.calls())
		f.post("/hide")
		if _, err := f.ctl.Deliver(bob, sim.Message{From: sim.DemoBob, Text: "one message, one notification"}); err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, 30*time.Second, "the notification for the last message", func() (bool, string) {
			for _, c := range f.notes.calls()[before:] {
				if strings.Contains(c.Body, "one message, one notification") {
					return true, ""
				}
			}
			return false, fmt.Sprintf("notifications %+v", f.notes.calls()[before:])
		})
		// A second notification would come from the page's engine within moments of
		// Clanker's; the next message's notification bounds the wait.
		if _, err := f.ctl.Deliver(bob, sim.Message{From: sim.DemoBob, Text: "and a second one"}); err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, 30*time.Second, "the notification for the second message", func() (bool, string) {
			for _, c := range f.notes.calls()[before:] {
				if strings.Contains(c.Body, "and a second one") {
					return true, ""
				}
			}
			return false, fmt.Sprintf("notifications %+v", f.notes.calls()[before:])
		})
		var fromBob []notifyCall
		for _, c := range f.notes.calls()[before:] {
			if strings.Contains(c.Summary, "Bob") || c.App != "Clanker" {
				fromBob = append(fromBob, c)
			}
		}
		if len(fromBob) != 2 {
			t.Errorf("Bob's two messages while hidden gave %d notifications, want one each: %+v", len(fromBob), fromBob)
		}
		for _, c := range f.notes.calls() {
			if c.App != "Clanker" {
				t.Errorf("a notification not from Clanker reached the server (the page's own?): %+v", c)
			}
		}
		f.shown()
	}) {
		return
	}

	if !t.Run("SomeoneWritingForTheFirstTimeIsNotified", func(t *testing.T) {
		f.t = t
		f.tray.t = t
		f.open(bob)
		before := len(f.notes.calls())
		f.post("/hide")
		// A conversation the app never listed, with its first message: the page draws it
		// above the rows the app knows (both calls land within the bridge's 500 ms debounce,
		// so the row is new to the app as well as unread).
		zoe, err := f.ctl.CreateConversation(sim.NewConversation{Participants: []string{"Zoe Park"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.ctl.Deliver(zoe.ID, sim.Message{From: "Zoe Park", Text: "hi, it's Zoe from the climbing gym"}); err != nil {
			t.Fatal(err)
		}
		fromZoe := func() []notifyCall {
			var out []notifyCall
			for _, c := range f.notes.calls()[before:] {
				if strings.Contains(c.Summary, "Zoe Park") {
					out = append(out, c)
				}
			}
			return out
		}
		testkit.WaitFor(t, 30*time.Second, "a notification for the first-time writer", func() (bool, string) {
			return len(fromZoe()) > 0, fmt.Sprintf("notifications %+v", f.notes.calls()[before:])
		})
		// The next message bounds the wait for a second notification of the first one.
		if _, err := f.ctl.Deliver(zoe.ID, sim.Message{From: "Zoe Park", Text: "are you coming on Thursday?"}); err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, 30*time.Second, "a notification for Zoe's second message", func() (bool, string) {
			got := fromZoe()
			return len(got) > 0 && strings.Contains(got[len(got)-1].Body, "Thursday"), fmt.Sprintf("notifications %+v", got)
		})
		if got := fromZoe(); len(got) != 2 || !strings.Contains(got[0].Body, "climbing gym") || len(got[0].Actions) == 0 {
			t.Fatalf("notifications for Zoe's two messages: %+v; want one each, the first with its text and a click action", got)
		}
		f.shown()
	}) {
		return
	}

	if !t.Run("WhileHiddenAnErrorAndAnIncomingMessageReachTheNotificationServerWithoutContent", func(t *testing.T) {
		f.t = t
		f.tray.t = t
		f.config("", "set", "notifications.incoming_while_hidden", "true")
		f.config("", "set", "notifications.hide_content", "true")
		testkit.WaitFor(t, 10*time.Second, "the app to apply the notification settings", func() (bool, string) {
			st := f.status()
			return strings.Join(st.Notify, ",") == "errors,hide-content,incoming", fmt.Sprintf("%+v", st)
		})
		f.tray.click("Hide window")
		testkit.WaitFor(t, 10*time.Second, "the window to hide from the tray", func() (bool, string) {
			st := f.status()
			return st.Hidden && !windowVisible("Clanker"), fmt.Sprintf("%+v", st)
		})
		before := len(f.notes.calls())
		const secret = "hey clanker, the safe code is 4711"
		f.llm.Enqueue(fakellm.OpenAIError(401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided"))
		if _, err := f.ctl.Deliver(bob, sim.Message{From: "Bob", Text: secret}); err != nil {
			t.Fatal(err)
		}
		var incoming, failure *notifyCall
		testkit.WaitFor(t, 60*time.Second, "a message notification and an error notification", func() (bool, string) {
			calls := f.notes.calls()[before:]
			for i := range calls {
				c := calls[i]
				if c.Summary == "New message from Bob" {
					incoming = &c
				}
				if c.Urgency == 2 {
					failure = &c
				}
			}
			return incoming != nil && failure != nil, fmt.Sprintf("notifications %+v; app %+v", calls, f.status())
		})
		for _, c := range f.notes.calls() {
			if strings.Contains(c.Summary+c.Body, "4711") {
				t.Errorf("hide-content is on, but a notification carries the message text: %+v", c)
			}
		}
		if !strings.Contains(strings.ToLower(failure.Body), "key") {
			t.Errorf("the error notification should say the API key was refused; got %+v", *failure)
		}
		testkit.WaitFor(t, 10*time.Second, "the unread count in the tray title", func() (bool, string) {
			title, _ := f.tray.prop("Title").Value().(string)
			return strings.Contains(title, "(1 unread)"), fmt.Sprintf("title %q", title)
		})
		f.tray.click("Show window")
		testkit.WaitFor(t, 10*time.Second, "the window to show again from the tray", func() (bool, string) {
			st := f.status()
			return !st.Hidden && st.Unread == 0 && windowVisible("Clanker"), fmt.Sprintf("%+v", st)
		})
		if ss := f.sends(bob, "[clanker]"); len(ss) > 0 && strings.Contains(ss[len(ss)-1].Text, "4711") {
			t.Fatalf("a reply was sent although the model refused the key: %+v", ss[len(ss)-1])
		}
	}) {
		return
	}

	if !t.Run("FreedMemoryIsHandedBackOnceTheAppIsQuiet", func(t *testing.T) {
		f.t = t
		testkit.WaitFor(t, 60*time.Second, "no memory release due before the test's own activity", func() (bool, string) {
			st := f.status()
			return !st.MemoryReleaseDue, fmt.Sprintf("%+v", st)
		})
		st0 := f.status()
		before, beforePage := st0.MemoryReleases, st0.PageProcessReleases
		// Clicks in the page: its events are activity.
		f.open(f.conversation(sim.DemoJane))
		f.open(f.conversation(sim.DemoBob))
		testkit.WaitFor(t, 10*time.Second, "the page's events to make a release due", func() (bool, string) {
			st := f.status()
			return st.MemoryReleaseDue || st.MemoryReleases > before, fmt.Sprintf("%+v", st)
		})
		testkit.WaitFor(t, 60*time.Second, "the release 10 s after the activity stopped", func() (bool, string) {
			st := f.status()
			return st.MemoryReleases > before && !st.MemoryReleaseDue, fmt.Sprintf("%d releases, due %v", st.MemoryReleases, st.MemoryReleaseDue)
		})
		// The page's process took part: WebKit loaded the web-process extension from
		// beside the binary and it answered the release.
		testkit.WaitFor(t, 10*time.Second, "the page's process to answer the release", func() (bool, string) {
			st := f.status()
			return st.PageProcessReleases > beforePage, fmt.Sprintf("%d releases, %d answered by the page's process", st.MemoryReleases, st.PageProcessReleases)
		})
		if !mapsOf(t, f.app.Cmd.Process.Pid, "WebKitWebProces", "libclanker-webext.so") {
			t.Fatal("the page's process has not mapped libclanker-webext.so")
		}
	}) {
		return
	}

	if !t.Run("ADeepReleaseHandsBackCodeBothProcessesRanOnce", func(t *testing.T) {
		f.t = t
		// After a long quiet the idle release is deep (2 minutes; the test control runs it
		// at once): both processes have the kernel reclaim the resident pages of their
		// read-only file mappings, code that ran to start and to load the page.
		pid := f.app.Cmd.Process.Pid
		web := Descendants(pid, "WebKitWebProces")
		if len(web) != 1 {
			t.Fatalf("want the main window's web process alone, found %v", web)
		}
		f.open(f.conversation(sim.DemoJane))
		f.waitQuiet()
		winBefore, webBefore := residentReadOnlyFileMiB(t, pid), residentReadOnlyFileMiB(t, web[0])
		pageBefore := f.status().PageProcessReleases
		f.post("/release-memory?deep=1")
		testkit.WaitFor(t, 20*time.Second, "the page's process to answer the deep release", func() (bool, string) {
			st := f.status()
			return st.PageProcessReleases > pageBefore, fmt.Sprintf("%d answered", st.PageProcessReleases)
		})
		winAfter, webAfter := residentReadOnlyFileMiB(t, pid), residentReadOnlyFileMiB(t, web[0])
		t.Logf("resident read-only file pages: window process %.1f -> %.1f MiB, page's process %.1f -> %.1f MiB", winBefore, winAfter, webBefore, webAfter)
		// Measured here: about 11 and 25 MiB handed back. 4 MiB each leaves room for a
		// machine whose other processes share more of those pages (shared pages stay).
		if winBefore-winAfter < 4 || webBefore-webAfter < 4 {
			t.Fatalf("a deep release handed back %.1f MiB in the window process and %.1f in the page's; want at least 4 each", winBefore-winAfter, webBefore-webAfter)
		}
		// The app still works: a switch reads back what it needs, and the page answers.
		f.open(f.conversation(sim.DemoBob))
		testkit.WaitFor(t, 20*time.Second, "the page to show Bob's conversation after the deep release", func() (bool, string) {
			st := f.status()
			return st.Current == f.conversation(sim.DemoBob) && st.PageState == "conversation", fmt.Sprintf("%+v", st)
		})
	}) {
		return
	}

	if !t.Run("NoGLDriverInTheWindowProcess", func(t *testing.T) {
		f.t = t
		// The window draws what the page's process painted on the CPU: GDK's GLX probe is
		// off, and WebKit's EGL probe finds no driver (the window process's libEGL was
		// given an empty driver list). The page's process, started from it, opens EGL
		// with the machine's drivers: the window's empty list must not reach it.
		pid := f.app.Cmd.Process.Pid
		if got := glDriversMapped(pid); len(got) > 0 {
			t.Fatalf("the window process has GL driver files mapped: %v", got)
		}
		var inPage []string
		for _, p := range Descendants(pid, "WebKitWebProces") {
			inPage = append(inPage, glDriversMapped(p)...)
		}
		if !slices.ContainsFunc(inPage, func(n string) bool { return strings.HasPrefix(n, "libEGL_") }) {
			t.Fatalf("the page's process has no EGL driver mapped (%v): the window's empty driver list reached it", inPage)
		}
		t.Logf("GL driver files in the page's process: %v", inPage)
	}) {
		return
	}

	if !t.Run("TheMessagesPageCanNeitherQuitTheAppNorOpenAURL", func(t *testing.T) {
		f.t = t
		f.post("/show")
		testkit.WaitFor(t, 10*time.Second, "the window to be shown", func() (bool, string) {
			st := f.status()
			return !st.Hidden, fmt.Sprintf("%+v", st)
		})
		// The page posts what Wails would obey from an allowed origin: quit (with a tray,
		// Wails' quit goes through the close handler and hides the window) and open a
		// URL in the browser.
		const url = "https://ipc-guard.clanker.invalid/opened-by-the-page"
		before := f.status().PageMessagesDropped
		f.postBody("/page-script", `(() => {
			const h = window.webkit.messageHandlers.external;
			h.postMessage('Q');
			h.postMessage('BO:`+url+`');
		})()`)
		testkit.WaitFor(t, 20*time.Second, "the guard to drop the page's two messages", func() (bool, string) {
			st := f.status()
			return st.PageMessagesDropped >= before+2, fmt.Sprintf("dropped %d (before %d)", st.PageMessagesDropped, before)
		})
		// The page's later events reach Go, so anything it posted before was handled.
		f.open(jane)
		if f.app.Exited() {
			t.Fatalf("the app quit after the page posted a quit:\n%s", f.app.Output())
		}
		if st := f.status(); st.Hidden {
			t.Fatalf("the window was hidden after the page posted a quit: %+v", st)
		}
		if b, _ := os.ReadFile(browserLog); strings.Contains(string(b), "ipc-guard.clanker.invalid") {
			t.Fatalf("a browser was asked to open the page's URL: %q", b)
		}
		// Nor can it switch off Go's listener of the bridge's events.
		f.postBody("/page-script", `window.webkit.messageHandlers.external.postMessage('EX' + 'clanker:event')`)
		testkit.WaitFor(t, 20*time.Second, "the guard to drop the event-off", func() (bool, string) {
			st := f.status()
			return st.PageMessagesDropped >= before+3, fmt.Sprintf("dropped %d (before %d)", st.PageMessagesDropped, before)
		})
		f.open(bob)
		if !strings.Contains(f.app.Output(), "page message dropped before Wails") {
			t.Fatalf("the drops were not logged:\n%s", f.app.Output())
		}
	}) {
		return
	}

	if !t.Run("AutostartSettingWritesAndRemovesTheLoginEntry", func(t *testing.T) {
		f.t = t
		entry := filepath.Join(f.app.Home, ".config", "autostart", "clanker.desktop")
		f.config("", "set", "autostart", "true")
		testkit.WaitFor(t, 10*time.Second, "the XDG autostart entry starting this binary hidden", func() (bool, string) {
			b, err := os.ReadFile(entry)
			return err == nil && strings.Contains(string(b), "Exec="+f.bin+" --hidden"), fmt.Sprintf("%s: %q %v", entry, b, err)
		})
		f.config("", "set", "autostart", "false")
		testkit.WaitFor(t, 10*time.Second, "the autostart entry to be removed", func() (bool, string) {
			_, err := os.Stat(entry)
			return os.IsNotExist(err), fmt.Sprintf("stat: %v", err)
		})
	}) {
		return
	}

	if !t.Run("ClosingTheWindowHidesItToTheTray", func(t *testing.T) {
		f.t = t
		f.tray.t = t
		closeFromWindowManager(t, "Clanker")
		testkit.WaitFor(t, 10*time.Second, "the window to hide instead of quitting", func() (bool, string) {
			st := f.status()
			return st.Hidden && !windowVisible("Clanker"), fmt.Sprintf("%+v", st)
		})
		if f.app.Exited() {
			t.Fatalf("closing the window quit the app although a tray is present:\n%s", f.app.Output())
		}
		f.tray.click("Show window")
		testkit.WaitFor(t, 10*time.Second, "the window to come back from the tray", func() (bool, string) {
			st := f.status()
			return !st.Hidden && windowVisible("Clanker"), fmt.Sprintf("%+v", st)
		})
	}) {
		return
	}

	if !t.Run("UnrecognisedPageGetsTheWarningAndNoAction", func(t *testing.T) {
		f.t = t
		sentBefore := len(f.sends("", ""))
		if err := f.ctl.SetVariant(sim.VariantUnrecognised); err != nil {
			t.Fatal(err)
		}
		// As after an update by Google: the app starts on (here: reloads into) the new page.
		f.post("/reload")
		testkit.WaitFor(t, 60*time.Second, "the unrecognised warning", func() (bool, string) {
			st := f.status()
			return st.PageState == "unrecognised" && strings.Contains(st.Banner, "does not recognise"), fmt.Sprintf("%+v", st)
		})
		n := len(f.llm.Requests())
		if _, err := f.ctl.Deliver(bob, sim.Message{From: "Bob", Text: "clanker are you broken?"}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.llm.WaitForRequests(n+1, 3*time.Second); err == nil {
			t.Fatal("the model was asked about a message on an unrecognised page")
		}
		if got := len(f.sends("", "")); got != sentBefore {
			t.Fatalf("%d messages were sent on an unrecognised page", got-sentBefore)
		}
		if err := f.ctl.SetVariant(); err != nil {
			t.Fatal(err)
		}
	}) {
		return
	}

	if !t.Run("ClosingTheSettingsWindowEndsItsProcess", func(t *testing.T) {
		f.t = t
		f.tray.t = t
		// The settings window's About text says closing it gives its memory back: its
		// process and that process's own web view processes end when the window manager
		// closes the window, and the app goes on.
		f.tray.click("Settings...")
		var settings []int
		testkit.WaitFor(t, 60*time.Second, "the settings window to open", func() (bool, string) {
			settings = Descendants(f.app.Cmd.Process.Pid, "clanker")
			return windowVisible("Clanker settings") && len(settings) > 0, fmt.Sprintf("settings processes %v", settings)
		})
		parent, _ := procTable()
		tree := append([]int{}, settings...)
		for _, pid := range settings {
			tree = append(tree, descendantsOf(pid, parent)...)
		}
		closeFromWindowManager(t, "Clanker settings")
		testkit.WaitFor(t, 30*time.Second, "the settings window's processes to end", func() (bool, string) {
			_, name := procTable()
			var alive []string
			for _, pid := range tree {
				if n, ok := name[pid]; ok {
					alive = append(alive, fmt.Sprintf("%d %s", pid, n))
				}
			}
			return len(alive) == 0 && !windowVisible("Clanker settings"), fmt.Sprintf("still running: %v", alive)
		})
		if f.app.Exited() {
			t.Fatalf("closing the settings window ended the app:\n%s", f.app.Output())
		}
		f.front()
	}) {
		return
	}

	t.Run("QuitFromTheTrayExitsCleanlyAndClosesTheSettingsWindow", func(t *testing.T) {
		f.t = t
		f.tray.t = t
		// An open settings window (its own process, with its own web view processes)
		// closes with the app instead of staying behind orphaned.
		f.tray.click("Settings...")
		var left []int
		testkit.WaitFor(t, 60*time.Second, "the settings window to open", func() (bool, string) {
			parent, _ := procTable()
			left = descendantsOf(f.app.Cmd.Process.Pid, parent)
			return windowVisible("Clanker settings") && len(Descendants(f.app.Cmd.Process.Pid, "clanker")) > 0, fmt.Sprintf("processes under the app: %v", left)
		})
		f.tray.click("Quit")
		testkit.WaitFor(t, 30*time.Second, "the app to exit after Quit", func() (bool, string) {
			return f.app.Exited(), "still running"
		})
		if code := f.app.Cmd.ProcessState.ExitCode(); code != 0 {
			t.Fatalf("Quit: exit code %d, want 0; output:\n%s", code, f.app.Output())
		}
		testkit.WaitFor(t, 20*time.Second, "every process the app started to end with it", func() (bool, string) {
			_, name := procTable()
			var alive []string
			for _, pid := range left {
				if n, ok := name[pid]; ok {
					alive = append(alive, fmt.Sprintf("%d %s", pid, n))
				}
			}
			return len(alive) == 0, fmt.Sprintf("still running: %v", alive)
		})
		if windowVisible("Clanker settings") {
			t.Fatal("the settings window is still shown after Quit")
		}
	})
}

// hasBadgeRed reports whether any of the tray's icon pixmaps (ARGB32, network byte
// order) carries the unread badge's red.
func hasBadgeRed(pixmaps []pixmap) bool {
	for _, p := range pixmaps {
		for i := 0; i+3 < len(p.Pix); i += 4 {
			if p.Pix[i] == 0xff && p.Pix[i+1] == 0xd9 && p.Pix[i+2] == 0x30 && p.Pix[i+3] == 0x25 {
				return true
			}
		}
	}
	return false
}

// closeFromWindowManager finds the visible window titled title and asks it to close as a
// window manager's close button does.
func closeFromWindowManager(t testing.TB, title string) {
	t.Helper()
	cmd := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^"+regexp.QuoteMeta(title)+"$")
	cmd.Env = []string{"DISPLAY=" + display.Name}
	out, err := cmd.Output()
	ids := strings.Fields(string(out))
	if err != nil || len(ids) == 0 {
		t.Fatalf("find the window %q: %v %q", title, err, out)
	}
	win, _ := strconv.ParseUint(ids[0], 10, 64)
	if err := CloseWindow(display.Name, win); err != nil {
		t.Fatal(err)
	}
}
