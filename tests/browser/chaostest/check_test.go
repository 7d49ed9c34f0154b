package chaostest

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/app/engine"
)

// maxReplyRunes is the engine's cap on a reply after the prefix.
const maxReplyRunes = engine.MaxReplyRunes

var (
	msgTag   = regexp.MustCompile(`\bk\d+m\d+\b`)
	draftTag = regexp.MustCompile(`\bd\d+\b`)
	// rawShapes are pieces of model output that is not a valid reply: the marker the scripted
	// bad answers carry, JSON fields, and the replacement character invalid UTF-8 turns into.
	rawShapes = []string{rawMark, `"response"`, `"summary"`, `{"`, "\uFFFD"}
)

// checkStats are what a seed's checks saw.
type checkStats struct {
	clankerSends, userSends, farewells int
}

// check compares the simulator's logs (what really left the page, and how) with what the
// driver did, and returns every broken invariant.
func (s *session) check() ([]string, checkStats) {
	var v []string
	var st checkStats
	bad := func(format string, args ...any) { v = append(v, fmt.Sprintf(format, args...)) }
	w := s.w
	sent, err := s.h.ctl.Sent()
	if err != nil {
		return []string{"read the simulator's send log: " + err.Error()}, st
	}
	rejected, err := s.h.ctl.Rejected()
	if err != nil {
		return []string{"read the simulator's rejected log: " + err.Error()}, st
	}
	for _, r := range rejected {
		bad("an untrusted send attempt was recorded (via %s in %s): the page ignores those, so something tried to send with a script-made event", r.Via, s.name(r.Conversation))
	}

	user := 0                       // next expected user send
	userTags := map[string]string{} // draft tag -> conversation it was sent in, as of this point of the log
	for j, e := range sent {
		if !e.Trusted {
			bad("send %d in %s is logged as accepted but untrusted", j, s.name(e.Conversation))
		}
		if !strings.HasPrefix(e.Text, engine.Prefix) {
			if user < len(w.userSends) && w.userSends[user].conv == e.Conversation && w.userSends[user].text == e.Text {
				for _, t := range draftTag.FindAllString(e.Text, -1) {
					userTags[t] = e.Conversation
				}
				user++
				st.userSends++
				continue
			}
			if strings.Contains(e.Text, strings.TrimSpace(engine.Prefix)) {
				s.checkMixed(j, e, userTags) // the user's Enter sent Clanker's text with theirs
				continue
			}
			bad("send %d in %s is not the user's and lacks the prefix: %q (expected the user's next send to be %s)", j, s.name(e.Conversation), engine.Clip(e.Text, 80), s.nextUser(user))
			continue
		}
		st.clankerSends++
		c := w.byID(e.Conversation)
		switch {
		case c == nil:
			bad("Clanker sent %q in a conversation the driver never created (%s)", engine.Clip(e.Text, 80), e.Conversation)
		case c.spec.auto:
			bad("Clanker sent %q in the automated conversation %s", engine.Clip(e.Text, 80), c.spec.name)
		case !w.participating[c.id]:
			bad("Clanker sent %q in %s, which was never made Available or Active", engine.Clip(e.Text, 80), c.spec.name)
		case e.Text == engine.DeactivatedText:
			st.farewells++
		case w.deactivatedAt[c.id] >= 0 && j >= w.deactivatedAt[c.id]:
			bad("Clanker sent %q in %s after its Deactivated mode was stored (send %d, deactivated at send %d)", engine.Clip(e.Text, 80), c.spec.name, j, w.deactivatedAt[c.id])
		}
		for _, shape := range rawShapes {
			if strings.Contains(e.Text, shape) {
				bad("Clanker posted raw model output in %s (it contains %q): %q", s.name(e.Conversation), shape, engine.Clip(e.Text, 80))
				break
			}
		}
		if n := utf8.RuneCountInString(strings.TrimPrefix(e.Text, engine.Prefix)); n > maxReplyRunes {
			bad("Clanker's send in %s has %d runes after the prefix, over the cap of %d", s.name(e.Conversation), n, maxReplyRunes)
		}
		for _, t := range msgTag.FindAllString(e.Text, -1) {
			if owner, ok := w.tagConv[t]; ok && owner != e.Conversation {
				bad("Clanker's send in %s quotes message %s of %s: it went to the wrong conversation: %q", s.name(e.Conversation), t, s.name(owner), engine.Clip(e.Text, 80))
			}
		}
		s.checkMixed(j, e, userTags)
		for _, t := range draftTag.FindAllString(e.Text, -1) {
			if owner, ok := userTags[t]; ok && owner != e.Conversation {
				bad("Clanker's send in %s quotes the user's message %s of %s: wrong conversation: %q", s.name(e.Conversation), t, s.name(owner), engine.Clip(e.Text, 80))
			}
		}
	}
	if user < len(w.userSends) {
		bad("the user's send %s never reached the send log", s.nextUser(user))
	}

	for _, c := range w.convs {
		msgs, err := s.h.ctl.Messages(c.id)
		if err != nil {
			bad("read the messages of %s: %v", c.spec.name, err)
			continue
		}
		v = append(v, s.checkThread(c, msgs)...)
	}
	v = append(v, s.checkDraft()...)
	s.sampleDraftBelief()
	return v, st
}

