package run

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/menus"
	"github.com/clanker-desktop/clanker/app/desktop/session"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/page"
)

type fakeNotifier struct {
	mu  sync.Mutex
	got []session.Notification
}

func (f *fakeNotifier) Notify(n session.Notification) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, n)
	return nil
}

func (f *fakeNotifier) Close() error { return nil }

func (f *fakeNotifier) shown() []session.Notification {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]session.Notification(nil), f.got...)
}

// notifyingApp is an App with only what the notification paths use.
func notifyingApp(ns engine.Notifications, hidden bool) (*App, *fakeNotifier) {
	st := engine.DefaultSettings()
	st.Notifications = ns
	a := &App{log: slog.New(slog.DiscardHandler), listeners: map[int]func(menus.Status){}}
	a.cur.Store(&effective{st: st})
	a.hidden.Store(hidden)
	a.focused.Store(!hidden)
	f := &fakeNotifier{}
	a.nt.n = f
	return a, f
}

func TestErrorNoticesAreNotifiedOncePerMinuteAndNeverWhenTurnedOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, f := notifyingApp(engine.Notifications{Errors: true}, false)
		refused := page.Notice{Text: "The API key was refused. Open Settings and enter a valid key."}
		a.onNotice(refused)
		a.onNotice(refused)
		a.onNotice(page.Notice{Banner: true, Key: bannerDemo, Text: DemoBanner})
		a.onNotice(page.Notice{Banner: true, Key: bannerFirstRun, Text: FirstRunBanner})
		synctest.Wait()
		if got := f.shown(); len(got) != 1 || !got[0].Urgent || got[0].Body != refused.Text {
			t.Fatalf("after the same error twice and two informational banners: notifications %+v, want the error once, urgent", got)
		}
		time.Sleep(noticeRepeat)
		a.onNotice(refused)
		synctest.Wait()
		if got := f.shown(); len(got) != 2 {
			t.Fatalf("the same error a minute later: %d notifications, want 2", len(got))
		}

		off, f2 := notifyingApp(engine.Notifications{Errors: false}, true)
		off.onNotice(refused)
		synctest.Wait()
		if got := f2.shown(); len(got) != 0 {
			t.Fatalf("error notifications are off, yet %+v were shown", got)
		}
	})
}

func TestIncomingMessagesWhileHiddenAreCountedAndNotifiedWithoutTextWhenHideContentIsOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, f := notifyingApp(engine.Notifications{IncomingWhileHidden: true, HideContent: true}, true)
		a.onIncoming(page.Incoming{Conversation: "c1", Sender: "Ann", Text: "the code is 4711"})
		a.onIncoming(page.Incoming{Conversation: "c2", Sender: "Bob", Text: "lunch?"})
		synctest.Wait()
		got := f.shown()
		summaries := map[string]bool{}
		for _, n := range got {
			summaries[n.Summary] = true
		}
		if len(got) != 2 || !summaries["New message from Ann"] || !summaries["New message from Bob"] {
			t.Fatalf("notifications %+v, want one per message, from Ann and from Bob", got)
		}
		for _, n := range got {
			if strings.Contains(n.Body+n.Summary, "4711") || strings.Contains(n.Body, "lunch") {
				t.Errorf("hide-content is on but a notification carries the text: %+v", n)
			}
		}
		if n := a.unreadCount(); n != 2 {
			t.Errorf("unread while hidden = %d, want 2", n)
		}

		visible, f2 := notifyingApp(engine.Notifications{IncomingWhileHidden: true}, false)
		visible.onIncoming(page.Incoming{Conversation: "c1", Sender: "Ann", Text: "hi"})
		synctest.Wait()
		if len(f2.shown()) != 0 || visible.unreadCount() != 0 {
			t.Errorf("with the window shown: notifications %+v, unread %d; want none", f2.shown(), visible.unreadCount())
		}

		quiet, f3 := notifyingApp(engine.Notifications{IncomingWhileHidden: false}, true)
		quiet.onIncoming(page.Incoming{Conversation: "c1", Sender: "Ann", Text: "hi"})
		synctest.Wait()
		if len(f3.shown()) != 0 || quiet.unreadCount() != 1 {
			t.Errorf("incoming notifications off: notifications %+v, unread %d; want none shown, 1 counted", f3.shown(), quiet.unreadCount())
		}
	})
}

// A window that is shown but not in front (behind another window, minimised) is away as
// much as a hidden one: each message is counted and notified, with its conversation as
// the click target. Coming to the front clears the count.
func TestIncomingMessagesWhileTheWindowIsBehindAreNotifiedWithTheirConversation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, f := notifyingApp(engine.DefaultSettings().Notifications, false)
		a.onIncoming(page.Incoming{Conversation: "c1", Sender: "Ann", Text: "in front"})
		a.focused.Store(false)
		a.onIncoming(page.Incoming{Conversation: "c2", Sender: "Bob", Text: "behind"})
		synctest.Wait()
		got := f.shown()
		if len(got) != 1 || got[0].Target != "c2" || got[0].Body != "behind" || got[0].Summary != "New message from Bob" {
			t.Fatalf("with the defaults, one message in front and one behind: notifications %+v; want Bob's only, opening c2", got)
		}
		if n := a.unreadCount(); n != 1 {
			t.Fatalf("unread while behind = %d, want 1", n)
		}
		a.onFocus(true)
		if n := a.unreadCount(); n != 0 {
			t.Fatalf("unread after coming to the front = %d, want 0", n)
		}
	})
}
