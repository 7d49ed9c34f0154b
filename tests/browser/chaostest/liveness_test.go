package chaostest

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/browser"
	"github.com/clanker-desktop/clanker/tests/fakellm"
)

// The oracles that see silence (issue 27): an answer owed and never given, a draft the engine
// believes in that the box does not hold (or the other way round) for longer than a moment, a
// reply in Available that answers no one who named Clanker, and a send that mixes the user's
// characters with Clanker's. They do not stop a seed: each seed's classes are compared with
// knownLiveness at its end, so the failures today's engine and bridge have are listed, checked
// to still fail, and anything new fails the test.

// Liveness failure classes.
const (
	classUnanswered  = "unanswered-mention"    // a message naming Clanker in Available never answered, nothing told the user why
	classUnprompted  = "reply-without-mention" // a reply posted in Available with no message naming Clanker to answer
	classDraftBelief = "draft-belief"          // the engine's belief about the user's draft differed from the box too long
	classMixed       = "mixed-text"            // a sent message mixes the user's characters with Clanker's
)

// draftBound is how long the engine's draft belief may differ from the box: the bridge reports
// the box on events and should read it when they do not come (issue 27.1).
const draftBound = 5 * time.Second

// modeGrace is how long after the store had a new mode a send still counts as possibly under
// the old one (the engine's decision and the user's switch race).
const modeGrace = time.Second

// remoteMsg is one message someone else wrote.
type remoteMsg struct {
	conv, text   string
	before, at   time.Time // just before and just after the simulator stored it
	mention      bool
	auto         bool
	otherClanker bool
}

// prompt is the user's own send that names Clanker.
type prompt struct {
	conv string
	at   time.Time
}

// modeChange is a mode the driver asked for; confirmed is zero when the store never had it in
// time.
type modeChange struct {
	conv             string
	mode             engine.Mode
	start, confirmed time.Time
}

// policyChange is the model's answer policy from at on.
type policyChange struct {
	at     time.Time
	policy string
}

var mentionWord = regexp.MustCompile(`(?i)\bclanker\b`)

// mentions is how this test reads "names Clanker": the word, any case. The messages the driver
// writes name it plainly or not at all.
func mentions(text string) bool { return mentionWord.MatchString(text) }

// liveViolation is one failure of the liveness oracles.
type liveViolation struct{ class, detail string }

// note records a liveness failure once per key.
func (s *session) note(class, key, format string, args ...any) {
	if s.liveSeen == nil {
		s.liveSeen = map[string]bool{}
	}
	if s.liveSeen[class+"\x00"+key] {
		return
	}
	s.liveSeen[class+"\x00"+key] = true
	s.live = append(s.live, liveViolation{class, fmt.Sprintf("step %d: ", s.step) + fmt.Sprintf(format, args...)})
}

// modeAt is the mode the driver had set for conv at t; sure is false around a switch (from
// the driver's action until modeGrace after the store had it) and after a switch the store
// never confirmed.
func (w *world) modeAt(conv string, t time.Time) (mode engine.Mode, sure bool) {
	mode, sure = engine.ModeDeactivated, true
	for _, m := range w.modes {
		if m.conv != conv || m.start.After(t) {
			continue
		}
		if m.confirmed.IsZero() || t.Before(m.confirmed.Add(modeGrace)) {
			return m.mode, false
		}
		mode = m.mode
	}
	return mode, sure
}

// policyAt is the model's answer policy at t.
func (w *world) policyAt(t time.Time) string {
	p := "demo"
	for _, c := range w.policies {
		if !c.at.After(t) {
			p = c.policy
		}
	}
	return p
}

