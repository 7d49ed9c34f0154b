//go:build linux

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// A message that comes while Clanker is not running is in the page's first list when it
// starts again, where nothing changes to tell it apart. The app keeps the list it last saw
// and compares the next start's first list with it: started hidden (as at login), the
// message is notified; unread rows it had already seen are not.
func TestFullAppNotifiesAMessageThatCameWhileItWasClosed(t *testing.T) {
	needDisplay(t)
	f := newFullApp(t)
	f.configure()
	watcher, conn := startWatcher(t)
	f.notes = startNotifyServer(t)
	jane := f.conversation(sim.DemoJane)
	// Unread before the first run: seen by it, no news for the next.
	bob := f.conversation(sim.DemoBob)
	if _, err := f.ctl.Deliver(bob, sim.Message{From: sim.DemoBob, Text: "unread since the last run"}); err != nil {
		t.Fatal(err)
	}

	f.launch()
	testkit.WaitFor(t, 60*time.Second, "the first run's conversation list", func() (bool, string) {
		st := f.status()
		return st.Sidebar > 0, fmt.Sprintf("%+v", st)
	})
	testkit.WaitFor(t, 30*time.Second, "the app's tray", func() (bool, string) {
		items := watcher.registered()
		if len(items) == 0 {
			return false, "nothing registered"
		}
		f.tray = &trayClient{t: t, conn: conn, name: items[len(items)-1]}
		_, ok := f.tray.layout().find("Quit")
		return ok, fmt.Sprintf("labels %q", f.tray.layout().labels())
	})
	f.tray.click("Quit")
	testkit.WaitFor(t, 30*time.Second, "the app to exit after Quit", func() (bool, string) {
		return f.app.Exited(), "still running"
	})
	testkit.WaitFor(t, 30*time.Second, "the page to leave the simulator", func() (bool, string) {
		st, err := f.ctl.Status()
		return err == nil && st.Pages == 0, fmt.Sprintf("%+v %v", st, err)
	})

	if _, err := f.ctl.Deliver(jane, sim.Message{From: sim.DemoJane, Text: "sent while Clanker was closed"}); err != nil {
		t.Fatal(err)
	}
	before := len(f.notes.calls())
	f.launch("--hidden")
	testkit.WaitFor(t, 60*time.Second, "a notification for the message that came while the app was closed", func() (bool, string) {
		for _, c := range f.notes.calls()[before:] {
			if strings.Contains(c.Summary, sim.DemoJane) && strings.Contains(c.Body, "sent while Clanker was closed") {
				return true, ""
			}
		}
		return false, fmt.Sprintf("notifications %+v; status %+v", f.notes.calls()[before:], f.status())
	})
	// A message now bounds the wait for a notification of Bob's old one.
	if _, err := f.ctl.Deliver(jane, sim.Message{From: sim.DemoJane, Text: "and one while it runs"}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, 30*time.Second, "the notification for a message while the app runs", func() (bool, string) {
		for _, c := range f.notes.calls()[before:] {
			if strings.Contains(c.Body, "and one while it runs") {
				return true, ""
			}
		}
		return false, fmt.Sprintf("notifications %+v", f.notes.calls()[before:])
	})
	for _, c := range f.notes.calls()[before:] {
		if strings.HasPrefix(c.Summary, "New message") && !strings.Contains(c.Summary, sim.DemoJane) {
			t.Errorf("a notification for a row the previous run had seen: %+v", c)
		}
	}
	if n := len(f.notes.calls()[before:]); n != 2 {
		t.Errorf("%d notifications after the restart, want 2 (one per message of Jane's): %+v", n, f.notes.calls()[before:])
	}
}
