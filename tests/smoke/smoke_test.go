//go:build smoke

package smoke

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/run/testctl"
	"github.com/clanker-desktop/clanker/app/sqlite"
	"github.com/clanker-desktop/clanker/tests/fakellm"
	"github.com/clanker-desktop/clanker/tests/simctl"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// buildTags are the app's tags for this system: a release build plus the loopback test
// control (app/run/testcontrol.go), and WebKitGTK 4.1 on Linux.
func buildTags() string {
	tags := "production,testcontrol"
	if runtime.GOOS == "linux" {
		tags += ",webkit2_41"
	}
	return tags
}

// control talks to the app's test control (its URL and token are in the ready file).
type control struct {
	t          *testing.T
	url, token string
	log        *testkit.Buffer
}

func (c *control) do(method, path string, out any) error {
	req, err := http.NewRequest(method, c.url+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("X-Clanker-Token", c.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s", method, path, resp.Status)
	}
	if out != nil {
		return json.NewDecoder(resp.Body).Decode(out)
	}
	return nil
}

func (c *control) status() testctl.Status {
	c.t.Helper()
	var st testctl.Status
	if err := c.do("GET", "/status", &st); err != nil {
		c.t.Fatalf("app status: %v\n%s", err, c.log)
	}
	return st
}

func TestTheAppRepliesWithATrustedEnterShownAndHidden(t *testing.T) {
	s, err := simctl.Start(sim.Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctl := s.Control()
	llm, _ := fakellm.StartNew(fakellm.Config{})
	defer llm.Close()

	work := t.TempDir()
	exe := filepath.Join(work, "clanker")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	build := exec.Command("go", "build", "-tags", buildTags(), "-o", exe, "github.com/clanker-desktop/clanker")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the app: %v\n%s", err, out)
	}
	data := filepath.Join(work, "data")
	config := func(stdin string, args ...string) {
		t.Helper()
		cmd := exec.Command(exe, append([]string{"--data-dir", data, "--no-keychain", "config"}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("clanker config %v: %v\n%s", args, err, out)
		}
	}
	config("", "set", "endpoint", llm.BaseURL())
	config("", "set", "model", "fake-model")
	config("", "set", "user_name", "Sam")
	config("sk-smoke-key-0123456789\n", "set", "api_key", "-")
	bob, err := ctl.ConversationByName(sim.DemoBob)
	if err != nil {
		t.Fatal(err)
	}
	// Clanker is Available in Bob's conversation, as if the user had chosen it earlier.
	store, err := sqlite.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.SetMode(context.Background(), bob.ID, engine.ModeAvailable); err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}

	ready := filepath.Join(work, "control")
	log := &testkit.Buffer{}
	app := exec.Command(exe, "--data-dir", data, "--no-keychain", "--messages-url", s.AppURL(),
		"--popup-origin", s.AccountsURL(), "--test-control", ready, "-v")
	app.Stdout, app.Stderr = log, log
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = app.Process.Kill()
		_ = app.Wait()
		if t.Failed() {
			t.Logf("app log:\n%s", log)
		}
	}()
	var c *control
	testkit.WaitFor(t, 90*time.Second, "the app's test control", func() (bool, string) {
		b, err := os.ReadFile(ready)
		parts := strings.Fields(string(b))
		if err != nil || len(parts) != 2 {
			return false, fmt.Sprintf("%v", err)
		}
		c = &control{t: t, url: parts[0], token: parts[1], log: log}
		return true, ""
	})
	testkit.WaitFor(t, 90*time.Second, "the simulator page to load in the app", func() (bool, string) {
		st, err := ctl.Status()
		return err == nil && st.Pages > 0, fmt.Sprintf("%+v %v", st, err)
	})
	if err := ctl.ClickConversation(bob.ID); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, 60*time.Second, "the app to show Bob's conversation in Available mode", func() (bool, string) {
		st := c.status()
		return st.Current == bob.ID && st.PageState == "conversation" && st.Mode == "available", fmt.Sprintf("%+v", st)
	})

	// waitSent waits for text in Bob's conversation and checks it went out with a
	// trusted Enter.
	waitSent := func(t *testing.T, text string) {
		t.Helper()
		var sent sim.Send
		testkit.WaitFor(t, 120*time.Second, fmt.Sprintf("%q to be sent", text), func() (bool, string) {
			all, err := ctl.Sent()
			for _, s := range all {
				if s.Conversation == bob.ID && strings.HasPrefix(s.Text, text) {
					sent = s
					return true, ""
				}
			}
			return false, fmt.Sprintf("sent so far %+v (%v); app %+v", all, err, c.status())
		})
		if !sent.Trusted || sent.Via != "enter" {
			t.Fatalf("%q was sent trusted=%v via %q; want a trusted Enter", text, sent.Trusted, sent.Via)
		}
	}
	noUntrusted := func(t *testing.T) {
		t.Helper()
		if rej, err := ctl.Rejected(); err != nil || len(rej) != 0 {
			t.Fatalf("the page recorded untrusted input %+v (%v); want none", rej, err)
		}
	}

	// The two cases are subtests so a workflow log names the one that failed; both gate
	// the run.
	t.Run("Shown", func(t *testing.T) {
		c.t = t
		llm.Enqueue(fakellm.JSONReply("Hi Bob, Clanker heard you.", "Bob said hi."))
		if _, err := ctl.Deliver(bob.ID, sim.Message{From: "Bob", Text: "hey clanker, are you there?"}); err != nil {
			t.Fatal(err)
		}
		waitSent(t, "[clanker] Hi Bob, Clanker heard you.")
		noUntrusted(t)
	})

	// With the window hidden in the tray: the Enter must still reach the page, and the
	// window must stay hidden.
	t.Run("Hidden", func(t *testing.T) {
		c.t = t
		if err := c.do("POST", "/hide", nil); err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, 10*time.Second, "the window to be hidden", func() (bool, string) {
			st := c.status()
			return st.Hidden, fmt.Sprintf("%+v", st)
		})
		llm.Enqueue(fakellm.JSONReply("Still here while hidden, Bob.", "Bob checked again."))
		if _, err := ctl.Deliver(bob.ID, sim.Message{From: "Bob", Text: "clanker, still there?"}); err != nil {
			t.Fatal(err)
		}
		waitSent(t, "[clanker] Still here while hidden, Bob.")
		if !c.status().Hidden {
			t.Error("the window came forward while the reply was sent; it must stay hidden")
		}
		noUntrusted(t)
	})
}
