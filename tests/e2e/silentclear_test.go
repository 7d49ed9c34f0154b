//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/fakellm"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// composeBox is the simulator's compose box.
const composeBox = "[data-e2e-message-input-box]"

// TestFullAppOnAPageThatClearsSilently runs the real binary, with real X key presses, on a
// page that empties the compose box after a send by setting its value, with no input event,
// as a framework's model binding does (issue 27.1-27.3). The bridge never hears the box go
// empty; Clanker must still see it, answer what it owes, and never send the user's words
// inside its own message or lose them. One app run serves every step, in order.
func TestFullAppOnAPageThatClearsSilently(t *testing.T) {
	needDisplay(t)
	f := newFullApp(t)
	f.t = t
	if err := f.ctl.SetVariant(sim.VariantClearSilently); err != nil {
		t.Fatal(err)
	}
	f.configure()
	f.launch()
	bob := f.conversation(sim.DemoBob)
	testkit.WaitFor(t, 30*time.Second, "the app to run configured", func() (bool, string) {
		st := f.status()
		return st.Configured, fmt.Sprintf("%+v", st)
	})
	f.open(bob)
	f.pillMenu("available")
	f.waitSent(bob, engine.AvailableText)
	f.waitQuiet()

	// 27.1: the user types and sends with real keys; the box is emptied without an event.
	// A mention that follows is answered, with no click anywhere to make the bridge look.
	if !t.Run("AfterTheUsersSendAMentionIsAnswered", func(t *testing.T) {
		f.t = t
		f.llm.SetDefault(fakellm.JSONReply("Yes Bob, I saw Sam's message.", "Bob asked whether Clanker saw it."))
		f.clickBox()
		f.userTypes("lunch at noon?")
		f.userSends(bob, "lunch at noon?")
		if _, err := f.ctl.Deliver(bob, sim.Message{From: "Bob", Text: "clanker, did you see Sam's message?"}); err != nil {
			t.Fatal(err)
		}
		f.waitSent(bob, "[clanker] Yes Bob, I saw Sam's message.")
		f.waitQuiet()
		if ss := f.sends(bob, "[clanker] Yes Bob"); len(ss) != 1 {
			t.Fatalf("want the mention answered once, got %+v", ss)
		}
		f.noUntrustedInput()
	}) {
		return
	}

	// 27.1: a second draft typed with real keys after the silent clear is seen (Clanker holds
	// its answer behind it), and when the user sends it, the page again emptying the box
	// without an event, Clanker answers what it owes, after the user's message.
	if !t.Run("ASecondDraftIsHeldBehindAndWhatIsOwedIsAnsweredWhenItIsSent", func(t *testing.T) {
		f.t = t
		const answer = "Dessert is a fine idea, Bob."
		f.llm.SetDefault(fakellm.JSONReply(answer, "Bob asked about dessert."))
		f.clickBox()
		f.userTypes("and dessert after")
		if _, err := f.ctl.Deliver(bob, sim.Message{From: "Bob", Text: "clanker, what about dessert?"}); err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, 30*time.Second, "the answer to be held behind the user's draft", func() (bool, string) {
			st := f.status()
			return (st.Pending || st.QueuedSends > 0) && !st.Sending && st.Draft, fmt.Sprintf("%+v", st)
		})
		if ss := f.sends(bob, "[clanker] "+answer); len(ss) != 0 {
			t.Fatalf("Clanker answered while the user's draft was in the box: %+v", ss)
		}
		mine := f.userSends(bob, "and dessert after")
		f.waitSent(bob, "[clanker] "+answer)
		f.waitQuiet()
		f.answeredOnceAfter(bob, "[clanker] "+answer, mine)
		f.noUntrustedInput()
	}) {
		return
	}

	// 27.2: Clanker is typing its answer to a mention; the user types and sends their own
	// words. Their message is exactly their characters, and Bob, who asked, still gets one
	// whole answer, posted after the user's message.
	if !t.Run("TheUserSendsTheirOwnWordsWhileClankerTypesAndTheAskerIsStillAnswered", func(t *testing.T) {
		f.t = t
		story := "Tacos started as folded tortillas with fillings; every town has its own."
		f.llm.SetDefault(fakellm.JSONReply(story, "Bob asked about tacos."))
		steps := f.status().Commands["type_step"]
		if _, err := f.ctl.Deliver(bob, sim.Message{From: "Bob", Text: "clanker, tell me about tacos"}); err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, 60*time.Second, "Clanker to start typing", func() (bool, string) {
			st := f.status()
			return st.Commands["type_step"]-steps >= 3, fmt.Sprintf("%+v", st)
		})
		// Clanker's typing keeps the box focused with the caret at its end: the user's keys
		// go there, after Clanker's partial text.
		f.userTypes("wait, me first")
		testkit.WaitFor(t, 20*time.Second, "Clanker to stop typing and hold its answer", func() (bool, string) {
			st := f.status()
			return !st.Sending && st.Draft, fmt.Sprintf("%+v", st)
		})
		if ss := f.sends(bob, "[clanker] Tacos"); len(ss) != 0 {
			t.Fatalf("the answer was sent while the user was typing: %+v", ss)
		}
		mine := f.userSends(bob, "wait, me first")
		f.waitSent(bob, "[clanker] "+story)
		f.waitQuiet()
		f.answeredOnceAfter(bob, "[clanker] "+story, mine)
		f.noUntrustedInput()
	}) {
		return
	}

	// 27.3: the user moves the caret back into Clanker's half-typed text and types there
	// (real keys between Clanker's typing steps). No message mixes their characters with
	// Clanker's, their characters are what stays in the box (the Enter sends exactly them),
	// and when Clanker's text had to be taken out around theirs the user is told. The page
	// reports every value its box takes, so the test knows the keys did land inside
	// Clanker's text; should a typing step fall just before the user's first character (it
	// puts the caret back at the end), the round is played again.
	if !t.Run("TheUserTypesIntoClankersHalfTypedText", func(t *testing.T) {
		f.t = t
		mixed := false
		for round := 1; round <= 3 && !mixed; round++ {
			f.waitQuiet()
			// The user's characters are digits; Clanker's text has none, so the page's
			// record tells them apart.
			story := "Pancakes want a hot pan, a rested batter and patience (try " + strings.Repeat("I", round) + ")."
			f.llm.SetDefault(fakellm.JSONReply(story, "Bob asked about pancakes."))
			box := f.recordBox()
			steps := f.status().Commands["type_step"]
			toasts := f.status().Commands["show_toast"]
			if _, err := f.ctl.Deliver(bob, sim.Message{From: "Bob", Text: "clanker, how do you make pancakes? (" + strconv.Itoa(round) + ")"}); err != nil {
				t.Fatal(err)
			}
			testkit.WaitFor(t, 60*time.Second, "Clanker to type part of its answer", func() (bool, string) {
				st := f.status()
				return st.Commands["type_step"]-steps >= 25, fmt.Sprintf("%+v", st)
			})
			// The caret is at the end of Clanker's text (each typing step puts it there):
			// the user moves it back five characters and types. The keys come 2 ms apart, so
			// a typing step seldom falls between the last Left and the 4.
			xdo(t, "key", "--delay", "2", "Left", "Left", "Left", "Left", "Left", "4", "2")
			testkit.WaitFor(t, 20*time.Second, "Clanker to stop typing and hold its answer", func() (bool, string) {
				st := f.status()
				return !st.Sending && st.Draft, fmt.Sprintf("%+v", st)
			})
			held := f.status().Commands["type_step"]
			time.Sleep(time.Second)
			if n := f.status().Commands["type_step"]; n != held {
				t.Fatalf("Clanker typed %d more steps into the user's text", n-held)
			}
			var values []string
			mixed, values = box.mixed("42")
			t.Logf("round %d: the box held, in order: %q", round, values)
			if mixed {
				testkit.WaitFor(t, 20*time.Second, "the user to be told Clanker's text was taken out of theirs", func() (bool, string) {
					n := f.status().Commands["show_toast"]
					return n > toasts, fmt.Sprintf("%d toasts, %d before", n, toasts)
				})
			}
			mine := f.userSends(bob, "42")
			f.waitSent(bob, "[clanker] "+story)
			f.waitQuiet()
			f.answeredOnceAfter(bob, "[clanker] "+story, mine)
			t.Logf("round %d: the user's keys landed inside Clanker's text: %v", round, mixed)
		}
		if !mixed {
			t.Fatal("in 3 rounds the user's keys never landed inside Clanker's half-typed text; the step proved nothing")
		}
		for _, s := range f.sends("", "") {
			if strings.Contains(s.Text, "[clanker]") && strings.ContainsAny(s.Text, "42") {
				t.Fatalf("a message mixes the user's characters with Clanker's: %q", s.Text)
			}
		}
		f.noUntrustedInput()
	}) {
		return
	}

	// 27.1 in Active: after the user's send (the box emptied without an event) the next
	// message from Bob gets a request to the model.
	t.Run("InActiveTheNextMessageAfterTheUsersSendIsDecided", func(t *testing.T) {
		f.t = t
		f.llm.SetDefault(fakellm.NullReply())
		f.pillMenu("active")
		f.waitMode("active")
		f.waitQuiet()
		f.clickBox()
		f.userTypes("see you all at eight")
		f.userSends(bob, "see you all at eight")
		n := len(f.llm.Requests())
		const bobs = "sounds good, see you then"
		if _, err := f.ctl.Deliver(bob, sim.Message{From: "Bob", Text: bobs}); err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, 60*time.Second, "the model to be asked about Bob's message", func() (bool, string) {
			reqs := f.llm.Requests()
			for _, r := range reqs[n:] {
				if strings.Contains(requestText(r), bobs) {
					return true, ""
				}
			}
			return false, fmt.Sprintf("%d requests since; app %+v", len(reqs)-n, f.status())
		})
		f.waitQuiet()
		f.noUntrustedInput()
	})
}

