package engine_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// fakeDesktop records what the engine tells the desktop.
type fakeDesktop struct {
	mu      sync.Mutex
	notes   []engine.DesktopNotice
	unread  int
	urgent  bool
	attends int
}

func (d *fakeDesktop) Notify(n engine.DesktopNotice) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.notes = append(d.notes, n)
}

func (d *fakeDesktop) Attention(unread int, urgent bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.unread, d.urgent = unread, urgent
	d.attends++
}

func (d *fakeDesktop) all() []engine.DesktopNotice {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]engine.DesktopNotice(nil), d.notes...)
}

func (d *fakeDesktop) take() []engine.DesktopNotice {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := d.notes
	d.notes = nil
	return n
}

func (d *fakeDesktop) attention() (int, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.unread, d.urgent
}

// newDesktopHarness is a harness whose engine tells d about the desktop.
func newDesktopHarness(t *testing.T, hasKey bool, mutate ...func(*engine.Settings)) (*harness, *fakeDesktop) {
	t.Helper()
	h := newHarnessKey(t, hasKey, mutate...)
	d := &fakeDesktop{}
	h.cfg.Desktop = d
	h.restart()
	return h, d
}

// Messages that come while the window is behind another stack into one notification per
// conversation, updated in place ("3 new messages"); another conversation's notification is
// left alone; opening the conversation withdraws its notification only.
func TestNotificationsStackPerConversationAndAreWithdrawnWhenItIsOpened(t *testing.T) {
	run(t, func(t *testing.T) {
		h, d := newDesktopHarness(t, true, func(s *engine.Settings) { s.Notifications.Sound = true })
		h.page.Lock()
		h.page.Conv("g1").Name = "Climbing crew"
		h.page.Unlock()
		h.send(engine.SidebarUpdate{Rows: []engine.SidebarRow{{ID: "g1", Name: "Climbing crew"}, {ID: "c2", Name: "Bob"}}})
		h.open("c0", in("Zed", "hi"))
		h.send(engine.WindowFocus{Active: false})
		h.send(engine.MessageArrived{Conversation: "g1", Sender: "Ann", Text: "who's in on Saturday?"})
		h.send(engine.MessageArrived{Conversation: "c2", Sender: "Bob", Text: "lunch?"})
		h.send(engine.MessageArrived{Conversation: "g1", Sender: "Cem", Text: "me"})
		h.send(engine.MessageArrived{Conversation: "g1", Sender: "Ann", Text: "great, 10am"})
		notes := d.take()
		if len(notes) != 4 {
			t.Fatalf("want one notification call per message, got %+v", notes)
		}
		last := notes[3]
		if last.Key != engine.NoticeKeyMessages("g1") || last.Key == notes[1].Key || notes[0].Key != last.Key {
			t.Fatalf("want the group's messages under one key and Bob's under another, got keys %q %q %q %q", notes[0].Key, notes[1].Key, notes[2].Key, last.Key)
		}
		if last.Summary != "3 new messages in Climbing crew" || last.Body != "Ann: great, 10am" {
			t.Errorf("the group's third message: want %q / %q, got %q / %q", "3 new messages in Climbing crew", "Ann: great, 10am", last.Summary, last.Body)
		}
		if notes[1].Summary != "New message from Bob" || notes[1].Body != "lunch?" || notes[1].Conversation != "c2" {
			t.Errorf("Bob's message: got %+v", notes[1])
		}
		if !last.Sound || last.Urgent || last.Conversation != "g1" {
			t.Errorf("a message notification plays the sound when asked, is not urgent and opens its conversation on a click: %+v", last)
		}
		if unread, urgent := d.attention(); unread != 4 || !urgent {
			t.Errorf("four messages behind another window: want the count 4 and the urgency hint, got %d, %v", unread, urgent)
		}

		// The user comes back and opens the group: its notification goes, Bob's stays.
		h.send(engine.WindowFocus{Active: true})
		if unread, urgent := d.attention(); unread != 0 || urgent {
			t.Errorf("back at the window: want the count cleared and no urgency hint, got %d, %v", unread, urgent)
		}
		if got := d.take(); len(got) != 0 {
			t.Errorf("coming back to another conversation withdraws nothing, got %+v", got)
		}
		h.open("g1", in("Ann", "great, 10am"))
		if fg := h.snap().Foreground; fg == nil || fg.ID != "g1" {
			t.Fatalf("the group did not open: %+v", fg)
		}
		got := d.take()
		if len(got) != 1 || !got[0].Withdraw || got[0].Key != engine.NoticeKeyMessages("g1") {
			t.Fatalf("opening the group: want only its notification withdrawn, got %+v", got)
		}
		// A new message there while away starts a new stack.
		h.send(engine.WindowVisibility{Hidden: true})
		h.send(engine.MessageArrived{Conversation: "g1", Sender: "Cem", Text: "bring rope"})
		if got := d.take(); len(got) != 1 || got[0].Summary != "New message from Cem" {
			t.Errorf("after it was withdrawn the group starts again at one message, got %+v", got)
		}
	})
}

