//go:build linux

package e2e

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/clanker-desktop/clanker/app/desktop/session"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// notifyServer is a stand-in for the desktop's notification daemon on the private bus:
// it owns org.freedesktop.Notifications and records every Notify call.
type notifyServer struct {
	mu     sync.Mutex
	got    []notifyCall
	closed []uint32
	next   uint32
	conn   *dbus.Conn
}

type notifyCall struct {
	App, Icon, Summary, Body string
	ReplacesID               uint32
	Urgency                  byte
	Actions                  []string
	// Sound is the sound-name hint ("" when none was asked for).
	Sound string
	// ID is the id the server answered with: the replaced one's when it replaced one.
	ID uint32
}

// click does what a notification server does when the user clicks notification id:
// it emits ActionInvoked with the "default" action.
func (s *notifyServer) click(id uint32) error {
	return s.conn.Emit("/org/freedesktop/Notifications", "org.freedesktop.Notifications.ActionInvoked", id, "default")
}

// Notify is the org.freedesktop.Notifications method, with its D-Bus signature.
func (s *notifyServer) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var urgency byte
	if v, ok := hints["urgency"]; ok {
		urgency, _ = v.Value().(byte)
	}
	var sound string
	if v, ok := hints["sound-name"]; ok {
		sound, _ = v.Value().(string)
	}
	// As the specification says: a notification that replaces one keeps its id.
	id := replaces
	if id == 0 {
		s.next++
		id = s.next
	}
	s.got = append(s.got, notifyCall{App: app, Icon: icon, Summary: summary, Body: body, ReplacesID: replaces, Urgency: urgency, Actions: actions, Sound: sound, ID: id})
	return id, nil
}

// CloseNotification is the org.freedesktop.Notifications method: it records the id and
// emits NotificationClosed (reason 3: closed by a call to CloseNotification).
func (s *notifyServer) CloseNotification(id uint32) *dbus.Error {
	s.mu.Lock()
	s.closed = append(s.closed, id)
	s.mu.Unlock()
	_ = s.conn.Emit("/org/freedesktop/Notifications", "org.freedesktop.Notifications.NotificationClosed", id, uint32(3))
	return nil
}

func (s *notifyServer) closedIDs() []uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]uint32(nil), s.closed...)
}

func (s *notifyServer) calls() []notifyCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]notifyCall(nil), s.got...)
}

// startNotifyServer claims the notification service name on the display's bus.
func startNotifyServer(t *testing.T) *notifyServer {
	t.Helper()
	conn, err := dbus.Connect(display.BusAddr)
	if err != nil {
		t.Fatalf("connect to the private bus: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	s := &notifyServer{conn: conn}
	if err := conn.Export(s, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.freedesktop.Notifications on the private bus: reply %v, err %v", reply, err)
	}
	return s
}

func TestNotificationsReachTheSessionNotificationServerAndHideContentWhenAsked(t *testing.T) {
	needDisplay(t)
	srv := startNotifyServer(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", display.BusAddr)
	n, err := session.NewNotifier("Clanker", "clanker")
	if err != nil {
		t.Fatalf("NewNotifier on the private bus: %v", err)
	}
	defer n.Close()

	const secret = "the meeting moved to <b>4pm</b> & bring the keys"
	if err := n.Notify(session.IncomingMessage("Alice", secret, false)); err != nil {
		t.Fatalf("Notify (content shown): %v", err)
	}
	if err := n.Notify(session.IncomingMessage("Bob", secret, true)); err != nil {
		t.Fatalf("Notify (content hidden): %v", err)
	}
	if err := n.Notify(session.ErrorNotification("The API key was refused (401). Open Settings and enter a valid key.")); err != nil {
		t.Fatalf("Notify (error): %v", err)
	}

	var calls []notifyCall
	testkit.WaitFor(t, 30*time.Second, "three notifications at the test server", func() (bool, string) {
		calls = srv.calls()
		return len(calls) == 3, strings.Repeat("call ", len(calls))
	})
	shown, hidden, errN := calls[0], calls[1], calls[2]
	if shown.App != "Clanker" || shown.Summary != "New message from Alice" {
		t.Errorf("shown notification: want app Clanker and summary %q, got %+v", "New message from Alice", shown)
	}
	if want := "the meeting moved to &lt;b&gt;4pm&lt;/b&gt; &amp; bring the keys"; shown.Body != want {
		t.Errorf("shown notification body: want the text with markup escaped %q, got %q", want, shown.Body)
	}
	if hidden.Summary != "New message from Bob" {
		t.Errorf("hidden-content notification: want the sender in the summary, got %q", hidden.Summary)
	}
	for _, word := range []string{"meeting", "4pm", "keys"} {
		if strings.Contains(hidden.Body+hidden.Summary, word) {
			t.Errorf("hide-content is on but the notification carries %q: %+v", word, hidden)
		}
	}
	if errN.Urgency != 2 || !strings.Contains(errN.Body, "API key was refused") {
		t.Errorf("error notification: want critical urgency (2) and the sentence, got %+v", errN)
	}
	if hidden.ReplacesID != 0 || errN.ReplacesID != 0 {
		t.Errorf("notifications of different keys replace none of the others, got replaces %d and %d", hidden.ReplacesID, errN.ReplacesID)
	}

	// A second error replaces the first in place; withdrawing it closes it on the server.
	if err := n.Notify(session.ErrorNotification("The budget is spent.")); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, 30*time.Second, "the second error", func() (bool, string) { return len(srv.calls()) == 4, "" })
	if again := srv.calls()[3]; again.ReplacesID != errN.ID || again.ID != errN.ID {
		t.Errorf("a second error: want it to replace the first (%d), got %+v", errN.ID, again)
	}
	if err := n.Withdraw(engine.NoticeKeyError); err != nil {
		t.Fatal(err)
	}
	if got := srv.closedIDs(); len(got) != 1 || got[0] != errN.ID {
		t.Errorf("withdrawing the error: want CloseNotification(%d), got %v", errN.ID, got)
	}
}
