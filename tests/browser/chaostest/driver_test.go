package chaostest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/browser"
	"github.com/clanker-desktop/clanker/tests/fakellm"
	"github.com/clanker-desktop/clanker/tests/simctl"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

type kind int

const (
	evRemote kind = iota
	evUserType
	evUserClear
	evUserSend
	evSwitch
	evPill
	evSetMode
	evLLM
	evWait
	// evSleep lets time pass whatever the app does (scripted sessions only; the generator
	// never draws it).
	evSleep
)

// event is one step of a session, drawn when the session is generated and resolved against
// the world when it runs.
type event struct {
	Kind kind
	Conv int
	Var  int
	D    time.Duration
}

// convSpec is one simulator conversation of every session; the last one is automated (a
// short-code sender), where Clanker must never send anything.
type convSpec struct {
	name   string
	people []string
	rcs    bool
	auto   bool
}

var specs = []convSpec{
	{name: "Alice", people: []string{"Alice"}},
	{name: "Bob", people: []string{"Bob"}, rcs: true},
	{name: "Carol, Dan", people: []string{"Carol", "Dan"}},
	{name: "72975", people: []string{"72975"}, auto: true},
}

// onScreen as an event's Conv means the conversation the page shows when the event plays.
const onScreen = -1

var remoteVariants = []string{"plain", "mention", "image", "other-clanker", "other-clanker-mention", "mention+image"}

var modeNames = []engine.Mode{engine.ModeDeactivated, engine.ModeAvailable, engine.ModeActive}

// policies are what the fake model answers from the next request on. Text that is not a
// valid reply carries rawMark, so a post of raw model output is recognised in the send log.
const rawMark = "zqraw"

var policies = []string{"demo", "fixed", "null", "prose", "truncated", "malformed", "invalid-utf8", "server-error", "dropped", "hung"}

func policyReply(name string, latency time.Duration) fakellm.Reply {
	var r fakellm.Reply
	switch name {
	case "demo":
		r = fakellm.Demo()
	case "fixed":
		r = fakellm.JSONReply("sounds good to me", "a fixed summary")
	case "null":
		r = fakellm.NullReply()
	case "prose":
		r = fakellm.Text("Let me think about this " + rawMark + ". I would say {\"response\": \"" + rawMark + " hi\"")
	case "truncated":
		r = fakellm.Truncated(`{"response": "` + rawMark + ` this answer was cut off in the mid`)
	case "malformed":
		r = fakellm.Malformed()
	case "invalid-utf8":
		r = fakellm.InvalidUTF8()
	case "server-error":
		r = fakellm.OpenAIError(500, "server_error", nil, "The server had an error "+rawMark)
	case "dropped":
		r = fakellm.Dropped()
	case "hung":
		r = fakellm.Hung()
	}
	return r.WithLatency(latency)
}

func (e event) String() string {
	switch e.Kind {
	case evRemote:
		where := "the conversation on screen"
		if e.Conv != onScreen {
			where = specs[e.Conv].name
		}
		return fmt.Sprintf("remote message in %s (%s, sender %d)", where, remoteVariants[e.Var%len(remoteVariants)], e.Var/len(remoteVariants))
	case evUserType:
		return "user types a draft (trusted keys)"
	case evUserClear:
		return "user clears the box (trusted keys)"
	case evUserSend:
		if e.Var == 0 {
			return "user sends a message naming clanker (trusted Enter)"
		}
		return "user sends a message (trusted Enter)"
	case evSwitch:
		return "user clicks " + specs[e.Conv].name + " in the sidebar (trusted click)"
	case evPill:
		return fmt.Sprintf("user picks %s in the status pill (trusted clicks)", modeNames[e.Var%3])
	case evSetMode:
		return fmt.Sprintf("mode %s for %s from the tray (engine SetMode)", modeNames[e.Var%3], specs[e.Conv].name)
	case evLLM:
		return fmt.Sprintf("model now answers %s after %v", policies[e.Var], e.D)
	case evWait:
		return fmt.Sprintf("wait until the app is quiet (at most %v)", e.D)
	case evSleep:
		return fmt.Sprintf("let %v pass", e.D)
	}
	return "?"
}

