//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/run/testctl"
	"github.com/clanker-desktop/clanker/tests/fakellm"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// pageRect mirrors the test control's answer to GET /rect: an element's bounding box in
// CSS pixels of the page's viewport, and the viewport's size.
type pageRect struct {
	Found       bool    `json:"found"`
	X           float64 `json:"x"`
	Y           float64 `json:"y"`
	Width       float64 `json:"width"`
	Height      float64 `json:"height"`
	InnerWidth  float64 `json:"innerWidth"`
	InnerHeight float64 `json:"innerHeight"`
}

// rect asks the running app where the first element matching selector is on the page.
func (f *fullApp) rect(selector string) pageRect {
	f.t.Helper()
	resp, err := f.request("GET", "/rect?selector="+url.QueryEscape(selector))
	if err != nil {
		f.t.Fatalf("measure %s: %v", selector, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		f.t.Fatalf("measure %s: %s", selector, resp.Status)
	}
	var r pageRect
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		f.t.Fatalf("decode the measurement of %s: %v", selector, err)
	}
	if !r.Found || r.Width <= 0 || r.Height <= 0 || r.InnerWidth <= 0 || r.InnerHeight <= 0 {
		f.t.Fatalf("the page has no visible element %s: %+v", selector, r)
	}
	return r
}

// viewportOrigin is where the page's viewport (0,0) is on the X screen: the window's
// position plus the part of the window above and left of the web view (the menu bar).
// The web view fills the rest of the window, so that part is the window's size less the
// viewport's.
func viewportOrigin(t testing.TB, r pageRect) (x, y int) {
	t.Helper()
	wx, wy, ww, wh := windowGeometry(t, "Clanker")
	offX, offY := ww-int(r.InnerWidth), wh-int(r.InnerHeight)
	if offX < 0 || offY < 0 || offY > 200 {
		t.Fatalf("the window (%dx%d) and the page's viewport (%vx%v) do not fit together", ww, wh, r.InnerWidth, r.InnerHeight)
	}
	return wx + offX, wy + offY
}

// clickElement clicks the middle of the first element matching selector with the real
// mouse.
func (f *fullApp) clickElement(selector string) {
	f.t.Helper()
	r := f.rect(selector)
	ox, oy := viewportOrigin(f.t, r)
	clickSync(f.t, ox+int(r.X+r.Width/2), oy+int(r.Y+r.Height/2))
}

func clickSync(t testing.TB, x, y int) {
	t.Helper()
	cmd := exec.Command("xdotool", "mousemove", "--sync", strconv.Itoa(x), strconv.Itoa(y), "click", "1")
	cmd.Env = []string{"DISPLAY=" + display.Name}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xdotool click at %d,%d: %v: %s", x, y, err, out)
	}
}

// overlayCancelPoint finds the visit overlay's Cancel button on the screen. The overlay
// lives in the bridge's closed shadow root, out of reach of page queries, so it is found
// as the user sees it: the card is centred in the viewport and is the only pure white on
// the dimmed page, the button is its last item, inside the card's 24 px right padding,
// and centred on the card's middle line. It answers ok=false while no card is drawn.
func (f *fullApp) overlayCancelPoint() (x, y int, ok bool) {
	f.t.Helper()
	r := f.rect("body")
	ox, oy := viewportOrigin(f.t, r)
	cx, cy := ox+int(r.InnerWidth/2), oy+int(r.InnerHeight/2)
	shot := filepath.Join(f.t.TempDir(), "overlay.png")
	if err := display.Screenshot(shot); err != nil {
		f.t.Fatal(err)
	}
	file, err := os.Open(shot)
	if err != nil {
		f.t.Fatal(err)
	}
	defer file.Close()
	img, err := png.Decode(file)
	if err != nil {
		f.t.Fatalf("decode the screenshot: %v", err)
	}
	white := func(p image.Point) bool {
		r, g, b, _ := img.At(p.X, p.Y).RGBA()
		return r>>8 >= 250 && g>>8 >= 250 && b>>8 >= 250
	}
	right := -1
	for px := cx; px < ox+int(r.InnerWidth); px++ {
		if white(image.Pt(px, cy)) {
			right = px
		}
	}
	// The card holds a sentence and the button: wider than 100 px, narrower than the page.
	if right-cx < 50 || right >= ox+int(r.InnerWidth)-10 {
		return 0, 0, false
	}
	return right - 24 - 20, cy, true
}