// A message the user can see is not notified; with the notifications for messages off the
// count still goes up; hide-content keeps every word of the text out.
func TestMessageNotificationsFollowTheSettingsAndTheWindow(t *testing.T) {
	run(t, func(t *testing.T) {
		h, d := newDesktopHarness(t, true, func(s *engine.Settings) { s.Notifications.HideContent = true })
		h.send(engine.MessageArrived{Conversation: "c1", Sender: "Ann", Text: "in front"})
		if got := d.take(); len(got) != 0 {
			t.Fatalf("a message while the window is in front: want no notification, got %+v", got)
		}
		h.send(engine.WindowVisibility{Hidden: true})
		h.send(engine.MessageArrived{Conversation: "c1", Sender: "Ann", Text: "the code is 4711"})
		h.send(engine.MessageArrived{Conversation: "c1", Sender: "Ann", Text: "and the door is blue"})
		got := d.take()
		if len(got) != 2 || got[1].Summary != "2 new messages from Ann" || got[1].Body != "Open Clanker to read them." || got[1].Sound {
			t.Fatalf("hidden content: want the count and sender only, no sound by default, got %+v", got)
		}
		for _, n := range got {
			if strings.Contains(n.Summary+n.Body, "4711") || strings.Contains(n.Summary+n.Body, "blue") {
				t.Errorf("hide-content is on but a notification carries the text: %+v", n)
			}
		}
		s := testSettings()
		s.Notifications.IncomingWhileHidden = false
		h.send(engine.SettingsChanged{Settings: s, HasAPIKey: true})
		h.send(engine.MessageArrived{Conversation: "c2", Sender: "Bob", Text: "lunch?"})
		if got := d.take(); len(got) != 0 {
			t.Errorf("notifications for messages off: want none, got %+v", got)
		}
		if unread, urgent := d.attention(); unread != 3 || !urgent {
			t.Errorf("the count goes on with notifications off: want 3 and the urgency hint, got %d, %v", unread, urgent)
		}
	})
}

// Errors the page shows become one desktop notification each, once a minute at most for the
// same text, when the user asked for them; the configuration banner and the pairing banner
// never do; the unrecognised-page warning does.
func TestErrorNotificationsAreDecidedAndDedupedByTheEngine(t *testing.T) {
	run(t, func(t *testing.T) {
		h, d := newDesktopHarness(t, true)
		refused := "The API key was refused. Open Settings and enter a valid key."
		errs := func() (n []engine.DesktopNotice) {
			for _, x := range d.all() {
				if x.Key == engine.NoticeKeyError {
					n = append(n, x)
				}
			}
			return n
		}
		runOnEngine(h, func(e *engine.Engine) { e.Toast("error", refused) })
		runOnEngine(h, func(e *engine.Engine) { e.Toast("error", refused) })
		runOnEngine(h, func(e *engine.Engine) { e.Toast("info", "Clanker will announce itself.") })
		if got := errs(); len(got) != 1 || got[0].Body != refused || !got[0].Urgent || got[0].Summary != "Clanker" {
			t.Fatalf("the same error twice within a minute: want one urgent notification, got %+v", got)
		}
		h.wait(engine.NoticeRepeat)
		runOnEngine(h, func(e *engine.Engine) { e.Toast("error", refused) })
		if got := errs(); len(got) != 2 {
			t.Fatalf("the same error a minute later: want it told again, got %+v", got)
		}
		runOnEngine(h, func(e *engine.Engine) { e.Banner(engine.BannerSettings, "The endpoint cannot be used.") })
		if got := errs(); len(got) != 3 || got[2].Body != "The endpoint cannot be used." {
			t.Fatalf("an error banner: want it notified, got %+v", got)
		}

		h.send(engine.PageStateChanged{State: engine.PageSignedOut})
		if b := bannerUnder(h, engine.BannerPage); b != engine.PairingExplanation {
			t.Fatalf("signed-out page: want the pairing banner, got %q", b)
		}
		if got := errs(); len(got) != 3 {
			t.Fatalf("the pairing banner is no error: want no notification, got %+v", got)
		}
		h.send(engine.PageStateChanged{State: engine.PageLoading})
		if b := bannerUnder(h, engine.BannerPage); b != engine.PairingExplanation {
			t.Fatalf("a reload keeps the pairing banner until the page says more, got %q", b)
		}
		h.send(engine.PageStateChanged{State: engine.PageUnrecognised})
		if b := bannerUnder(h, engine.BannerPage); b != engine.UnrecognisedWarning {
			t.Fatalf("unrecognised page: want the warning, got %q", b)
		}
		if got := errs(); len(got) != 4 || got[3].Body != engine.UnrecognisedWarning {
			t.Fatalf("the unrecognised page is an error: want it notified, got %+v", got)
		}
		h.send(engine.PageStateChanged{State: engine.PageReady})
		if b := bannerUnder(h, engine.BannerPage); b != "" {
			t.Fatalf("ready page: want the page banner removed, got %q", b)
		}

		s := testSettings()
		s.Notifications.Errors = false
		h.send(engine.SettingsChanged{Settings: s, HasAPIKey: true})
		runOnEngine(h, func(e *engine.Engine) { e.Toast("error", "Another failure.") })
		if got := errs(); len(got) != 4 {
			t.Fatalf("error notifications off: want none, got %+v", got)
		}
	})
}