// generate draws n events. Messages dominate, as in a real chat; participating modes are
// drawn more often than Deactivated so that replies happen and get checked.
func generate(rng *rand.Rand, n int) []event {
	weights := []testkit.Weighted[kind]{{Kind: evRemote, N: 28}, {Kind: evUserType, N: 8}, {Kind: evUserClear, N: 2},
		{Kind: evUserSend, N: 8}, {Kind: evSwitch, N: 10}, {Kind: evPill, N: 8}, {Kind: evSetMode, N: 8},
		{Kind: evLLM, N: 6}, {Kind: evWait, N: 10}}
	return testkit.Draw(rng, n, weights, func(k kind) event {
		e := event{Kind: k}
		switch k {
		case evRemote:
			switch r := rng.IntN(10); {
			case r < 4:
				e.Conv = onScreen // what the user looks at gets the most traffic
			case r < 5:
				e.Conv = len(specs) - 1 // the automated conversation
			default:
				e.Conv = rng.IntN(len(specs) - 1)
			}
			e.Var = rng.IntN(len(remoteVariants) * 2)
		case evUserSend:
			e.Var = rng.IntN(3)
		case evSwitch:
			e.Conv = rng.IntN(len(specs))
		case evPill, evSetMode:
			e.Conv = rng.IntN(len(specs))
			e.Var = rng.IntN(3)
			if rng.IntN(3) > 0 {
				e.Var = 1 + rng.IntN(2)
			}
		case evLLM:
			if rng.IntN(2) == 0 {
				e.Var = 0 // mostly the demo persona, so replies get sent and checked
			} else {
				e.Var = rng.IntN(len(policies))
			}
			e.D = time.Duration(rng.IntN(1500)) * time.Millisecond
		case evWait:
			e.D = time.Duration(2+rng.IntN(6)) * time.Second
		}
		return e
	})
}

// conv is the driver's knowledge of one simulator conversation.
type conv struct {
	spec convSpec
	id   string
	key  int
}

// world is what the driver knows and did: the ground truth the invariants are checked
// against, next to the simulator's logs.
type world struct {
	convs   []*conv
	current int // index of the conversation the user last opened
	seq     int // message and draft counter, for the tags that make every text unique

	// draft is the text the user typed into the open conversation's box ("" when none).
	draft     string
	draftConv string
	// userSends are the sends the user made, in order: conversation id and exact text.
	userSends []userSend
	// participating marks conversations a participating mode was ever asked for.
	participating map[string]bool
	// deactivatedAt is the length of the send log when a conversation's Deactivated mode was
	// confirmed in the store, or -1 while it may participate.
	deactivatedAt map[string]int
	// kinds maps every message tag to what kind of message carried it.
	kinds map[string]string
	// tagConv maps every tag to the conversation its message went to.
	tagConv map[string]string

	skipped []string // actions the world did not allow (no pill on screen, Clanker text in the box)

	// What the liveness oracles need (liveness_test.go).
	remotes  []remoteMsg
	prompts  []prompt       // the user's own sends that name Clanker
	modes    []modeChange   // every mode change the driver asked for, with when the store had it
	policies []policyChange // what the model answered from when
	// drafts keeps each conversation's unsent draft when the page restores drafts on return
	// (sim.VariantRestoreDraft); restore is set then.
	drafts  map[string]string
	restore bool
}

type userSend struct{ conv, text string }

func newWorld() *world {
	return &world{participating: map[string]bool{}, deactivatedAt: map[string]int{},
		kinds: map[string]string{}, tagConv: map[string]string{}, drafts: map[string]string{},
		policies: []policyChange{{at: time.Now(), policy: "demo"}}}
}

