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

// The page's web-notification permission request reaches the app's WebKit handler, which
// refuses it: the page sees "denied", nothing the page tries to show reaches the desktop's
// notification server, and a message that comes while the window is not in front gives
// exactly one notification, Clanker's. The simulator page asks for the permission at load
// and again at the first click (as Messages for web does), tries new Notification for
// every incoming message whatever it was told, and reports both to the simulator.
//
// WebKit answers a request made without a user gesture (the one at load) with "denied"
// by itself, without asking the app; a request made from a click is the one that reaches
// the app's permission-request handler, and the test checks that it does.
func TestPageWebNotificationsAreDeniedAndEachMessageNotifiesOnce(t *testing.T) {
	needDisplay(t)
	f := newFullApp(t)
	f.configure()
	f.notes = startNotifyServer(t)
	f.launch()
	testkit.WaitFor(t, 60*time.Second, "the page to be told the notification permission", func() (bool, string) {
		st, err := f.ctl.Status()
		return err == nil && st.NotificationPermission != "" && st.NotificationPermission != "default" && !strings.HasPrefix(st.NotificationPermission, "DEBUG"), fmt.Sprintf("%+v %v", st, err)
	})
	if st, _ := f.ctl.Status(); st.NotificationPermission != "denied" {
		t.Fatalf("the page's Notification.requestPermission() at load answered %q, want denied", st.NotificationPermission)
	}
	// A real click on the page: the page asks again, from a user gesture. That request
	// reaches the app's handler (webkit_linux.c on_permission), which refuses it and logs
	// that it did.
	if strings.Contains(f.app.Output(), "web notifications are refused") {
		t.Fatal("the app logged a refused request before any click; the load-time request was expected to end in WebKit")
	}
	x, y, w, h := windowGeometry(t, "Clanker")
	click(t, x+w-40, y+h/2)
	const refused = "the page's own web notifications are refused"
	testkit.WaitFor(t, 10*time.Second, "the app's log line for the refused request", func() (bool, string) {
		out := f.app.Output()
		return strings.Contains(out, refused) && strings.Contains(out, "tried_to_show=false"), "no such line yet"
	})

	bob := f.conversation(sim.DemoBob)
	jane := f.conversation(sim.DemoJane)
	f.open(bob)
	other, err := OpenOtherWindow(display.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.Focus()
	// Behind another window, and with the page's conversation list known: a new message
	// elsewhere is told from that list.
	testkit.WaitFor(t, 20*time.Second, "the app to see its window lose the focus", func() (bool, string) {
		st := f.status()
		return !st.Focused && st.Sidebar > 0, fmt.Sprintf("%+v", st)
	})

	deliver := func(conv, from, text string, tried int) {
		t.Helper()
		if _, err := f.ctl.Deliver(conv, sim.Message{From: from, Text: text}); err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, 30*time.Second, "Clanker's notification for "+text+" and the page's try", func() (bool, string) {
			st, _ := f.ctl.Status()
			for _, c := range f.notes.calls() {
				if strings.Contains(c.Body, text) {
					return st.NotificationsTried >= tried, fmt.Sprintf("page tried %d", st.NotificationsTried)
				}
			}
			return false, fmt.Sprintf("notifications %+v; page tried %d; app %+v", f.notes.calls(), st.NotificationsTried, f.status())
		})
	}
	// Another conversation's message, then the open one's: a notification the page's
	// engine sent for the first would have reached the server by the time Clanker's for
	// the second did.
	deliver(jane, sim.DemoJane, "one message, one notification", 1)
	deliver(bob, sim.DemoBob, "the next message bounds the wait", 2)

	calls := f.notes.calls()
	for _, c := range calls {
		if c.App != "Clanker" {
			t.Errorf("a notification not from Clanker reached the server (the page's own?): %+v", c)
		}
	}
	var first int
	for _, c := range calls {
		if strings.Contains(c.Summary+c.Body, "one message, one notification") || (c.App != "Clanker" && strings.Contains(c.Summary+c.Body, "New message")) {
			first++
		}
	}
	if first != 1 || len(calls) != 2 {
		t.Fatalf("two messages while the window was behind another gave %d notifications (%d for the first), want one each from Clanker: %+v", len(calls), first, calls)
	}
	if st, _ := f.ctl.Status(); st.NotificationPermission != "denied" {
		t.Errorf("after the click's request the page reports permission %q, want denied", st.NotificationPermission)
	}
	if out := f.app.Output(); strings.Contains(out, "tried_to_show=true") {
		t.Errorf("a page notification reached WebKit's show-notification handler; the permission should have stopped it:\n%s", out)
	}
}