// clickBox clicks into the compose box with the real mouse. The pointer leaves it first:
// the click waits for the pointer to arrive (xdotool's --sync), which, when it is already
// there from the last click, takes seconds.
func (f *fullApp) clickBox() {
	f.t.Helper()
	xdo(f.t.(*testing.T), "mousemove", "0", "0")
	f.clickElement(composeBox)
}

// userTypes types text with real key presses into whatever has the focus and waits until
// the app sees the user's draft.
func (f *fullApp) userTypes(text string) {
	f.t.Helper()
	xdo(f.t.(*testing.T), "type", "--delay", "40", text)
	testkit.WaitFor(f.t, 20*time.Second, "the app to see the user's draft", func() (bool, string) {
		st := f.status()
		return st.Draft, fmt.Sprintf("%+v", st)
	})
}

// userSends presses a real Enter in the compose box and waits until the page sent a
// message, which must be the user's, exactly want (their characters and nothing of
// Clanker's): whatever Clanker owes is held while the user's draft is in the box, so the
// user's message is the next the page sends. It returns the message's place among the
// page's sends.
func (f *fullApp) userSends(conv, want string) int {
	f.t.Helper()
	at := len(f.sends("", ""))
	xdo(f.t.(*testing.T), "key", "Return")
	testkit.WaitFor(f.t, 20*time.Second, fmt.Sprintf("the user's message %q to be sent", want), func() (bool, string) {
		all := f.sends("", "")
		return len(all) > at, fmt.Sprintf("app %+v", f.status())
	})
	s := f.sends("", "")[at]
	if s.Conversation != conv || s.Text != want || !s.Trusted || s.Via != "enter" {
		f.t.Fatalf("the user's Enter sent %+v; want exactly %q in %s by a trusted Enter", s, want, conv)
	}
	return at
}