// sampleDraftBelief compares, at most every 300 ms, the engine's belief that the user has a
// draft in the box of the conversation on screen with what the box holds.
func (s *session) sampleDraftBelief() {
	if time.Since(s.lastSample) < 300*time.Millisecond {
		return
	}
	s.lastSample = time.Now()
	snap, err := s.h.snapshot()
	if err != nil || snap.Foreground == nil || snap.Foreground.Switching || snap.Visiting != "" {
		s.draftSince = time.Time{}
		return
	}
	cur, err := s.shown()
	if err != nil || cur != string(snap.Foreground.ID) {
		s.draftSince = time.Time{}
		return
	}
	text, present, err := s.box()
	if err != nil || !present {
		s.draftSince = time.Time{}
		return
	}
	page := strings.TrimSpace(text) != "" && !strings.HasPrefix(text, engine.Prefix)
	if page == snap.Foreground.Draft {
		s.draftSince = time.Time{}
		return
	}
	key := fmt.Sprintf("%s %v", cur, page)
	if s.draftSince.IsZero() || s.draftKey != key {
		s.draftSince, s.draftKey = time.Now(), key
		return
	}
	if d := time.Since(s.draftSince); d > draftBound {
		belief := "a draft of the user's"
		if !snap.Foreground.Draft {
			belief = "no draft"
		}
		s.note(classDraftBelief, key, "for %v the engine believed %s in %s while the box held %q", d.Round(100*time.Millisecond), belief, s.name(cur), engine.Clip(text, 60))
	}
}