// startVisitToJane delivers a message addressing Clanker to Jane (Available) while the
// user is on Bob, and waits until Clanker is visiting Jane with its overlay up and the
// answer still in flight (the model takes its time).
func (f *fullApp) startVisitToJane(jane, text, answer string) {
	f.t.Helper()
	overlays := f.status().Commands["show_overlay"]
	reqs := len(f.llm.Requests())
	f.llm.Enqueue(fakellm.JSONReply(answer, "Jane asked.").WithLatency(25 * time.Second))
	if _, err := f.ctl.Deliver(jane, sim.Message{From: "Jane Doe", Text: text}); err != nil {
		f.t.Fatal(err)
	}
	testkit.WaitFor(f.t, 60*time.Second, "Clanker to visit Jane with its overlay up and the answer in flight", func() (bool, string) {
		st := f.status()
		return st.Visiting == jane && st.Current == jane && st.InFlight && st.Commands["show_overlay"] > overlays &&
			len(f.llm.Requests()) > reqs, fmt.Sprintf("%+v", st)
	})
}

// stopLine is how the app's log records a visit ended for reason.
func stopLine(reason string) string {
	return `msg="engine: inactive-conversation processing stopped" reason="` + reason + `"`
}

// visitEndedAtOnce waits for the visit to end after the user's action and checks the
// order: it ended while the answer was still in flight, for the reason the action gives
// (so the action ended it, not the answer), the overlay was taken down, and the user
// stays where they are (want), with no return to Bob and no answer posted in Jane, even
// after the answer has come. stopsBefore is the count of stop lines with that reason
// before the action.
func (f *fullApp) visitEndedAtOnce(want, answer, reason string, stopsBefore, hidesBefore int) {
	f.t.Helper()
	var ended testctl.Status
	testkit.WaitFor(f.t, 20*time.Second, "the visit to end", func() (bool, string) {
		ended = f.status()
		return ended.Visiting == "", fmt.Sprintf("%+v", ended)
	})
	if n := strings.Count(f.app.Output(), stopLine(reason)); n != stopsBefore+1 {
		f.t.Fatalf("the app logged %d visits stopped because %q, want exactly one more than the %d before", n, reason, stopsBefore)
	}
	if !ended.InFlight {
		f.t.Fatalf("the visit ended only when the answer came, not at the user's action: %+v", ended)
	}
	if ended.Current != want {
		f.t.Fatalf("after the user took over the app shows %q, want %q: %+v", ended.Current, want, ended)
	}
	testkit.WaitFor(f.t, 60*time.Second, "the answer to come in", func() (bool, string) {
		st := f.status()
		return !st.InFlight, fmt.Sprintf("%+v", st)
	})
	time.Sleep(2 * time.Second) // room for a wrong return or post to show itself
	st := f.status()
	if st.Current != want || st.Visiting != "" {
		f.t.Fatalf("Clanker moved the user after they took over: want %q, app %+v", want, st)
	}
	if st.Commands["hide_overlay"] <= hidesBefore {
		f.t.Fatalf("the overlay was never taken down: %+v", st.Commands)
	}
	if ss := f.sends("", "[clanker] "+answer); len(ss) != 0 {
		f.t.Fatalf("the visit's answer was posted after the user took over: %+v", ss)
	}
	f.noUntrustedInput()
}