func (w *world) create(ctl *simctl.Control) error {
	for i, s := range specs {
		c, err := ctl.CreateConversation(sim.NewConversation{Name: s.name, Participants: s.people, RCS: s.rcs})
		if err != nil {
			return err
		}
		cv := &conv{spec: s, id: c.ID, key: i}
		w.convs = append(w.convs, cv)
		w.deactivatedAt[c.ID] = 0
		// Every conversation starts with a message, as a real one does.
		kind, text := "human", "hi there "
		if s.auto {
			kind, text = "automated", "Your code is 4711. Reply STOP to end. "
		}
		if _, err := ctl.Deliver(c.ID, sim.Message{From: s.people[0], Text: text + w.tag(cv, kind)}); err != nil {
			return err
		}
	}
	return nil
}

func (w *world) tag(c *conv, kind string) string {
	w.seq++
	t := fmt.Sprintf("k%dm%d", c.key, w.seq)
	w.kinds[t] = kind
	w.tagConv[t] = c.id
	return t
}

// session is one seed's run: the app, the world, and the step being played.
type session struct {
	h    *headless
	w    *world
	step int

	// The liveness oracles' findings (liveness_test.go) and the draft-belief sampler's state.
	live       []liveViolation
	liveSeen   map[string]bool
	lastSample time.Time
	draftSince time.Time
	draftKey   string
}

// apply plays one event. It returns an error only when the harness itself failed (the
// browser or the simulator did not do what it was told); invariants are checked separately.
func (s *session) apply(e event) error {
	h, w := s.h, s.w
	switch e.Kind {
	case evRemote:
		i := e.Conv
		if i == onScreen {
			cur, err := s.shown()
			if err != nil {
				return err
			}
			i = 0
			if c := w.byID(cur); c != nil {
				i = c.key
			}
		}
		c := w.convs[i]
		variant := remoteVariants[e.Var%len(remoteVariants)]
		sender := c.spec.people[(e.Var/len(remoteVariants))%len(c.spec.people)]
		m := sim.Message{From: sender}
		if c.spec.auto {
			t := w.tag(c, "automated")
			m.Text = fmt.Sprintf("Your code is %d. Reply STOP to end, clanker %s", 1000+w.seq, t)
		} else {
			switch variant {
			case "plain":
				m.Text = "see you later " + w.tag(c, "human")
			case "mention":
				m.Text = "hey Clanker what do you think " + w.tag(c, "human") + "?"
			case "image":
				m.Image = sim.MediaChart
			case "mention+image":
				m.Image = sim.MediaChart
				m.Text = "clanker look at this " + w.tag(c, "human")
			case "other-clanker":
				m.Text = "[clanker] another bot says " + w.tag(c, "other-clanker")
			case "other-clanker-mention":
				m.Text = "[clanker] hello fellow clanker " + w.tag(c, "other-clanker") + "?"
			}
		}
		before := time.Now()
		if _, err := h.ctl.Deliver(c.id, m); err != nil {
			return fmt.Errorf("deliver to %s: %w", c.spec.name, err)
		}
		w.remotes = append(w.remotes, remoteMsg{conv: c.id, text: m.Text, before: before, at: time.Now(),
			auto: c.spec.auto, otherClanker: strings.HasPrefix(variant, "other-clanker"), mention: mentions(m.Text)})
	case evUserType:
		return s.userType()
	case evUserClear:
		return s.userClear()
	case evUserSend:
		return s.userSend(e.Var == 0)
	case evSwitch:
		return s.switchTo(e.Conv)
	case evPill:
		return s.pill(modeNames[e.Var%3])
	case evSetMode:
		return s.setMode(w.convs[e.Conv], modeNames[e.Var%3])
	case evLLM:
		h.llm.SetDefault(policyReply(policies[e.Var], e.D))
		w.policies = append(w.policies, policyChange{at: time.Now(), policy: policies[e.Var]})
	case evWait:
		testkit.Poll(e.D, func() (bool, string) {
			s.sampleDraftBelief()
			return h.quiet()
		})
	case evSleep:
		testkit.Poll(e.D, func() (bool, string) {
			s.sampleDraftBelief()
			return false, ""
		})
	}
	return nil
}

// box reads the compose box of the open conversation ("" when there is none).
func (s *session) box() (string, bool, error) {
	var out struct {
		Present bool   `json:"present"`
		Text    string `json:"text"`
	}
	err := s.run("read the compose box", chromedp.Evaluate(`(function(){var b=document.querySelector('[data-e2e-message-input-box]');
		return {present: !!b, text: b ? (b.value !== undefined ? b.value : b.innerText) : ''};})()`, &out))
	return out.Text, out.Present, err
}

