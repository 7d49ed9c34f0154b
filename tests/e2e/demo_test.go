//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// demoTitle is the main window's title during `clanker demo`.
const demoTitle = "Clanker DEMO"

// demoState mirrors the test control's GET /demo: the script's group, its rows and the
// in-app simulator's send logs.
type demoState struct {
	Group    string        `json:"group"`
	Messages []sim.Message `json:"messages"`
	Sent     []sim.Send    `json:"sent"`
	Rejected []sim.Send    `json:"rejected"`
}

func (f *fullApp) demo() demoState {
	f.t.Helper()
	resp, err := f.request("GET", "/demo")
	if err != nil {
		f.t.Fatalf("demo state: %v\n%s", err, f.app.Output())
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		f.t.Fatalf("demo state: %s", resp.Status)
	}
	var d demoState
	if err := json.NewDecoder(resp.Body).Decode(&d); err != nil {
		f.t.Fatalf("decode the demo state: %v", err)
	}
	return d
}

// demoPill picks a mode in the status pill of the demo window with real (trusted) clicks,
// as pillMenu does for the main window's title.
func (f *fullApp) demoPill(choice string) {
	f.t.Helper()
	f.pillMenuOf(demoTitle, "demo-pill-failed.png", choice)
}

// addressed is how the script's friends speak to Clanker.
var addressed = regexp.MustCompile(`^Clanker, `)