// TestFullAppVisitEndsAtTheUsersRealInput proves, with the real binary and real X input,
// that the overlay of a visit (inactive policy "process") does not trap the user: a click
// on its Cancel button, a click on another conversation in the sidebar and a key in the
// compose box each end the visit at once, and Clanker does not go back.
func TestFullAppVisitEndsAtTheUsersRealInput(t *testing.T) {
	needDisplay(t)
	f := newFullApp(t)
	f.t = t
	f.configure()
	f.config("", "set", "inactive_mode", "process")
	f.launch()
	bob, jane, family := f.conversation(sim.DemoBob), f.conversation(sim.DemoJane), f.conversation(sim.DemoFamily)
	testkit.WaitFor(t, 30*time.Second, "the app to run with inactive_mode=process", func() (bool, string) {
		st := f.status()
		return st.Inactive == "process" && st.Configured, fmt.Sprintf("%+v", st)
	})
	f.open(jane)
	f.pillMenu("available")
	f.waitSent(jane, engine.AvailableText)
	f.waitQuiet()

	t.Run("CancelOnTheOverlay", func(t *testing.T) {
		f.t = t
		f.open(bob)
		f.waitQuiet()
		answer := "Visit answer the user cancelled."
		f.startVisitToJane(jane, "clanker, are you free? (cancel)", answer)
		hides := f.status().Commands["hide_overlay"]
		const reason = "the user pressed Cancel"
		stops := strings.Count(f.app.Output(), stopLine(reason))
		var x, y int
		testkit.WaitFor(t, 20*time.Second, "the overlay card to be drawn", func() (bool, string) {
			var ok bool
			x, y, ok = f.overlayCancelPoint()
			return ok, "no overlay card on the screen"
		})
		if err := display.Screenshot(filepath.Join(ArtifactsDir(), "visit-overlay.png")); err != nil {
			t.Logf("screenshot: %v", err)
		}
		clickSync(t, x, y)
		f.visitEndedAtOnce(jane, answer, reason, stops, hides)
	})
	if t.Failed() {
		return
	}

	t.Run("ClickInTheSidebar", func(t *testing.T) {
		f.t = t
		f.open(bob)
		f.waitQuiet()
		answer := "Visit answer the user clicked away from."
		f.startVisitToJane(jane, "clanker, are you free? (sidebar)", answer)
		hides := f.status().Commands["hide_overlay"]
		const reason = "the user opened another conversation"
		stops := strings.Count(f.app.Output(), stopLine(reason))
		f.clickElement(`a[data-e2e-conversation][href="/web/conversations/` + family + `"]`)
		f.visitEndedAtOnce(family, answer, reason, stops, hides)
	})
	if t.Failed() {
		return
	}

	t.Run("KeyInTheComposeBox", func(t *testing.T) {
		f.t = t
		f.open(bob)
		f.waitQuiet()
		answer := "Visit answer the user typed over."
		f.startVisitToJane(jane, "clanker, are you free? (key)", answer)
		hides := f.status().Commands["hide_overlay"]
		const reason = "the user pressed a key in the compose box"
		stops := strings.Count(f.app.Output(), stopLine(reason))
		// A click in the compose box gives it the focus; it does not end the visit by itself.
		f.clickElement("[data-e2e-message-input-box]")
		time.Sleep(time.Second)
		if st := f.status(); st.Visiting != jane {
			t.Fatalf("a click into the compose box alone ended the visit; the key press would prove nothing: %+v", st)
		}
		key := exec.Command("xdotool", "key", "--clearmodifiers", "h")
		key.Env = []string{"DISPLAY=" + display.Name}
		if out, err := key.CombinedOutput(); err != nil {
			t.Fatalf("xdotool key: %v: %s", err, out)
		}
		f.visitEndedAtOnce(jane, answer, reason, stops, hides)
		if st := f.status(); !st.Draft {
			t.Fatalf("the user's key press should have left a draft in Jane's box: %+v", st)
		}
	})
}
