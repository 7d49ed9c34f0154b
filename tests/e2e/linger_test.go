//go:build linux

package e2e

import (
	"fmt"
	"io"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/fakellm"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// Issue 33 on the real app: a Messages page whose old panes linger, hidden, for a moment
// after each switch, a user who clicks through three conversations quickly, and a model that
// answers everything it is asked.

// The always-answering model's reply, and the question it would answer in the wrong place.
const (
	lingerAnswer   = "Lima is the capital of Peru."
	janesQuestion  = "Clanker, what is the capital of Peru?"
	momsMention    = "Clanker, are you there?"
	lingerMS       = 3000
	quickClickGapS = "0.15"
)

// sidebarLink is the selector of a conversation's row in the page's sidebar.
func sidebarLink(conv string) string {
	return `a[data-e2e-conversation][href="/web/conversations/` + conv + `"]`
}

// quickClicks clicks the sidebar rows of convs with the real mouse, one after another about
// 150 ms apart, in one xdotool run (so the gaps are not stretched by starting processes).
func (f *fullApp) quickClicks(convs ...string) {
	f.t.Helper()
	var args []string
	for i, c := range convs {
		r := f.rect(sidebarLink(c))
		ox, oy := viewportOrigin(f.t, r)
		if i > 0 {
			args = append(args, "sleep", quickClickGapS)
		}
		args = append(args, "mousemove", strconv.Itoa(ox+int(r.X+r.Width/2)), strconv.Itoa(oy+int(r.Y+r.Height/2)), "click", "1")
	}
	cmd := exec.Command("xdotool", args...)
	cmd.Env = []string{"DISPLAY=" + display.Name}
	if out, err := cmd.CombinedOutput(); err != nil {
		f.t.Fatalf("xdotool %q: %v: %s", args, err, out)
	}
}

// clankerSends are the messages Clanker posted in conv that are not mode notices.
func (f *fullApp) clankerSends(conv string) []sim.Send {
	f.t.Helper()
	var out []sim.Send
	for _, s := range f.sends(conv, engine.Prefix) {
		switch s.Text {
		case engine.AvailableText, engine.DeactivatedText, engine.ActiveFallbackText:
			continue
		}
		out = append(out, s)
	}
	return out
}

// texts are the texts of conv's messages in the simulator that are at least 8 characters
// long (shorter ones, "ok", could be in any conversation).
func (f *fullApp) texts(conv string) []string {
	f.t.Helper()
	msgs, err := f.ctl.Messages(conv)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		if len(m.Text) >= 8 {
			out = append(out, m.Text)
		}
	}
	return out
}

