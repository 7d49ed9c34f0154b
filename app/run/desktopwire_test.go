package run

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/clanker-desktop/clanker/app/desktop/menus"
	"github.com/clanker-desktop/clanker/app/desktop/session"
	"github.com/clanker-desktop/clanker/app/engine"
)

type fakeNotifier struct {
	mu        sync.Mutex
	got       []session.Notification
	withdrawn []string
}

func (f *fakeNotifier) Notify(n session.Notification) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, n)
	return nil
}

func (f *fakeNotifier) Withdraw(key string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.withdrawn = append(f.withdrawn, key)
	return nil
}

func (f *fakeNotifier) Close() error { return nil }

func (f *fakeNotifier) shown() ([]session.Notification, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]session.Notification(nil), f.got...), append([]string(nil), f.withdrawn...)
}

// notifyingApp is an App with only what the desktop paths use.
func notifyingApp(t *testing.T) (*App, *fakeNotifier) {
	a := &App{log: slog.New(slog.DiscardHandler), listeners: map[int]func(menus.Status){}}
	a.ctx, a.cancel = context.WithCancel(context.Background())
	t.Cleanup(a.cancel)
	a.cur.Store(&effective{st: engine.DefaultSettings()})
	f := &fakeNotifier{}
	a.nt.n = f
	return a, f
}

// The app carries out what the engine decided, in the engine's order and without deciding
// anything itself: a notification under its key (with its click target and sound), a
// withdrawal of that key, and the unread count the tray shows.
func TestTheDesktopCarriesOutTheEnginesNotificationsInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, f := notifyingApp(t)
		d := newDesktopOut(a)
		d.Notify(engine.DesktopNotice{Key: engine.NoticeKeyMessages("g1"), Conversation: "g1", Summary: "3 new messages in Climbing crew", Body: "Ann: great", Sound: true})
		d.Attention(3, true)
		d.Notify(engine.DesktopNotice{Key: engine.NoticeKeyMessages("g1"), Withdraw: true})
		synctest.Wait()
		got, withdrawn := f.shown()
		if len(got) != 1 {
			t.Fatalf("want one notification shown, got %+v", got)
		}
		n := got[0]
		if n.Key != "messages:g1" || n.Target != "g1" || n.Summary != "3 new messages in Climbing crew" || n.Body != "Ann: great" || !n.Sound || n.Urgent {
			t.Errorf("the notification does not say what the engine decided: %+v", n)
		}
		if len(withdrawn) != 1 || withdrawn[0] != "messages:g1" {
			t.Errorf("want the group's notification withdrawn, got %v", withdrawn)
		}
		if u := a.unreadCount(); u != 3 {
			t.Errorf("the tray's count: want the engine's 3, got %d", u)
		}
	})
}