// TestDemoCommandFriendsWriteAndAMentionIsAnsweredOnceAvailable starts `clanker demo` (the
// real binary and command, on its own data folder), watches the scripted friends write in
// the group it opens on, switches that group to Available in the status pill with real
// clicks, and sees a friend's mention answered by the demo model through the trusted send
// path; then, switched to Active, the demo model greets and joins in by itself.
func TestDemoCommandFriendsWriteAndAMentionIsAnsweredOnceAvailable(t *testing.T) {
	needDisplay(t)
	bin := buildClanker(t)
	dataDir := t.TempDir()
	f := &fullApp{t: t, bin: bin, dataDir: dataDir}
	f.app = StartApp(t, display, bin, 90*time.Second,
		"demo", "--data-dir", dataDir, "--no-keychain", "--test-control", "{ready}", "-v")
	parts := strings.Fields(f.app.Control)
	if len(parts) != 2 {
		t.Fatalf("test control file holds %q, want URL and token", f.app.Control)
	}
	f.url, f.token = parts[0], parts[1]

	group := f.demo().Group
	if group == "" {
		t.Fatal("the demo has no scripted group")
	}
	// The demo opens on the group, configured with the demo model, under the DEMO banner.
	testkit.WaitFor(t, 90*time.Second, "the demo to show its group", func() (bool, string) {
		st := f.status()
		return st.PageState == "conversation" && st.Current == group && st.Configured &&
			strings.Contains(st.Banner, "DEMO") && st.Mode == string(engine.ModeDeactivated), fmt.Sprintf("%+v", st)
	})

	// The demo's one-time guide shows beside the pill (the hint's own tests check where).
	testkit.WaitFor(t, 30*time.Second, "the demo guide beside the pill", func() (bool, string) {
		st := f.status()
		return st.Hint, fmt.Sprintf("%+v", st)
	})

	// Friends write by themselves: a mention of Clanker, someone else's chat and a photo
	// arrive within the first minute (given two here: CI is a loaded box).
	testkit.WaitFor(t, 120*time.Second, "the scripted friends' first minute", func() (bool, string) {
		d := f.demo()
		mention, chat, photo := "", false, false
		for _, m := range d.Messages {
			switch {
			case m.Outgoing:
			case m.Image != "":
				photo = true
			case addressed.MatchString(m.Text):
				mention = m.From
			}
		}
		for _, m := range d.Messages {
			if !m.Outgoing && m.Image == "" && mention != "" && m.From != mention && !addressed.MatchString(m.Text) {
				chat = true
			}
		}
		return mention != "" && chat && photo, fmt.Sprintf("%d rows", len(d.Messages))
	})
	// The friends' first minute under the guide, for people to look at.
	if err := display.Screenshot(filepath.Join(ArtifactsDir(), "demo-guide.png")); err != nil {
		t.Logf("screenshot: %v", err)
	}
	// Deactivated: nobody was answered.
	if d := f.demo(); len(d.Sent) != 0 {
		t.Fatalf("expected nothing sent while the group is Deactivated, got %+v", d.Sent)
	}

	switched := len(f.demo().Messages)
	f.demoPill("available")
	f.waitMode("available")

	var reply sim.Send
	testkit.WaitFor(t, 180*time.Second, "a friend's mention answered by the demo model", func() (bool, string) {
		d := f.demo()
		for _, s := range d.Sent {
			if s.Conversation == group && strings.HasPrefix(s.Text, engine.Prefix) && s.Text != engine.AvailableText {
				reply = s
				return true, ""
			}
		}
		return false, fmt.Sprintf("sent %+v; app %+v", d.Sent, f.status())
	})
	if !reply.Trusted || reply.Via != "enter" {
		t.Fatalf("the reply %q was trusted=%v via %q; want a trusted Enter", reply.Text, reply.Trusted, reply.Via)
	}
	if !strings.Contains(reply.Text, "demo") {
		t.Errorf("expected the reply to say it comes from the demo model, got %q", reply.Text)
	}

	// Order: the announcement, a friend addressing Clanker after the switch, then the reply
	// that names that friend.
	d := f.demo()
	announce, mention, answer := -1, -1, -1
	for i, m := range d.Messages {
		if i < switched {
			continue
		}
		switch {
		case m.Outgoing && m.Text == engine.AvailableText && announce < 0:
			announce = i
		case !m.Outgoing && addressed.MatchString(m.Text) && mention < 0:
			mention = i
		case m.Outgoing && m.Text == reply.Text && answer < 0:
			answer = i
		}
	}
	if announce < 0 || mention < 0 || answer < 0 || mention > answer {
		t.Fatalf("expected the announcement, a mention and its answer in order after row %d; got %d, %d, %d in %+v",
			switched, announce, mention, answer, d.Messages[switched:])
	}
	if from := d.Messages[mention].From; !strings.Contains(reply.Text, from) {
		t.Errorf("expected the answer to name %s, who addressed Clanker; got %q", from, reply.Text)
	}
	if len(d.Rejected) != 0 {
		t.Errorf("the page recorded %d untrusted send attempts, want none: %+v", len(d.Rejected), d.Rejected)
	}

	// Choosing a mode in the pill ended the guide.
	if st := f.status(); st.Hint {
		t.Errorf("expected the demo guide gone once the group is Available: %+v", st)
	}
	if err := display.Screenshot(filepath.Join(ArtifactsDir(), "demo-command-reply.png")); err != nil {
		t.Logf("screenshot: %v", err)
	}

	// Active: the demo model greets in its own words (not the fixed fallback) and joins in
	// on a friend's message that does not name Clanker.
	f.waitQuiet()
	active := len(f.demo().Messages)
	f.demoPill("active")
	f.waitMode("active")
	testkit.WaitFor(t, 180*time.Second, "the demo model to greet and join in on its own in Active", func() (bool, string) {
		d := f.demo()
		greeted, joined := false, false
		for i := active; i < len(d.Messages); i++ {
			m := d.Messages[i]
			if !m.Outgoing || !strings.HasPrefix(m.Text, engine.Prefix) {
				continue
			}
			if strings.Contains(m.Text, "Demo model switched on") {
				greeted = true
				continue
			}
			for j := active; j < i; j++ {
				in := d.Messages[j]
				if !in.Outgoing && in.Text != "" && !addressed.MatchString(in.Text) && strings.Contains(m.Text, in.From) && strings.Contains(m.Text, "demo") {
					joined = true
				}
			}
		}
		return greeted && joined, fmt.Sprintf("rows since the switch: %+v", d.Messages[active:])
	})
	if d := f.demo(); slices.ContainsFunc(d.Sent, func(s sim.Send) bool { return s.Text == engine.ActiveFallbackText }) {
		t.Errorf("expected the demo model's own greeting, got the fixed fallback: %+v", d.Sent)
	}
	if d := f.demo(); len(d.Rejected) != 0 {
		t.Errorf("the page recorded %d untrusted send attempts, want none: %+v", len(d.Rejected), d.Rejected)
	}
	if err := display.Screenshot(filepath.Join(ArtifactsDir(), "demo-command-active.png")); err != nil {
		t.Logf("screenshot: %v", err)
	}
}