// checkThread checks one conversation's rows as the simulator stores them: at most one
// Clanker reply quoting any one message (the demo model quotes the newest message it was
// shown, the user's own sent drafts included), and no answer to another Clanker's message that
// arrived after Clanker had spoken with no human message since (a ping-pong).
func (s *session) checkThread(c *conv, msgs []sim.Message) []string {
	var v []string
	quiet := false
	quietAt := map[string]bool{}
	replies := map[string]int{}
	for _, m := range msgs {
		own := m.Outgoing && strings.HasPrefix(m.Text, engine.Prefix)
		switch {
		case own:
			for _, t := range draftTag.FindAllString(m.Text, -1) {
				replies[t]++
				if replies[t] == 2 {
					v = append(v, fmt.Sprintf("Clanker replied twice to the user's message %s in %s (second reply %q)", t, c.spec.name, engine.Clip(m.Text, 80)))
				}
			}
			for _, t := range msgTag.FindAllString(m.Text, -1) {
				replies[t]++
				if replies[t] == 2 {
					v = append(v, fmt.Sprintf("Clanker replied twice to message %s in %s (second reply %q)", t, c.spec.name, engine.Clip(m.Text, 80)))
				}
				if s.w.kinds[t] == "other-clanker" && quietAt[t] {
					v = append(v, fmt.Sprintf("Clanker answered another Clanker's message %s in %s although it had spoken since the last human message (ping-pong): %q", t, c.spec.name, engine.Clip(m.Text, 80)))
				}
			}
			quiet = true
		case !m.Outgoing && strings.HasPrefix(strings.TrimSpace(m.Text), "[clanker]"):
			for _, t := range msgTag.FindAllString(m.Text, -1) {
				quietAt[t] = quiet
			}
		case m.Text != "" || m.Image != "":
			quiet = false
		}
	}
	return v
}

// checkDraft checks the user's draft is still in the box of the conversation they typed it
// in: Clanker may neither overwrite nor clear it, nor navigate away from it.
func (s *session) checkDraft() []string {
	w := s.w
	if w.draft == "" {
		return nil
	}
	cur, err := s.shown()
	if err != nil {
		return []string{"read the location: " + err.Error()}
	}
	if cur != w.draftConv {
		return []string{fmt.Sprintf("the page left %s, where the user's draft %q was, for %s without the user switching", s.name(w.draftConv), engine.Clip(w.draft, 80), s.name(cur))}
	}
	text, _, err := s.box()
	if err != nil {
		return []string{err.Error()}
	}
	if text != w.draft {
		return []string{fmt.Sprintf("the user's draft in %s was changed: the box holds %q, the user typed %q", s.name(cur), engine.Clip(text, 80), engine.Clip(w.draft, 80))}
	}
	return nil
}

func (s *session) name(id string) string {
	if c := s.w.byID(id); c != nil {
		return c.spec.name
	}
	if id == "" {
		return "(no conversation)"
	}
	return id
}

func (s *session) nextUser(i int) string {
	if i >= len(s.w.userSends) {
		return "none"
	}
	u := s.w.userSends[i]
	return fmt.Sprintf("%q in %s", engine.Clip(u.text, 80), s.name(u.conv))
}

// The checker itself: tests/chaos found the engine answering the user's own sent draft twice
// (seed 5000435), which this checker missed because it counted replies per remote message only.
func TestCheckThreadSeesTwoRepliesToTheUsersOwnMessage(t *testing.T) {
	s := &session{w: newWorld()}
	c := &conv{spec: convSpec{name: "Ann"}, id: "c1", key: 1}
	reply := "[clanker] Good question, Dana. I am just the Clanker demo model, so I cannot really answer \"meet at noon d7 clanker?\"."
	thread := []sim.Message{
		{From: "Ann", Text: "hi there k1m1"},
		{From: "You", Outgoing: true, Text: "meet at noon d7 clanker?"},
		{From: "You", Outgoing: true, Text: reply},
	}
	if v := s.checkThread(c, thread); len(v) != 0 {
		t.Fatalf("one reply to the user's message: want no violation, got %q", v)
	}
	v := s.checkThread(c, append(thread, sim.Message{From: "You", Outgoing: true, Text: reply}))
	if len(v) != 1 || !strings.Contains(v[0], "twice to the user's message d7") {
		t.Fatalf("two replies to the user's message: want one violation naming d7, got %q", v)
	}
}