// noLingeringPane waits until the page has no hidden pane left over from a switch.
func (f *fullApp) noLingeringPane() {
	f.t.Helper()
	testkit.WaitFor(f.t, 30*time.Second, "the lingering panes to go", func() (bool, string) {
		resp, err := f.request("GET", "/rect?selector="+url.QueryEscape(`[data-e2e-conversation-container][aria-hidden="true"]`))
		if err != nil {
			return false, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode == 200 && strings.Contains(string(b), `"found":false`), string(b)
	})
}

// settledOn waits until the page shows conv, the engine has settled on it (believed a view of
// it) and nothing is under way. Waiting for the engine, not only the page, matters here: a
// pane the page draws again while the app is still switching to a conversation (SetLinger
// right after a switch) left the app deaf to the conversations it then showed (Mom's mention
// unanswered for 60 s, 9 of 9 runs while this test was written): a separate liveness bug, not
// what this test is about.
func (f *fullApp) settledOn(conv string) {
	f.t.Helper()
	testkit.WaitFor(f.t, 60*time.Second, "the app to settle on "+conv, func() (bool, string) {
		st := f.status()
		return st.Current == conv && st.EngineOn == conv && st.PageState == "conversation" && !st.InFlight && !st.Sending && st.QueuedSends == 0,
			fmt.Sprintf("%+v", st)
	})
}

// TestFullAppLingeringPanesNeverAnswerInTheWrongConversation reproduces issue 33.1 and
// 33.2 on the simulator's lingering panes, then proves every menu of the window announces
// a mode switched on there (the tray and the pill have theirs in TestFullApp too).
func TestFullAppLingeringPanesNeverAnswerInTheWrongConversation(t *testing.T) {
	needDisplay(t)
	f := newFullApp(t)
	f.t = t
	f.configure()
	f.llm.SetDefault(fakellm.JSONReply(lingerAnswer, "Someone asked about Peru."))
	mom, err := f.ctl.CreateConversation(sim.NewConversation{Participants: []string{"Mom"}})
	if err != nil {
		t.Fatal(err)
	}
	jane, family, bob := f.conversation(sim.DemoJane), f.conversation(sim.DemoFamily), f.conversation(sim.DemoBob)
	for _, d := range []struct {
		conv string
		m    sim.Message
	}{
		{mom.ID, sim.Message{From: "Mom", Text: "Did you get home all right last night?"}},
		{mom.ID, sim.Message{From: "Mom", Text: "Call me when you have a minute, sweetheart."}},
		{family, sim.Message{From: "Dad", Text: "Grandma's birthday dinner is on Sunday at six."}},
		{family, sim.Message{From: "Mom", Text: "Bring the blue casserole dish back please."}},
		{jane, sim.Message{From: sim.DemoJane, Text: "My doctor's appointment got moved to Friday."}},
		{jane, sim.Message{From: sim.DemoJane, Text: janesQuestion}},
	} {
		if _, err := f.ctl.Deliver(d.conv, d.m); err != nil {
			t.Fatal(err)
		}
	}
	f.launchWithTray(t)
	f.tray.t = t
	testkit.WaitFor(t, 30*time.Second, "the app to start configured", func() (bool, string) {
		st := f.status()
		return st.Configured, fmt.Sprintf("%+v", st)
	})

	// Mom is switched to Available from the tray on a page without lingering panes.
	f.open(mom.ID)
	testkit.WaitFor(t, 20*time.Second, "the tray to name Mom's conversation", func() (bool, string) {
		_, ok := f.tray.layout().find("Mom: Deactivated")
		return ok, fmt.Sprintf("labels %q", f.tray.layout().labels())
	})
	f.tray.click("Available")
	f.waitMode("available")
	f.waitSent(mom.ID, engine.AvailableText)
	f.open(bob)
	f.settledOn(bob)

	// The page now keeps old panes for 3 s after each switch (it draws itself again at once).
	if err := f.ctl.SetLinger(lingerMS); err != nil {
		t.Fatal(err)
	}
	if err := f.ctl.SetVariant(sim.VariantLinger); err != nil {
		t.Fatal(err)
	}
	f.settledOn(bob)
	f.noLingeringPane()
	foreign := append(f.texts(jane), f.texts(family)...)

	if !t.Run("QuickSwitchesNeverAnswerJaneInMomsConversation", func(t *testing.T) {
		f.t, f.tray.t = t, t
		reqs := len(f.llm.Requests())
		f.quickClicks(jane, family, mom.ID)
		f.settledOn(mom.ID)
		f.noLingeringPane()
		// Whatever the lingering panes would make the app do has been done once they are gone
		// and the app is quiet on Mom; a last look after a moment more.
		f.waitQuiet()
		time.Sleep(2 * time.Second)
		if ss := f.clankerSends(mom.ID); len(ss) != 0 {
			t.Fatalf("Clanker posted in Mom's conversation, where nobody addressed it: %+v", ss)
		}
		for _, conv := range []string{jane, family} {
			if ss := f.sends(conv, engine.Prefix); len(ss) != 0 {
				t.Fatalf("Clanker posted in %s, which is deactivated: %+v", conv, ss)
			}
		}
		for i, r := range f.llm.Requests()[reqs:] {
			t.Errorf("the model was asked (request %d) although nobody addressed Clanker in Mom's conversation:\n%s", i, requestText(r))
		}

		// Liveness: Mom's own mention is answered, in Mom's conversation, with Mom's history.
		reqs = len(f.llm.Requests())
		if _, err := f.ctl.Deliver(mom.ID, sim.Message{From: "Mom", Text: momsMention}); err != nil {
			t.Fatal(err)
		}
		f.waitSent(mom.ID, engine.Prefix+lingerAnswer)
		f.waitQuiet()
		asked := f.llm.Requests()[reqs:]
		if len(asked) == 0 {
			t.Fatal("Mom's mention was answered without a request to the model")
		}
		for i, r := range asked {
			text := requestText(r)
			for _, x := range foreign {
				if strings.Contains(text, x) {
					t.Errorf("request %d for Mom carries %q from another conversation:\n%s", i, x, text)
				}
			}
			for _, want := range []string{momsMention, "Call me when you have a minute, sweetheart."} {
				if !strings.Contains(text, want) {
					t.Errorf("request %d for Mom lacks Mom's %q:\n%s", i, want, text)
				}
			}
		}
		if ss := f.sends(jane, engine.Prefix); len(ss) != 0 {
			t.Fatalf("Clanker posted in Jane's conversation, which is deactivated: %+v", ss)
		}
		f.noUntrustedInput()
	}) {
		return
	}

	// Issue 33.2: a mode switched on from the tray right after quick switches, while the old
	// panes still linger, is announced in the conversation it was switched for.
	if !t.Run("TrayAvailableRightAfterQuickSwitchesIsAnnounced", func(t *testing.T) {
		f.t, f.tray.t = t, t
		f.quickClicks(jane, bob, family)
		testkit.WaitFor(t, 30*time.Second, "the tray to name the family's conversation", func() (bool, string) {
			_, ok := f.tray.layout().find(sim.DemoFamily + ": Deactivated")
			return ok && f.status().Current == family, fmt.Sprintf("labels %q, app %+v", f.tray.layout().labels(), f.status())
		})
		f.tray.click("Available")
		f.waitMode("available")
		f.waitSent(family, engine.AvailableText)
		f.settledOn(family)
		for _, conv := range []string{jane, bob} {
			if ss := f.sends(conv, engine.Prefix); len(ss) != 0 {
				t.Fatalf("a notice went to %s instead of the family: %+v", conv, ss)
			}
		}
		if n := len(f.sends(family, engine.AvailableText)); n != 1 {
			t.Fatalf("the family got %d Available notices, want one", n)
		}
		f.noUntrustedInput()
	}) {
		return
	}

	// The app menu bar, driven with real keys: F10 opens the Clanker menu, Down moves to
	// Available, Return chooses it.
	if !t.Run("MenuBarAvailableIsAnnounced", func(t *testing.T) {
		f.t, f.tray.t = t, t
		f.quickClicks(family, jane, bob)
		f.settledOn(bob)
		f.waitMode("deactivated") // nothing switched Bob on before the user does
		f.front()
		xdo(t, "key", "F10")
		testkit.WaitFor(t, 10*time.Second, "the Clanker menu to open from F10", func() (bool, string) {
			m := f.nativeMenu(true)
			_, ok := m.find("About Clanker")
			return ok, m.String()
		})
		f.chooseInOpenMenu("Available")
		f.waitMode("available")
		f.waitSent(bob, engine.AvailableText)
		f.waitQuiet()
		if n := len(f.sends(bob, engine.AvailableText)); n != 1 {
			t.Fatalf("Bob got %d Available notices, want one", n)
		}
		f.noUntrustedInput()
	}) {
		return
	}

	// The page's right-click menu, driven with the real mouse and keys.
	if !t.Run("RightClickAvailableIsAnnounced", func(t *testing.T) {
		f.t, f.tray.t = t, t
		f.quickClicks(mom.ID, family, jane)
		f.settledOn(jane)
		f.waitMode("deactivated")
		f.front()
		r := f.rect(`[data-e2e-conversation-container]:not([aria-hidden="true"]) mws-messages-list`)
		ox, oy := viewportOrigin(t, r)
		xdo(t, "mousemove", strconv.Itoa(ox+int(r.X+r.Width/2)), strconv.Itoa(oy+int(r.Y+r.Height/2)), "click", "3")
		testkit.WaitFor(t, 10*time.Second, "the right-click menu to open with the Clanker items", func() (bool, string) {
			m := f.nativeMenu(true)
			_, ok := m.find("Settings...")
			return ok, m.String()
		})
		f.chooseInOpenMenu("Available")
		f.waitMode("available")
		f.waitSent(jane, engine.AvailableText)
		f.waitQuiet()
		if n := len(f.sends(jane, engine.AvailableText)); n != 1 {
			t.Fatalf("Jane got %d Available notices, want one", n)
		}
		f.noUntrustedInput()
	}) {
		return
	}

	// The bridge's status pill, with the real mouse, right after quick switches (Dad's
	// conversation is new to the app: nothing is known of it to check a lingering pane by).
	t.Run("PillAvailableRightAfterQuickSwitchesIsAnnounced", func(t *testing.T) {
		f.t, f.tray.t = t, t
		dad, err := f.ctl.CreateConversation(sim.NewConversation{Participants: []string{"Dad"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.ctl.Deliver(dad.ID, sim.Message{From: "Dad", Text: "Did the plumber ever call you back?"}); err != nil {
			t.Fatal(err)
		}
		f.quickClicks(jane, mom.ID, dad.ID)
		f.settledOn(dad.ID)
		f.waitMode("deactivated")
		f.front()
		f.pillMenu("available")
		f.waitSent(dad.ID, engine.AvailableText)
		f.waitQuiet()
		if n := len(f.sends(dad.ID, engine.AvailableText)); n != 1 {
			t.Fatalf("Dad got %d Available notices, want one", n)
		}
		for _, conv := range []string{jane, mom.ID} {
			if n := len(f.sends(conv, engine.AvailableText)); n != 1 {
				t.Fatalf("%s has %d Available notices, want the one it got earlier", conv, n)
			}
		}
		f.noUntrustedInput()
	})
}

// nativeMenu reads the app's native menus from its test control: the menu bar, or with
// popup the menus open on screen.
func (f *fullApp) nativeMenu(popup bool) nativeMenus {
	f.t.Helper()
	path := "/menu"
	if popup {
		path += "?popup=1"
	}
	resp, err := f.request("GET", path)
	if err != nil {
		f.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		f.t.Fatalf("GET %s: %s: %s", path, resp.Status, b)
	}
	return parseNativeMenus(string(b))
}

// chooseInOpenMenu moves the selection of the open menu down to label with the Down key,
// watching GTK's own selection, and presses Return.
func (f *fullApp) chooseInOpenMenu(label string) {
	f.t.Helper()
	selected := func() string {
		for _, items := range f.nativeMenu(true) {
			for _, it := range items {
				if it.Selected && it.Depth == 0 && it.Label != "Clanker" {
					return it.Label
				}
			}
		}
		return ""
	}
	for i := 0; selected() != label; i++ {
		if i == 8 {
			f.t.Fatalf("%s never selected with Down: %s", label, f.nativeMenu(true))
		}
		prev := selected()
		xdo(f.t.(*testing.T), "key", "Down")
		testkit.WaitFor(f.t, 10*time.Second, "Down to move the selection from "+prev, func() (bool, string) {
			cur := selected()
			return cur != prev, "selected " + cur
		})
	}
	xdo(f.t.(*testing.T), "key", "Return")
}
