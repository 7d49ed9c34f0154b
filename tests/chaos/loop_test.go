package chaos

import (
	"context"
	"fmt"
	"strings"
	"testing/synctest"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// The compound events below each drive one situation of the conversation loop to its end
// (the user typing while Clanker types, hopping through conversations with an answer in
// flight, taking over during a visit) and check its invariants: the user's text is never
// changed, no reply lands in the wrong conversation (checkSend), and no reply is lost unless
// a newer message (or something else the engine must respect) explains it.

// sleepUntil advances the bubble's clock in small steps until cond holds (with the lock
// held) or max passed, and reports whether it held.
func (s *session) sleepUntil(max time.Duration, cond func() bool) bool {
	for waited := time.Duration(0); waited <= max; waited += 50 * time.Millisecond {
		s.p.mu.Lock()
		ok := cond()
		s.p.mu.Unlock()
		if ok {
			return true
		}
		s.pass(50 * time.Millisecond)
	}
	return false
}

func (s *session) participating(c *conv) bool {
	rec, ok, err := s.p.store.LoadConversation(c.id)
	// Clanker takes part once the people there were told: the mode chosen, as far as announced.
	acting := rec.Acting()
	return err == nil && ok && (acting == engine.ModeAvailable || acting == engine.ModeActive) && s.p.configured && !c.automated
}

func lastID(c *conv) string {
	if n := len(c.msgs); n > 0 {
		return c.msgs[n-1].ID
	}
	return ""
}

// newerThan reports whether anyone but this Clanker wrote in c after message id (a tmp_ id
// or the permanent id it got).
func (p *page) newerThan(c *conv, id string) bool {
	for i := len(c.msgs) - 1; i >= 0; i-- {
		m := c.msgs[i]
		if p.norm(m.ID) == p.norm(id) {
			return false
		}
		if !m.IsOwnClanker() {
			return true
		}
	}
	return true
}

// typeDuringTyping waits for Clanker to be typing in the foreground, types into the box, and
// then sends or clears the draft.
func (s *session) typeDuringTyping(send bool) {
	p := s.p
	// Interrupt once the token is in, so the checks below know which request the reply came
	// from and so which messages it had seen.
	if !s.sleepUntil(15*time.Second, func() bool {
		c := p.current
		return c.user == "" && tokenRE.MatchString(c.clanker) && c.clanker == c.typed
	}) {
		return // Clanker did not type in this window; nothing to interrupt
	}
	// Typing into the box of a conversation Clanker is visiting ends the visit, and Clanker
	// must not post there afterwards (see visitClick): the reply it was typing is dropped on
	// purpose then, not lost.
	visited := engine.ConversationID("")
	if snap, err := s.eng.Snapshot(context.Background()); err == nil {
		visited = snap.Visiting
	}
	p.mu.Lock()
	c := p.current
	sentBefore, gen := len(p.sent), p.switchGen
	// The reply may be dropped for any message it has not seen: the newest one (not written
	// by this Clanker) in its request, not the newest one now. A message that arrived while
	// the request ran or while the reply was typed makes the held reply stale, and the engine
	// decides again (which in Available mode may well mean no reply).
	// Text a stopped engine left behind must have been taken out by the running one, which
	// knows it from the store; the stopped engine's reply went with it.
	orphaned := c.orphan != "" && c.clanker == c.orphan
	seen, tok := lastID(c), 0
	if n, info, ok := s.m.lookup(c.clanker); ok {
		seen, tok = info.trigger, n
	}
	c.user += "mine "
	p.stats.interrupts++
	// During a visit the key cancels it, as the bridge reports (the user took the visited
	// conversation over: Clanker stops there).
	evs := append(p.keyDuringVisit(c, visited), p.compose(c))
	p.mu.Unlock()
	p.emit(evs...)
	synctest.Wait()
	s.pass(2 * time.Second)
	p.mu.Lock()
	switch {
	case p.current == c && c.clanker != "" && orphaned:
		p.violate("Clanker's text %q, left in %s's box before the engine restarted, is still there after the user started typing", c.clanker, c.id)
	case p.current == c && c.clanker != "":
		p.violate("Clanker's text %q is still in %s's box 2 s after the user started typing (user's text %q)", c.clanker, c.id, c.user)
	}
	if c.user != "mine " {
		p.violate("the user's text in %s became %q, want %q", c.id, c.user, "mine ")
	}
	if len(p.sent) != sentBefore {
		p.violate("a text was sent in %s while the user was typing: %q", p.sent[len(p.sent)-1].conv, p.sent[len(p.sent)-1].text)
	}
	evs = nil
	if send {
		p.seq++
		id := fmt.Sprintf("tmp_%d", p.seq)
		p.pendingIDs[id] = fmt.Sprintf("s%d", p.seq)
		m := engine.Message{ID: id, Sender: "You", Direction: engine.Outgoing, Text: strings.TrimSpace(c.user)}
		c.user = ""
		c.msgs = append(c.msgs, m)
		evs = append(evs, engine.MessageAdded{Conversation: c.id, Message: m}, p.compose(c), p.sidebar())
	} else {
		c.user = ""
		evs = append(evs, p.compose(c))
	}
	p.mu.Unlock()
	p.emit(evs...)
	synctest.Wait()
	if send || orphaned {
		// A newer message (the user's own) arrived: Clanker decides again, anything goes. Or
		// the text was a stopped engine's: its reply went with it.
		return
	}
	s.pass(30 * time.Second)
	p.mu.Lock()
	defer p.mu.Unlock()
	if visited == c.id {
		// The user is in c now, so later news or answers to newer messages may follow; the
		// interrupted reply, or another answer to the same message, must not.
		for _, st := range p.sent[sentBefore:] {
			n, info, ok := s.m.lookup(st.text)
			if ok && st.conv == c.id && (n == tok || info.kind == engine.RequestReply && p.norm(info.trigger) == p.norm(seen)) {
				p.violate("Clanker posted %q in %s after the user typed there during its visit", st.text, c.id)
			}
		}
		return
	}
	if p.current != c || p.switchGen != gen || p.newerThan(c, seen) || !s.participating(c) {
		return // the world moved on (a visit, a new message, a mode change): nothing to demand
	}
	for _, st := range p.sent[sentBefore:] {
		if st.conv == c.id {
			return
		}
	}
	p.violate("the reply Clanker was typing in %s was lost after the user cleared their draft (no newer message there)", c.id)
}

// hop has someone ask Clanker in the foreground, then the user hops to two other
// conversations while the answer is in flight and comes back. The answer must reach the
// asking conversation unless something newer was said there.
func (s *session) hop(e event) {
	p := s.p
	// The question must reach the engine as a new message. While a switch is unreported the
	// bridge sends no rows (they arrive in the report's baseline, as history), so wait for it.
	if !s.sleepUntil(5*time.Second, func() bool { return p.unreported == 0 && !p.settling }) {
		return
	}
	p.mu.Lock()
	a := p.current
	if a.automated || !p.configured {
		p.mu.Unlock()
		return
	}
	if !s.participating(a) {
		// The user switches Clanker on first (the greeting goes out before the question).
		p.mu.Unlock()
		p.emit(engine.SetMode{Conversation: a.id, Mode: engine.ModeActive, Source: "chaos"})
		synctest.Wait()
		s.pass(40 * time.Second)
		p.mu.Lock()
		if p.current != a || !s.participating(a) {
			p.mu.Unlock()
			return
		}
	}
	s.msgSeq++
	q := engine.Message{ID: fmt.Sprintf("m%d", s.msgSeq), Sender: a.people[0], Direction: engine.Incoming, Text: fmt.Sprintf("Clanker, question %d?", s.msgSeq)}
	a.msgs = append(a.msgs, q)
	reqs := s.m.requestsCount()
	pol := s.m.policyNow()
	evs := []engine.Event{engine.MessageAdded{Conversation: a.id, Message: q}, p.sidebar()}
	// Count sends from before the question: without relaxed responsiveness an untyped answer
	// can be posted in the same instant the request is seen, before the hops begin.
	sentBefore := len(p.sent)
	p.mu.Unlock()
	p.emit(evs...)
	synctest.Wait()
	asked := s.sleepUntil(20*time.Second, func() bool { return s.m.requestsCount() > reqs })
	for _, i := range []int{e.Conv, (e.Conv + 1 + e.Var) % numConvs} {
		p.mu.Lock()
		sw := p.switchTo(p.convs[i])
		p.mu.Unlock()
		p.emit(sw...)
		synctest.Wait()
		s.pass(1500 * time.Millisecond)
	}
	s.pass(time.Minute)
	p.mu.Lock()
	sw := p.switchTo(a)
	gen := p.switchGen
	p.mu.Unlock()
	p.emit(sw...)
	synctest.Wait()
	s.pass(30 * time.Second)
	p.mu.Lock()
	defer p.mu.Unlock()
	if !asked || pol.out != outJSON || pol.latency > 20*time.Second || p.current != a || p.switchGen != gen ||
		p.newerThan(a, q.ID) || !s.participating(a) || a.user != "" || a.clanker != "" {
		return // no answer was asked for, the model misbehaves on purpose, or the world moved on
	}
	p.stats.hopsChecked++
	for _, st := range p.sent[sentBefore:] {
		if _, info, ok := s.m.lookup(st.text); ok && st.conv == a.id && p.norm(info.trigger) == q.ID {
			return
		}
	}
	p.violate("the answer to %s in %s was lost while the user hopped through other conversations (nothing newer was said there)", q.ID, a.id)
}

// visitClick waits for Clanker to visit an inactive conversation and lets the user take over.
// The visit must end at once and Clanker must not navigate again or post in the visited
// conversation.
func (s *session) visitClick(e event) {
	p := s.p
	var visited engine.ConversationID
	visiting := func() bool {
		snap, err := s.eng.Snapshot(context.Background())
		if err != nil || snap.Visiting == "" || snap.Foreground == nil || snap.Foreground.ID != snap.Visiting || snap.Foreground.Switching {
			return false
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		visited = snap.Visiting
		// The page must show what the engine believes, or the user's action meets another
		// conversation than the visited one.
		return p.current.id == visited && p.unreported == 0
	}
	found := false
	for waited := time.Duration(0); waited < time.Minute && !found; waited += 200 * time.Millisecond {
		if found = visiting(); !found {
			s.pass(200 * time.Millisecond)
		}
	}
	if !found {
		return
	}
	p.mu.Lock()
	navs, sentBefore := p.navigations, len(p.sent)
	p.stats.takeovers++
	cur := p.current
	var evs []engine.Event
	switch e.Var % 3 {
	case 0:
		target := p.convs[e.Conv]
		if target.id == visited {
			target = p.convs[(e.Conv+1)%numConvs]
		}
		evs = p.switchTo(target)
	case 1:
		evs = []engine.Event{engine.VisitCancelled{Reason: "chaos: the user pressed Cancel"}}
		p.release(visited)
	case 2:
		// The bridge reports a key pressed in the compose box while the overlay is up as the
		// user cancelling the visit (overlay_cancel, reason "key"), before the box's state: to
		// the engine and to the user it is the same as pressing Cancel.
		evs = p.keyDuringVisit(cur, visited)
		cur.user += "me "
		evs = append(evs, p.compose(cur))
	}
	p.mu.Unlock()
	p.emit(evs...)
	synctest.Wait()
	if snap, err := s.eng.Snapshot(context.Background()); err == nil && snap.Visiting != "" {
		p.mu.Lock()
		p.violate("the visit to %s goes on after the user took over (%s)", snap.Visiting, e)
		p.mu.Unlock()
	}
	s.pass(time.Minute)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.navigations != navs {
		p.violate("Clanker navigated %d times after the user ended the visit to %s", p.navigations-navs, visited)
	}
	if e.Var%3 != 0 {
		for _, st := range p.sent[sentBefore:] {
			if st.conv == visited && st.text != engine.DeactivatedText && st.text != engine.AvailableText {
				p.violate("Clanker posted %q in %s after the user cancelled its visit there", st.text, visited)
			}
		}
	}
}
