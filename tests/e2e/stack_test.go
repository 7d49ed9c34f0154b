//go:build linux

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// clankerWindow is the X window id of the main window.
func clankerWindow(t *testing.T) uint64 {
	t.Helper()
	var id uint64
	testkit.WaitFor(t, 20*time.Second, "the main window's id", func() (bool, string) {
		cmd := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^Clanker$")
		cmd.Env = []string{"DISPLAY=" + display.Name}
		out, err := cmd.Output()
		if err != nil {
			return false, err.Error()
		}
		f := strings.Fields(string(out))
		if len(f) == 0 {
			return false, "no window"
		}
		id, err = strconv.ParseUint(f[0], 10, 64)
		return err == nil, string(out)
	})
	return id
}

// Against the private D-Bus notification server and the X server: messages that come while
// the window is behind another application stack into one notification per conversation,
// replaced in place ("2 new messages from Jane Doe") with the message sound when it is on,
// while another conversation's notification is left alone; the window asks for attention
// (its WM_HINTS urgency flag) until the user comes back. Coming back withdraws the
// notification of the conversation on screen (CloseNotification) and clears the flag;
// opening the other conversation withdraws its notification too.
func TestNotificationsStackPerConversationOnTheRealServer(t *testing.T) {
	needDisplay(t)
	f := newFullApp(t)
	f.configure()
	f.config("", "set", "notifications.sound", "true")
	f.notes = startNotifyServer(t)
	f.launch()
	bob := f.conversation(sim.DemoBob)
	jane := f.conversation(sim.DemoJane)
	f.open(bob)
	win := clankerWindow(t)
	other, err := OpenOtherWindow(display.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.Focus()
	testkit.WaitFor(t, 20*time.Second, "the app to see its window lose the focus", func() (bool, string) {
		st := f.status()
		return !st.Focused && st.Sidebar > 0, fmt.Sprintf("%+v", st)
	})

	deliver := func(conv, from, text string, calls int) {
		t.Helper()
		if _, err := f.ctl.Deliver(conv, sim.Message{From: from, Text: text}); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if t.Failed() {
				b, _ := os.ReadFile(filepath.Join(f.dataDir, "clanker.log"))
				t.Logf("LOG:\n%s", b)
			}
		}()
		testkit.WaitFor(t, 30*time.Second, "the notification for "+text, func() (bool, string) {
			got := f.notes.calls()
			return len(got) >= calls && strings.Contains(got[len(got)-1].Body, text), fmt.Sprintf("%+v", got)
		})
	}
	deliver(jane, sim.DemoJane, "are you coming tonight?", 1)
	deliver(bob, sim.DemoBob, "popcorn is on me", 2)
	deliver(jane, sim.DemoJane, "bring the blue blanket", 3)

	calls := f.notes.calls()
	if len(calls) != 3 {
		t.Fatalf("three messages: want three Notify calls, got %+v", calls)
	}
	j1, b1, j2 := calls[0], calls[1], calls[2]
	if j1.ReplacesID != 0 || b1.ReplacesID != 0 {
		t.Errorf("the first message of each conversation is a notification of its own, got replaces %d and %d", j1.ReplacesID, b1.ReplacesID)
	}
	if j2.ReplacesID != j1.ID {
		t.Errorf("Jane's second message: want it to replace her first notification (%d), got replaces %d", j1.ID, j2.ReplacesID)
	}
	if want := "2 new messages from " + sim.DemoJane; j2.Summary != want || j2.Body != "bring the blue blanket" {
		t.Errorf("Jane's stacked notification: want %q / the newest text, got %q / %q", want, j2.Summary, j2.Body)
	}
	if b1.Summary != "New message from "+sim.DemoBob {
		t.Errorf("Bob's notification: got %q", b1.Summary)
	}
	for _, c := range calls {
		if c.Sound != "message-new-instant" || c.Urgency != 1 {
			t.Errorf("a message notification with the sound on: want the sound-name hint and normal urgency, got %+v", c)
		}
	}
	testkit.WaitFor(t, 10*time.Second, "the window's urgency hint", func() (bool, string) {
		on, err := WindowUrgent(display.Name, win)
		return err == nil && on, fmt.Sprintf("urgent %v, err %v", on, err)
	})
	if got := f.notes.closedIDs(); len(got) != 0 {
		t.Fatalf("nothing is withdrawn while the user is away, got %v", got)
	}

	// Back at the window, on Bob's conversation: his notification goes, Jane's stays.
	f.front()
	testkit.WaitFor(t, 10*time.Second, "Bob's notification withdrawn and the urgency hint cleared", func() (bool, string) {
		on, err := WindowUrgent(display.Name, win)
		closed := f.notes.closedIDs()
		return err == nil && !on && len(closed) == 1 && closed[0] == b1.ID, fmt.Sprintf("urgent %v err %v closed %v", on, err, closed)
	})
	f.open(jane)
	testkit.WaitFor(t, 10*time.Second, "Jane's notification withdrawn once her conversation is open", func() (bool, string) {
		closed := f.notes.closedIDs()
		return len(closed) == 2 && closed[1] == j1.ID, fmt.Sprintf("closed %v", closed)
	})
	if n := len(f.notes.calls()); n != 3 {
		t.Errorf("no further notification after coming back, got %+v", f.notes.calls())
	}
}