// answeredOnceAfter checks that the page sent text in conv exactly once, whole, and after
// the page's send number after.
func (f *fullApp) answeredOnceAfter(conv, text string, after int) {
	f.t.Helper()
	all := f.sends("", "")
	var at []int
	for i, s := range all {
		if s.Conversation == conv && s.Text == text {
			at = append(at, i)
		}
	}
	if len(at) != 1 || at[0] < after {
		f.t.Fatalf("want %q sent once after the user's message (send %d), got it at %v of %+v", text, after, at, all)
	}
	// Nothing of the answer went out in pieces either.
	if n := slices.IndexFunc(all, func(s sim.Send) bool { return strings.HasPrefix(text, s.Text) && s.Text != text }); n >= 0 {
		f.t.Fatalf("a partial answer was sent: %q", all[n].Text)
	}
}

// boxRecorder keeps every value the page's compose box takes at an input event (the user's
// keys, Clanker's insertions and deletions), in order, as the page posts them to a loopback
// server of the test's.
type boxRecorder struct {
	srv    *httptest.Server
	mu     sync.Mutex
	values []string
}

// recordBox has the page post its compose box's value at every input event from now on.
func (f *fullApp) recordBox() *boxRecorder {
	f.t.Helper()
	b := &boxRecorder{}
	b.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		b.mu.Lock()
		b.values = append(b.values, string(body))
		b.mu.Unlock()
	}))
	f.t.Cleanup(b.srv.Close)
	to, _ := json.Marshal(b.srv.URL)
	f.postBody("/page-script", `(() => {
		window.__e2eBoxTo = `+string(to)+`;
		if (window.__e2eBoxWatch) return;
		window.__e2eBoxWatch = true;
		let chain = Promise.resolve();
		document.addEventListener('input', () => {
			const box = document.querySelector('`+composeBox+`');
			if (!box) return;
			const v = box.value !== undefined ? box.value : box.innerText;
			const to = window.__e2eBoxTo;
			chain = chain.then(() => fetch(to, { method: 'POST', mode: 'no-cors', body: v }).catch(() => {}));
		}, true);
	})()`)
	return b
}

// mixed reports whether the box ever held one of the characters of user inside other text
// (Clanker's): after a character that is not one of them and before another such character.
func (b *boxRecorder) mixed(user string) (bool, []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	mine := func(r rune) bool { return strings.ContainsRune(user, r) }
	for _, v := range b.values {
		rs := []rune(v)
		for i := 1; i+1 < len(rs); i++ {
			if mine(rs[i]) && !mine(rs[i-1]) && slices.ContainsFunc(rs[i+1:], func(r rune) bool { return !mine(r) }) {
				return true, slices.Clone(b.values)
			}
		}
	}
	return false, slices.Clone(b.values)
}