// settleDraftBelief keeps sampling while a difference is under way at the end of a seed, so
// one that lasts is seen.
func (s *session) settleDraftBelief() {
	deadline := time.Now().Add(draftBound + 2*time.Second)
	for time.Now().Before(deadline) {
		s.lastSample = time.Time{}
		s.sampleDraftBelief()
		if s.draftSince.IsZero() {
			return
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func isNotice(text string) bool {
	return text == engine.AvailableText || text == engine.DeactivatedText || text == engine.ActiveFallbackText
}

// checkLiveness runs, once the app went quiet at the end of a seed, the oracles on owed
// answers and on replies without a mention.
func (s *session) checkLiveness(sent []sim.Send) {
	h := s.h
	h.mu.Lock()
	told := slices.Clone(h.told)
	h.mu.Unlock()
	s.owedAnswers(sent, told, h.llm.Requests())
}

// owedAnswers is checkLiveness on what it gathered: the send log, what the user was told,
// the model's requests.
func (s *session) owedAnswers(sent []sim.Send, told []toldUser, reqs []fakellm.Request) {
	w := s.w
	for _, m := range w.remotes {
		if !m.mention || m.auto || m.otherClanker {
			continue
		}
		if mode, sure := w.modeAt(m.conv, m.before); mode != engine.ModeAvailable || !sure {
			continue
		}
		answered := false
		for _, e := range sent {
			if e.Conversation == m.conv && strings.HasPrefix(e.Text, engine.Prefix) && !isNotice(e.Text) && e.Wall.After(m.at) {
				answered = true
				break
			}
		}
		if answered {
			continue
		}
		if why := w.released(m, told, reqs); why != "" {
			continue
		}
		if w.draft != "" {
			continue // the user's draft is in a box: replies and visits wait for it, by design
		}
		s.note(classUnanswered, m.conv+m.text, "%s wrote %q in Available and got no answer; nothing told the user why (mode unchanged, no banner or error toast, the model was not declining)",
			s.name(m.conv), engine.Clip(m.text, 60))
	}
	for _, c := range w.convs {
		last := time.Time{}
		for j, e := range sent {
			if e.Conversation != c.id || !strings.HasPrefix(e.Text, engine.Prefix) || isNotice(e.Text) {
				continue
			}
			mode, sure := w.modeAt(c.id, e.Wall)
			if mode == engine.ModeAvailable && sure && !w.prompted(c.id, last, e.Wall) {
				s.note(classUnprompted, fmt.Sprint(j), "send %d in %s, posted in Available, answers no message naming Clanker since Clanker last spoke: %q",
					j, c.spec.name, engine.Clip(e.Text, 80))
			}
			last = e.Wall
		}
	}
}

// released says why an owed answer to m may not come: the mode changed, the user was told
// something went wrong, or the model declined when asked.
func (w *world) released(m remoteMsg, told []toldUser, reqs []fakellm.Request) string {
	for _, c := range w.modes {
		if c.conv == m.conv && c.start.After(m.before) {
			return "mode switched"
		}
	}
	for _, t := range told {
		if t.at.After(m.before) && (t.kind == string(engine.CmdBanner) || t.level == "error") {
			return "told the user: " + t.text
		}
	}
	for _, r := range reqs {
		if r.Received.After(m.before) && w.policyAt(r.Received) == "null" {
			return "the model declined"
		}
	}
	return ""
}

// prompted reports whether someone named Clanker in conv between from and to.
func (w *world) prompted(conv string, from, to time.Time) bool {
	for _, m := range w.remotes {
		if m.conv == conv && m.mention && !m.auto && m.at.After(from) && m.before.Before(to) {
			return true
		}
	}
	for _, p := range w.prompts {
		if p.conv == conv && p.at.After(from) && p.at.Before(to) {
			return true
		}
	}
	return false
}

// checkMixed is the oracle on sent text: the user's send never carries Clanker's prefix, and
// Clanker's never the user's typed words before the user sent them (the words the driver types
// carry a draft tag).
func (s *session) checkMixed(j int, e sim.Send, userTags map[string]string) {
	if !strings.HasPrefix(e.Text, engine.Prefix) {
		if strings.Contains(e.Text, strings.TrimSpace(engine.Prefix)) {
			s.note(classMixed, fmt.Sprint(j), "send %d in %s mixes the user's text with Clanker's: %q", j, s.name(e.Conversation), engine.Clip(e.Text, 80))
		}
		return
	}
	for _, t := range draftTag.FindAllString(e.Text, -1) {
		if _, sentByUser := userTags[t]; !sentByUser {
			s.note(classMixed, fmt.Sprint(j), "Clanker's send %d in %s contains the user's unsent draft %s: %q", j, s.name(e.Conversation), t, engine.Clip(e.Text, 80))
		}
	}
}

// composeVariantFor is the compose-box behaviour a seed's page has: every third seed empties
// the box after a send with no event, every third restores drafts on return with no event,
// the rest fire an input event for every change (issue 27.1).
func composeVariantFor(seed uint64) []sim.Variant {
	switch seed % 3 {
	case 1:
		return []sim.Variant{sim.VariantClearSilently}
	case 2:
		return []sim.Variant{sim.VariantRestoreDraft}
	}
	return nil
}

// knownFailure is how a seed is known to fail the liveness oracles with today's engine and
// bridge; flaky when it fails that way only in some runs.
type knownFailure struct {
	classes []string
	flaky   bool
	why     string
}

// knownLiveness lists the seeds (key "seed=N", "nested=N" for the nested page's run) whose
// liveness oracles fail today. A listed seed must still fail with its classes (flaky ones may
// pass), so an entry goes when the fix lands; a class not listed fails the test.
var knownLiveness = map[string]knownFailure{}

// judgeLiveness compares a seed's liveness failures with knownLiveness.
func judgeLiveness(t *testing.T, key string, live []liveViolation, report string) {
	t.Helper()
	var got []string
	for _, v := range live {
		if !slices.Contains(got, v.class) {
			got = append(got, v.class)
		}
	}
	slices.Sort(got)
	k, listed := knownLiveness[key]
	var extra, missing []string
	for _, c := range got {
		if !slices.Contains(k.classes, c) {
			extra = append(extra, c)
		}
	}
	for _, c := range k.classes {
		if !slices.Contains(got, c) {
			missing = append(missing, c)
		}
	}
	var lines []string
	for _, v := range live {
		lines = append(lines, "["+v.class+"] "+v.detail)
	}
	detail := strings.Join(lines, "\n  ")
	switch {
	case len(extra) > 0:
		t.Errorf("%s broke the liveness oracles with %v, which knownLiveness does not list for it (listed: %v):\n  %s\n%s", key, extra, k.classes, detail, report)
	case len(missing) > 0 && !k.flaky:
		t.Errorf("%s is listed in knownLiveness with %v but did not fail with %v: a fix landed? Take it out of the table.\n  %s", key, k.classes, missing, detail)
	case listed:
		t.Logf("%s failed the liveness oracles as known with %v of %v (flaky %v): %s\n  %s", key, got, k.classes, k.flaky, k.why, detail)
	}
}

// livenessCases are scripted sessions, one per way issue 27 found Clanker silent or wrong,
// played through the same harness and oracles as the seeds (conversation 0 is Alice, 1 Bob).
var livenessCases = []struct {
	name string
	vs   []sim.Variant
	evs  []event
}{
	// 27.1: the page empties the box after the user's send with no event; someone then names
	// Clanker in Available.
	{"clear-silently-then-mention", []sim.Variant{sim.VariantClearSilently}, []event{
		{Kind: evSetMode, Conv: 0, Var: 1}, {Kind: evSleep, D: 2 * time.Second},
		{Kind: evUserType}, {Kind: evUserSend, Var: 1},
		{Kind: evRemote, Conv: onScreen, Var: 1}, {Kind: evSleep, D: 12 * time.Second},
	}},
	// 27.1: the page puts the user's draft back by script, with no event, when they return.
	{"restore-draft-on-return", []sim.Variant{sim.VariantRestoreDraft}, []event{
		{Kind: evSetMode, Conv: 0, Var: 1}, {Kind: evSleep, D: 2 * time.Second},
		{Kind: evUserType}, {Kind: evSwitch, Conv: 1}, {Kind: evSwitch, Conv: 0},
		{Kind: evSleep, D: 9 * time.Second},
	}},
	// 27.2: a reply held behind the user's draft, then someone writes a plain message and the
	// user clears the box.
	{"held-reply-then-plain-message", nil, []event{
		{Kind: evSetMode, Conv: 0, Var: 1}, {Kind: evSleep, D: 2 * time.Second},
		{Kind: evUserType}, {Kind: evRemote, Conv: onScreen, Var: 1}, {Kind: evSleep, D: 3 * time.Second},
		{Kind: evRemote, Conv: onScreen, Var: 0}, {Kind: evUserClear}, {Kind: evSleep, D: 12 * time.Second},
	}},
	// 27.4: an Active answer in flight while the user switches to Deactivated, then
	// Available: it answers a message that does not name Clanker.
	{"mode-switch-with-answer-in-flight", nil, []event{
		{Kind: evLLM, Var: 0, D: 3 * time.Second}, {Kind: evSetMode, Conv: 0, Var: 2}, {Kind: evSleep, D: 6 * time.Second},
		{Kind: evRemote, Conv: onScreen, Var: 0}, {Kind: evSleep, D: time.Second},
		{Kind: evSetMode, Conv: 0, Var: 0}, {Kind: evSetMode, Conv: 0, Var: 1}, {Kind: evSleep, D: 10 * time.Second},
	}},
}

// TestLivenessCasesThroughTheBridge plays the scripted issue-27 sessions; their liveness
// failures are judged against knownLiveness like the seeds'.
func TestLivenessCasesThroughTheBridge(t *testing.T) {
	b := browser.New(t)
	for i, c := range livenessCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // mostly time passing: the sessions share the two cores well
			r := runSeed(t, b, "case="+c.name, uint64(100+i), c.evs, c.vs)
			t.Logf("%s: %d model requests, %d Clanker sends, %d user sends", c.name, r.requests, r.clankerSends, r.userSends)
		})
	}
}