func (s *session) run(what string, actions ...chromedp.Action) error {
	ctx, cancel := context.WithTimeout(s.h.tab, 20*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// focusBox clicks the compose box with a trusted click, the caret at the end of its text.
func (s *session) focusBox() error {
	if err := s.click(`[data-e2e-message-input-box]`, "the compose box"); err != nil {
		return err
	}
	return s.run("move the caret to the end", chromedp.KeyEvent(kb.End))
}

// click clicks the middle of the element sel matches with a trusted mouse click. It finds the
// element with a script rather than chromedp's selector actions: those track the DOM through
// node ids, which the pierce-deep DOM.getDocument that finds the status pill invalidates.
func (s *session) click(sel, what string) error {
	var r struct {
		Found bool    `json:"found"`
		X     float64 `json:"x"`
		Y     float64 `json:"y"`
	}
	js := fmt.Sprintf(`(function(){var e=document.querySelector(%q); if(!e) return {found:false};
		e.scrollIntoView({block:'nearest'}); var r=e.getBoundingClientRect();
		return {found: r.width>0 && r.height>0, x:r.left+r.width/2, y:r.top+r.height/2};})()`, sel)
	if err := s.run("find "+what, chromedp.Evaluate(js, &r)); err != nil {
		return err
	}
	if !r.Found {
		return fmt.Errorf("%s (%s) is not on the page", what, sel)
	}
	return s.run("click "+what, chromedp.MouseClickXY(r.X, r.Y))
}

// shown is the conversation the page shows, from its own URL.
func (s *session) shown() (string, error) {
	var path string
	err := s.run("read the location", chromedp.Evaluate(`location.pathname`, &path))
	if i := strings.LastIndex(path, "/"); i >= 0 && strings.HasPrefix(path, "/web/conversations/") {
		return path[i+1:], err
	}
	return "", err
}

// waitOverlay waits while Clanker's "processing an inactive conversation" overlay covers the
// page: it asks the user to wait, and a user does. It reports whether the page is free.
func (s *session) waitOverlay() bool {
	ok, _ := testkit.Poll(20*time.Second, func() (bool, string) { return s.findPart("overlay") == nil, "" })
	if !ok {
		s.w.skipped = append(s.w.skipped, fmt.Sprintf("step %d: the processing overlay stayed up; the user gave up", s.step))
	}
	return ok
}

// userType types a few words into the box with trusted input (Input.insertText, as an input
// method would) unless the box holds Clanker's text: the user sees it and waits.
func (s *session) userType() error {
	w := s.w
	if !s.waitOverlay() {
		return nil
	}
	cur, err := s.shown()
	if err != nil {
		return err
	}
	if cur == "" || (w.draft != "" && w.draftConv != cur) {
		w.skipped = append(w.skipped, fmt.Sprintf("step %d: user did not type (no conversation, or not the draft's)", s.step))
		return nil
	}
	text, present, err := s.box()
	if err != nil {
		return err
	}
	if !present || text != w.draft {
		w.skipped = append(w.skipped, fmt.Sprintf("step %d: user did not type (box holds %q)", s.step, engine.Clip(text, 80)))
		return nil
	}
	w.seq++
	words := fmt.Sprintf("meet at noon d%d", w.seq)
	if w.draft != "" {
		words = " " + words
	}
	if err := s.focusBox(); err != nil {
		return err
	}
	if err := s.run("type the draft", chromedp.ActionFunc(func(ctx context.Context) error {
		return input.InsertText(words).Do(ctx)
	})); err != nil {
		return err
	}
	// Keys only land where the focus is: a visit that starts at this very moment takes the
	// page (and the focus) away before the text arrives. Then the user typed into nothing,
	// which is no draft of theirs to protect.
	now, _, err := s.box()
	if err != nil {
		return err
	}
	if now != w.draft+words {
		w.skipped = append(w.skipped, fmt.Sprintf("step %d: the user's typing did not land (box holds %q)", s.step, engine.Clip(now, 80)))
		return nil
	}
	w.draft += words
	w.draftConv = cur
	return nil
}

// userClear selects everything in the box and deletes it with trusted keys.
func (s *session) userClear() error {
	w := s.w
	if w.draft == "" {
		return nil
	}
	held, _, err := s.box()
	if err != nil {
		return err
	}
	if err := s.focusBox(); err != nil {
		return err
	}
	if err := s.run("clear the box", chromedp.KeyEvent("a", chromedp.KeyModifiers(input.ModifierCtrl)), chromedp.KeyEvent(kb.Backspace)); err != nil {
		return err
	}
	// Keys land only where the focus is; what the box holds now is the user's draft.
	now, _, err := s.box()
	if err != nil {
		return err
	}
	if now != "" && held == w.draft && strings.HasPrefix(now, engine.Prefix) && !strings.Contains(now, w.draft) {
		// The clearing landed, and a reply Clanker held behind the draft came into the
		// emptied box before the box was read again (the engine acts on the page's compose
		// event within milliseconds). The oracles judge that reply; the draft is gone.
		w.draft = ""
		return nil
	}
	if now != "" {
		w.skipped = append(w.skipped, fmt.Sprintf("step %d: the user's clearing did not land (box holds %q)", s.step, engine.Clip(now, 80)))
		if now != w.draft {
			return fmt.Errorf("clearing the box left %q, neither empty nor the user's draft %q", now, w.draft)
		}
		return nil
	}
	w.draft = ""
	return nil
}

// userSend presses a trusted Enter on the user's own text (typing some first when the box is
// empty) and waits until the simulator logged the send. A box that holds anything other than
// the user's own draft is left alone: the user sees Clanker's text there and does not send it.
func (s *session) userSend(naming bool) error {
	w := s.w
	if !s.waitOverlay() {
		return nil
	}
	cur, err := s.shown()
	if err != nil {
		return err
	}
	text, present, err := s.box()
	if err != nil {
		return err
	}
	if cur == "" || !present || text != w.draft || (w.draft != "" && w.draftConv != cur) {
		w.skipped = append(w.skipped, fmt.Sprintf("step %d: user did not send (box holds %q, draft %q)", s.step, engine.Clip(text, 80), engine.Clip(w.draft, 80)))
		return nil
	}
	if w.draft == "" {
		if err := s.userType(); err != nil {
			return err
		}
		if w.draft == "" {
			// The user could not type (the box held something else, e.g. Clanker's text being
			// typed): pressing Enter now would send that, not a message of the user's.
			w.skipped = append(w.skipped, fmt.Sprintf("step %d: user did not send (could not type a draft first)", s.step))
			return nil
		}
	}
	if err := s.focusBox(); err != nil {
		return err
	}
	if naming {
		if err := s.run("type a mention", chromedp.ActionFunc(func(ctx context.Context) error {
			return input.InsertText(" clanker?").Do(ctx)
		})); err != nil {
			return err
		}
		w.draft += " clanker?"
	}
	want := w.draft
	// The user's draft has been in the box since before they clicked into it: no visit may
	// take the window elsewhere now (the page refuses a visit while the user is using the
	// window), or their Enter would send the draft in another conversation.
	if shown, err := s.shown(); err == nil && shown != cur {
		return fmt.Errorf("a visit to %s began while the user's draft %q was in the box of %s", shown, engine.Clip(want, 80), cur)
	}
	before := len(s.sent())
	if naming {
		w.prompts = append(w.prompts, prompt{conv: cur, at: time.Now()})
	}
	if err := s.run("press Enter", chromedp.KeyEvent(kb.Enter)); err != nil {
		return err
	}
	w.userSends = append(w.userSends, userSend{conv: cur, text: want})
	w.draft = ""
	ok, why := testkit.Poll(10*time.Second, func() (bool, string) {
		sent := s.sent()
		for _, e := range sent[min(before, len(sent)):] {
			if e.Text == want {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d sends logged", len(sent))
	})
	if ok {
		return nil
	}
	// An Enter lost because the focus moved (a visit began) leaves the draft in its box.
	if now, _, err := s.box(); err == nil && now == want {
		w.userSends = w.userSends[:len(w.userSends)-1]
		w.draft = want
		w.skipped = append(w.skipped, fmt.Sprintf("step %d: the user's Enter did not land; the draft stays", s.step))
		return nil
	}
	if shown, err := s.shown(); err == nil && shown != cur {
		return fmt.Errorf("a visit to %s began as the user pressed Enter on their draft %q in %s", shown, engine.Clip(want, 80), cur)
	}
	return fmt.Errorf("the user's Enter on %q was not logged by the simulator (%s)", want, why)
}

// sent reads the simulator's send log (empty on error; check reports the error).
func (s *session) sent() []sim.Send {
	out, _ := s.h.ctl.Sent()
	return out
}

// switchTo clicks a sidebar row with a trusted click and waits until the page shows it.
func (s *session) switchTo(i int) error {
	if !s.waitOverlay() {
		return nil
	}
	c := s.w.convs[i]
	sel := fmt.Sprintf(`mws-conversations-list nav a[href$="/%s"]`, c.id)
	// The sidebar reorders by activity; a row can move between finding it and the click
	// landing, and the click then opens a neighbour. A user clicks again; so does the driver.
	var why string
	for attempt := 0; attempt < 3; attempt++ {
		if err := s.click(sel, c.spec.name+" in the sidebar"); err != nil {
			return err
		}
		var ok bool
		ok, why = testkit.Poll(4*time.Second, func() (bool, string) {
			var shown string
			err := s.run("read the shown conversation", chromedp.Evaluate(`document.body.getAttribute('data-sim-shown')||''`, &shown))
			if err != nil {
				return false, err.Error()
			}
			return shown == c.id, "page shows " + shown
		})
		if ok {
			s.w.current = i
			// The user left the draft behind: the page shows another conversation's box, empty,
			// or (restore-draft) holding the draft the user left in that conversation.
			if s.w.restore && s.w.draft != "" {
				s.w.drafts[s.w.draftConv] = s.w.draft
			}
			s.w.draft, s.w.draftConv = "", ""
			if d := s.w.drafts[c.id]; s.w.restore && d != "" {
				delete(s.w.drafts, c.id)
				// The page puts it back a moment after the rows; the user waits to see it.
				if ok, _ := testkit.Poll(5*time.Second, func() (bool, string) { text, _, _ := s.box(); return text == d, "" }); ok {
					s.w.draft, s.w.draftConv = d, c.id
				} else {
					s.w.skipped = append(s.w.skipped, fmt.Sprintf("step %d: the draft left in %s did not come back", s.step, c.spec.name))
				}
			}
			return nil
		}
		if s.findPart("overlay") != nil {
			// A visit began between the look and the click: the click hit the overlay.
			s.w.skipped = append(s.w.skipped, fmt.Sprintf("step %d: the click on %s hit the processing overlay", s.step, c.spec.name))
			return nil
		}
	}
	return fmt.Errorf("clicked %s three times but the page never showed it (%s)", c.spec.name, why)
}

// pill opens the status pill's menu and picks mode with trusted mouse clicks, then waits
// until the store holds the mode (store-first: the engine saves before it acts). The pill
// speaks for the conversation the bridge last reported, which during a switch or a visit
// may not be the one in the address bar, so the conversation whose stored mode changed is
// the one the choice applied to.
func (s *session) pill(mode engine.Mode) error {
	w := s.w
	cur, err := s.shown()
	if err != nil {
		return err
	}
	if w.byID(cur) == nil {
		w.skipped = append(w.skipped, fmt.Sprintf("step %d: no conversation on screen for the pill", s.step))
		return nil
	}
	before := map[string]engine.Mode{}
	for _, c := range w.convs {
		before[c.id] = s.h.mode(c.id)
	}
	changed := func() *conv {
		for _, c := range w.convs {
			if m := s.h.mode(c.id); m != before[c.id] && m == mode {
				return c
			}
		}
		return nil
	}
	// A click that races the pill's redraw is lost, so the gesture is tried a few times.
	start := time.Now()
	for attempt := 0; attempt < 3; attempt++ {
		if !s.clickPart("pill") {
			w.skipped = append(w.skipped, fmt.Sprintf("step %d: no status pill on screen", s.step))
			return nil
		}
		if s.waitPart("menu-" + string(mode)) {
			s.clickPart("menu-" + string(mode))
		}
		if before[cur] == mode {
			return nil // already in that mode: nothing changes, nothing to wait for
		}
		var c *conv
		if ok, _ := testkit.Poll(3*time.Second, func() (bool, string) { c = changed(); return c != nil, "" }); ok {
			w.modes = append(w.modes, modeChange{conv: c.id, mode: mode, start: start, confirmed: time.Now()})
			if mode != engine.ModeDeactivated {
				w.participating[c.id] = true
				w.deactivatedAt[c.id] = -1
			}
			s.confirmMode(c, mode)
			if c.id != cur {
				w.skipped = append(w.skipped, fmt.Sprintf("step %d: the pill applied %s to %s while the address bar showed %s", s.step, mode, c.spec.name, s.name(cur)))
			}
			return nil
		}
		if w.byID(cur).spec.auto {
			return nil // the engine refuses modes in automated conversations, with a toast
		}
	}
	w.skipped = append(w.skipped, fmt.Sprintf("step %d: the pill choice %s did not take", s.step, mode))
	return nil
}

// setMode changes a conversation's mode as the tray does, and waits for the store.
func (s *session) setMode(c *conv, mode engine.Mode) error {
	w := s.w
	if mode != engine.ModeDeactivated {
		w.participating[c.id] = true
		w.deactivatedAt[c.id] = -1
	}
	start := time.Now()
	if err := s.h.eng.Send(engine.SetMode{Conversation: engine.ConversationID(c.id), Mode: mode, Source: "tray"}); err != nil {
		return fmt.Errorf("engine refused SetMode: %w", err)
	}
	if ok, _ := testkit.Poll(5*time.Second, func() (bool, string) { return s.h.mode(c.id) == mode, "" }); ok {
		s.confirmMode(c, mode)
		w.modes = append(w.modes, modeChange{conv: c.id, mode: mode, start: start, confirmed: time.Now()})
	} else {
		// Not confirmed in time: the mode is unknown from now on for the oracles.
		w.modes = append(w.modes, modeChange{conv: c.id, mode: mode, start: start})
	}
	return nil
}

// confirmMode records where in the send log a Deactivated mode took effect: from there on
// only the farewell may be sent in the conversation.
func (s *session) confirmMode(c *conv, mode engine.Mode) {
	if mode == engine.ModeDeactivated && s.w.deactivatedAt[c.id] < 0 {
		s.w.deactivatedAt[c.id] = len(s.sent())
	}
}

func (w *world) byID(id string) *conv {
	for _, c := range w.convs {
		if c.id == id {
			return c
		}
	}
	return nil
}

// findPart finds a node of the bridge's UI (inside its closed shadow root) by data-part.
func (s *session) findPart(part string) *cdp.Node {
	ctx, cancel := context.WithTimeout(s.h.tab, 20*time.Second)
	defer cancel()
	n, err := browser.FindPart(ctx, part)
	if err != nil {
		return nil
	}
	return n
}

func (s *session) waitPart(part string) bool {
	ok, _ := testkit.Poll(2*time.Second, func() (bool, string) { return s.findPart(part) != nil, "" })
	return ok
}

// clickPart clicks the middle of a UI part with a trusted mouse click.
func (s *session) clickPart(part string) bool {
	n := s.findPart(part)
	if n == nil {
		return false
	}
	var box *dom.BoxModel
	if err := s.run("box of "+part, chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		box, err = dom.GetBoxModel().WithBackendNodeID(n.BackendNodeID).Do(ctx)
		return err
	})); err != nil {
		return false
	}
	q := box.Content
	x, y := (q[0]+q[2]+q[4]+q[6])/4, (q[1]+q[3]+q[5]+q[7])/4
	return s.run("click "+part, chromedp.MouseClickXY(x, y)) == nil
}