// A first start is calm: one banner of one sentence naming what is missing, worded for the
// settings window being open or not, and no desktop notification for it.
func TestTheConfigurationBannerIsOneSentenceAndNeverANotification(t *testing.T) {
	run(t, func(t *testing.T) {
		h, d := newDesktopHarness(t, false, func(s *engine.Settings) { s.Endpoint, s.Model, s.UserName = "", "", "" })
		if b := bannerUnder(h, engine.BannerConfig); b != "Clanker is not set up yet: open Settings and enter the endpoint, an API key, a model and your name." {
			t.Fatalf("unconfigured at start: got the banner %q", b)
		}
		h.send(engine.SettingsWindow{Open: true})
		if b := bannerUnder(h, engine.BannerConfig); b != "To start, Clanker needs the endpoint, an API key, a model and your name: enter them in the settings window." {
			t.Fatalf("with the settings window open: got the banner %q", b)
		}
		s := testSettings()
		s.Model = ""
		h.send(engine.SettingsChanged{Settings: s, HasAPIKey: true})
		if b := bannerUnder(h, engine.BannerConfig); b != "To start, Clanker needs a model: enter it in the settings window." {
			t.Fatalf("one thing missing, settings window open: got %q", b)
		}
		h.send(engine.SettingsWindow{Open: false})
		if b := bannerUnder(h, engine.BannerConfig); b != "Clanker is not set up yet: open Settings and enter a model." {
			t.Fatalf("settings window closed with the model missing: got %q", b)
		}
		h.send(engine.SettingsChanged{Settings: testSettings(), HasAPIKey: true})
		if b := bannerUnder(h, engine.BannerConfig); b != "" {
			t.Fatalf("complete settings: want the banner removed, got %q", b)
		}
		if got := d.all(); len(got) != 0 {
			t.Fatalf("a first start gives no desktop notification, got %+v", got)
		}
	})
}

// The model a request asks travels in the request: the conversation's own, read when the
// request starts, else the global one.
func TestTheRequestCarriesTheConversationsModel(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "clanker, what's up?"))
		h.wait(time.Minute)
		reqs := h.wantRequests(1, "active conversation")
		if reqs[0].Model != "test-model" {
			t.Fatalf("no model of its own: want the global model, got %q", reqs[0].Model)
		}
		h.store.Lock()
		rec := h.store.Recs["c1"]
		rec.ModelOverride = "big-model"
		h.store.Recs["c1"] = rec
		h.store.Unlock()
		h.receive("c1", in("Ann", "clanker, and now?"))
		h.wait(time.Minute)
		reqs = h.wantRequests(2, "second message")
		if reqs[1].Model != "big-model" {
			t.Fatalf("the conversation's model chosen while it was open: want big-model, got %q", reqs[1].Model)
		}
	})
}

// runOnEngine runs fn on the engine goroutine, as the engine's own code runs.
func runOnEngine(h *harness, fn func(e *engine.Engine)) {
	h.t.Helper()
	h.send(engine.OnEngine(func() { fn(h.e) }))
}

// bannerUnder is the text of the newest banner command under key ("" when removed or never
// shown).
func bannerUnder(h *harness, key string) string {
	text := ""
	for _, c := range h.page.Commands(engine.CmdBanner) {
		if c.Key == key {
			text = c.Text
		}
	}
	return text
}

// Showing the window reports two things, whichever comes first: the window is visible and it
// has the focus. Full-app runs saw the focus come before the visibility; the count of unread
// messages must clear when the second of the two arrives, whichever it is.
func TestUnreadCountClearsWhicheverOfShownAndFocusedComesLast(t *testing.T) {
	for _, focusFirst := range []bool{true, false} {
		run(t, func(t *testing.T) {
			h, d := newDesktopHarness(t, true)
			h.open("c0", in("Zed", "hi"))
			h.send(engine.WindowVisibility{Hidden: true})
			h.send(engine.WindowFocus{Active: false})
			h.send(engine.MessageArrived{Conversation: "c2", Sender: "Bob", Text: "lunch?"})
			h.send(engine.MessageArrived{Conversation: "c2", Sender: "Bob", Text: "at one?"})
			if unread, urgent := d.attention(); unread != 2 || !urgent {
				t.Fatalf("two messages while hidden: want the count 2 and the urgency hint, got %d, %v", unread, urgent)
			}
			if focusFirst {
				h.send(engine.WindowFocus{Active: true})
				h.send(engine.WindowVisibility{Hidden: false})
			} else {
				h.send(engine.WindowVisibility{Hidden: false})
				h.send(engine.WindowFocus{Active: true})
			}
			if unread, urgent := d.attention(); unread != 0 || urgent {
				t.Errorf("shown and focused (focus first: %v): want the count cleared and no urgency hint, got %d, %v", focusFirst, unread, urgent)
			}
		})
	}
}