// The oracles themselves, on made-up logs: an owed answer missing, released by a mode switch,
// by an error toast or by the model declining, held by the user's draft; a reply in Available
// without a mention; and mixed text.
func TestLivenessOraclesSeeSilenceAndUnpromptedReplies(t *testing.T) {
	t0 := time.Now()
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	newSession := func() *session {
		w := newWorld()
		w.convs = []*conv{{spec: convSpec{name: "Alice"}, id: "a"}, {spec: convSpec{name: "Bob"}, id: "b"}}
		w.policies = []policyChange{{at: at(0), policy: "demo"}}
		w.modes = []modeChange{{conv: "a", mode: engine.ModeAvailable, start: at(1), confirmed: at(1.1)}}
		w.remotes = []remoteMsg{{conv: "a", text: "hey Clanker?", before: at(5), at: at(5.01), mention: true}}
		return &session{w: w}
	}
	classesOf := func(s *session) []string {
		var out []string
		for _, v := range s.live {
			out = append(out, v.class)
		}
		return out
	}
	reply := sim.Send{Conversation: "a", Text: engine.Prefix + "here", Wall: at(7)}

	s := newSession()
	s.owedAnswers(nil, nil, nil)
	if got := classesOf(s); !slices.Equal(got, []string{classUnanswered}) {
		t.Errorf("a mention in Available with no answer: %v, want [%s]", got, classUnanswered)
	}
	s = newSession()
	s.owedAnswers([]sim.Send{reply}, nil, nil)
	if got := classesOf(s); len(got) != 0 {
		t.Errorf("a mention answered: %v, want nothing", got)
	}
	for name, change := range map[string]func(s *session) ([]toldUser, []fakellm.Request){
		"mode switched": func(s *session) ([]toldUser, []fakellm.Request) {
			s.w.modes = append(s.w.modes, modeChange{conv: "a", mode: engine.ModeDeactivated, start: at(6), confirmed: at(6.1)})
			return nil, nil
		},
		"error toast": func(s *session) ([]toldUser, []fakellm.Request) {
			return []toldUser{{at: at(8), kind: string(engine.CmdToast), level: "error", text: "Failed"}}, nil
		},
		"model declined": func(s *session) ([]toldUser, []fakellm.Request) {
			s.w.policies = append(s.w.policies, policyChange{at: at(5.5), policy: "null"})
			return nil, []fakellm.Request{{Received: at(6)}}
		},
		"draft held": func(s *session) ([]toldUser, []fakellm.Request) {
			s.w.draft, s.w.draftConv = "meet at noon d9", "a"
			return nil, nil
		},
	} {
		s = newSession()
		told, reqs := change(s)
		s.owedAnswers(nil, told, reqs)
		if got := classesOf(s); len(got) != 0 {
			t.Errorf("%s: %v, want the owed answer released or held", name, got)
		}
	}
	// An info toast is not a reason, and a request the model answered is no declining.
	s = newSession()
	s.owedAnswers(nil, []toldUser{{at: at(8), kind: string(engine.CmdToast), level: "info"}}, []fakellm.Request{{Received: at(6)}})
	if got := classesOf(s); !slices.Equal(got, []string{classUnanswered}) {
		t.Errorf("an info toast and an answered request: %v, want [%s]", got, classUnanswered)
	}
	// A reply in Available with no mention since Clanker last spoke; one in the switch's
	// grace is not judged.
	s = newSession()
	s.owedAnswers([]sim.Send{{Conversation: "a", Text: engine.Prefix + "early", Wall: at(1.5)}, reply, {Conversation: "a", Text: engine.Prefix + "again", Wall: at(9)}}, nil, nil)
	if got := classesOf(s); !slices.Equal(got, []string{classUnprompted}) || !strings.Contains(s.live[0].detail, "again") {
		t.Errorf("a second reply without a mention: %v (%v), want one %s for it", got, s.live, classUnprompted)
	}
	// Mixed text: the user's send carrying Clanker's prefix, Clanker's carrying an unsent draft.
	s = newSession()
	s.checkMixed(0, sim.Send{Conversation: "a", Text: "meet at noon d3[clanker] hi"}, nil)
	s.checkMixed(1, sim.Send{Conversation: "a", Text: engine.Prefix + "I read: meet at noon d4"}, map[string]string{})
	s.checkMixed(2, sim.Send{Conversation: "a", Text: engine.Prefix + "you said meet at noon d5"}, map[string]string{"d5": "a"})
	if got := classesOf(s); !slices.Equal(got, []string{classMixed, classMixed}) {
		t.Errorf("mixed text: %v, want two %s (the quote of a sent message is fine)", got, classMixed)
	}
}
