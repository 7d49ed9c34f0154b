//go:build windows && smoke

package wintest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/sqlite"
	"github.com/clanker-desktop/clanker/tests/fakellm"
	"github.com/clanker-desktop/clanker/tests/sim"
)

// The smoke test of the real app on Windows, for a runner with the WebView2 runtime and
// an interactive desktop (GitHub's windows-latest): it builds clanker.exe, starts it on
// the Google Messages simulator and the fake model, hides the window in the tray, has
// the simulator deliver a message that mentions Clanker, and checks that the reply was
// sent with a trusted Enter (CDP through WebView2) while the window was hidden, and that
// the page recorded no untrusted input. It cannot run on Linux or under Wine.

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type control struct {
	t          *testing.T
	url, token string
	log        *syncBuffer
}

type status struct {
	PageState string `json:"pageState"`
	Current   string `json:"current"`
	Mode      string `json:"mode"`
	Hidden    bool   `json:"hidden"`
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

func (c *control) status() status {
	var st status
	if err := c.do("GET", "/status", &st); err != nil {
		c.t.Fatalf("app status: %v\n%s", err, c.log)
	}
	return st
}

func waitFor(t *testing.T, d time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		ok, detail := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s: %s", d, what, detail)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestTheAppRepliesWithATrustedEnterWhileHidden(t *testing.T) {
	s, err := sim.Start(sim.Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctl := s.Control()
	llm, _ := fakellm.StartNew(fakellm.Config{})
	defer llm.Close()

	work := t.TempDir()
	exe := filepath.Join(work, "clanker.exe")
	build := exec.Command("go", "build", "-tags", "production", "-o", exe, "github.com/clanker-desktop/clanker")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build clanker.exe: %v\n%s", err, out)
	}
	data := filepath.Join(work, "data")
	config := func(stdin string, args ...string) {
		cmd := exec.Command(exe, append([]string{"--data-dir", data, "--no-keychain", "config"}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("clanker config %v: %v\n%s", args, err, out)
		}
	}
	config("", "set", "endpoint", llm.BaseURL())
	config("", "set", "model", "fake-model")
	config("", "set", "user_name", "Sam")
	config("sk-windows-smoke-0123456789\n", "set", "api_key", "-")
	bob, err := ctl.ConversationByName(sim.DemoBob)
	if err != nil {
		t.Fatal(err)
	}
	// Clanker is Available in Bob's conversation (chosen earlier, as a user would).
	store, err := sqlite.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.SetMode(context.Background(), bob.ID, sqlite.ModeAvailable); err != nil {
		t.Fatal(err)
	}
	store.Close()

	ready := filepath.Join(work, "control")
	log := &syncBuffer{}
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
	waitFor(t, 90*time.Second, "the app's test control", func() (bool, string) {
		b, err := os.ReadFile(ready)
		parts := strings.Fields(string(b))
		if err != nil || len(parts) != 2 {
			return false, fmt.Sprintf("%v", err)
		}
		c = &control{t: t, url: parts[0], token: parts[1], log: log}
		return true, ""
	})
	waitFor(t, 90*time.Second, "the simulator page to load in the app", func() (bool, string) {
		st, err := ctl.Status()
		return err == nil && st.Pages > 0, fmt.Sprintf("%+v %v", st, err)
	})
	if err := ctl.ClickConversation(bob.ID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "the app to show Bob's conversation in Available mode", func() (bool, string) {
		st := c.status()
		return st.Current == bob.ID && st.PageState == "conversation" && st.Mode == "available", fmt.Sprintf("%+v", st)
	})
	if err := c.do("POST", "/hide", nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the window to be hidden", func() (bool, string) {
		st := c.status()
		return st.Hidden, fmt.Sprintf("%+v", st)
	})

	const reply = "Hi Bob, Clanker on Windows heard you."
	llm.Enqueue(fakellm.JSONReply(reply, "Bob said hi."))
	if _, err := ctl.Deliver(bob.ID, sim.Message{From: "Bob", Text: "hey clanker, are you there?"}); err != nil {
		t.Fatal(err)
	}
	var sent sim.Send
	waitFor(t, 120*time.Second, "the reply to be sent", func() (bool, string) {
		all, err := ctl.Sent()
		for _, s := range all {
			if s.Conversation == bob.ID && strings.HasPrefix(s.Text, "[clanker] "+reply) {
				sent = s
				return true, ""
			}
		}
		return false, fmt.Sprintf("sent so far %+v (%v); app %+v", all, err, c.status())
	})
	if !sent.Trusted || sent.Via != "enter" {
		t.Fatalf("the reply was sent trusted=%v via %q; want a trusted Enter", sent.Trusted, sent.Via)
	}
	if !c.status().Hidden {
		t.Error("the window came forward while the reply was sent; it must stay hidden")
	}
	if rej, err := ctl.Rejected(); err != nil || len(rej) != 0 {
		t.Fatalf("the page recorded untrusted input %+v (%v); want none", rej, err)
	}
}
