package engine

import (
	"fmt"
	"strings"
	"time"
	"unicode"
)

// The engine's side of "never in the wrong conversation" (issue 33.1). The bridge decides which
// rows belong to the conversation on screen; when it gets that wrong (an old pane that lingers
// after a quick switch, hidden but still in the document) a view can carry another
// conversation's messages or header. The engine believes a view only when it agrees with what
// it knows of the conversation independently of that view:
//
//   - message ids: no message of the view was seen in another conversation
//     (Store.MessageOwners). Ids are unique, so this is proof: such a view is never believed.
//   - header names: when the header this conversation had before (Conversation.Header) or its
//     row in the sidebar is known, they share a name with one of them or with the people who
//     wrote in it (Conversation.Participants).
//   - senders: in a conversation with one other person (its header names one person, the only
//     one who ever wrote there, or one who wrote in the view already accepted), nobody else
//     wrote.
//
// The names are weaker evidence: people join groups and contacts are renamed. A view that fails
// only on names is believed once the same view has been reported steadily (doubtSteady times
// over doubtSteadyFor), which a pane lingering for a moment after a switch never is.
//
// A view that is not believed leaves the conversation not settled: nothing is answered, posted
// or stored for it, the disagreement is logged with counts, and the engine asks the page to
// report the conversation again until a view it can believe arrives.

// resyncFirst and resyncMax bound the pause before the engine asks the page to report a
// doubtful conversation again; it doubles after each doubtful view.
const (
	resyncFirst    = time.Second
	resyncMax      = 15 * time.Second
	doubtSteady    = 3
	doubtSteadyFor = 5 * time.Second
)

// viewDoubt is why a view cannot be believed; strong doubts are proof.
type viewDoubt struct {
	why    string
	strong bool
}

// viewDisagrees checks a view of conversation conv (its header names and messages) against
// what the engine knows of conv; the zero viewDoubt means it agrees. onePerson is the other
// person of a one-to-one conversation, or "" (see onePersonOf).
func (e *Engine) viewDisagrees(conv ConversationID, rec Conversation, header []string, msgs []Message, onePerson string) viewDoubt {
	var ids []string
	for _, m := range msgs {
		if !strings.HasPrefix(m.ID, "tmp_") {
			ids = append(ids, m.ID)
		}
	}
	if len(ids) > 0 {
		owners, err := e.store.MessageOwners(ids)
		if err != nil {
			e.log.Warn("engine: could not look up where messages were seen; checking the view by its names only", "conversation", conv, "err", err)
		}
		foreign := 0
		for _, owner := range owners {
			if owner != conv {
				foreign++
			}
		}
		if foreign > 0 {
			return viewDoubt{why: fmt.Sprintf("%d of its %d messages were seen in another conversation", foreign, len(msgs)), strong: true}
		}
	}
	side := e.sidebar.names[conv]
	if !sidebarNameComparable(header, side) {
		side = ""
	}
	if len(header) > 0 && (len(rec.Header) > 0 || side != "") && !namesOverlap(header, rec.Header) &&
		!namesInSidebarName(header, side) && !namesOverlap(header, rec.Participants) {
		return viewDoubt{why: fmt.Sprintf("its %d header names match neither the header this conversation had, its sidebar row, nor the %d people who wrote in it", len(header), len(rec.Participants))}
	}
	if onePerson != "" {
		if n := strangers(msgs, []string{onePerson}); n > 0 {
			return viewDoubt{why: fmt.Sprintf("%d of its messages come from someone other than the one other person in this conversation", n)}
		}
	}
	return viewDoubt{}
}

// onePersonOf returns the other person of a one-to-one conversation, or "": its header names
// one person and that person is the only one who ever wrote there, or wrote in the messages
// already accepted (a group's header names its title or several people, and its members write).
func onePersonOf(header, known []string, accepted []Message) string {
	if len(header) != 1 {
		return ""
	}
	name := header[0]
	if len(known) == 1 && sameName(known[0], name) {
		return name
	}
	for _, m := range accepted {
		if m.Direction == Incoming && !m.LabelPending && sameName(m.Sender, name) {
			return name
		}
	}
	return ""
}

// believe decides whether a doubtful view of conv is believed after all: a doubt on names
// alone, about the same view reported steadily, is a real change (someone joined, a contact was
// renamed), not a pane left over from another conversation. The same view means the same header
// with every message the first doubtful report showed still there: messages that arrive in the
// meantime do not make it another view (a live conversation keeps talking while it is doubted),
// while a lingering pane that goes away takes its rows with it.
func (e *Engine) believe(conv ConversationID, d viewDoubt, header []string, msgs []Message) bool {
	s := &e.screen
	if d.strong {
		s.doubtHeader, s.doubtIDs, s.doubtSeen = "", nil, 0
		return false
	}
	now := time.Now()
	head := strings.Join(header, "\x00")
	if s.doubted != conv || s.doubtSeen == 0 || s.doubtHeader != head || !containsAll(msgs, s.doubtIDs) {
		s.doubtHeader, s.doubtIDs, s.doubtSeen, s.doubtSince = head, messageIDs(msgs), 0, now
	}
	s.doubtSeen++
	if s.doubtSeen >= doubtSteady && now.Sub(s.doubtSince) >= doubtSteadyFor {
		e.log.Info("engine: a view that disagreed only on names stayed the same; believed", "conversation", conv, "why", d.why, "reports", s.doubtSeen)
		return true
	}
	return false
}

// messageIDs are the ids of msgs.
func messageIDs(msgs []Message) []string {
	ids := make([]string, 0, len(msgs))
	for _, m := range msgs {
		ids = append(ids, m.ID)
	}
	return ids
}

// containsAll reports whether every id of ids is among msgs' ids.
func containsAll(msgs []Message, ids []string) bool {
	have := make(map[string]bool, len(msgs))
	for _, m := range msgs {
		have[m.ID] = true
	}
	for _, id := range ids {
		if !have[id] {
			return false
		}
	}
	return true
}

// doubt leaves the conversation on screen unsettled because its view cannot be believed (see
// viewDisagrees) and asks the page to report it again after a pause.
func (e *Engine) doubt(conv ConversationID, why string) {
	if e.screen.fg != nil && !e.screen.switching {
		e.leaveForeground()
	}
	e.screen.fg = nil
	e.screen.switching = true
	e.screen.doubted = conv
	e.status()
	wait := e.screen.resyncWait
	if wait < resyncFirst {
		wait = resyncFirst
	}
	e.screen.resyncWait = min(2*wait, resyncMax)
	e.log.Warn("engine: the page's view of the conversation disagrees with what is known of it; not acting there until it is reported consistently", "conversation", conv, "why", why, "retry", wait)
	e.screen.resyncTm.stop()
	e.screen.resyncTm = e.after(wait, func() {
		e.screen.resyncTm = nil
		if e.screen.doubted == conv && e.screen.switching {
			e.do(Command{Kind: CmdResync, Conversation: conv}, nil)
		}
	})
}

// settle ends a doubt: a view of some conversation was believed.
func (s *screen) settle() {
	s.doubted = ""
	s.resyncWait = 0
	s.doubtHeader, s.doubtIDs, s.doubtSeen = "", nil, 0
	s.resyncTm.stop()
	s.resyncTm = nil
}

// learnPeople adds the people who wrote in an accepted view to those known to have written in
// the conversation (bounded). Header names are not learned: a group's header may name only the
// group.
func learnPeople(known []string, msgs []Message) []string {
	out := append([]string(nil), known...)
	add := func(n string) {
		if n = CleanName(n); n == "" || n == "You" || len(out) >= maxKnownPeople {
			return
		}
		for _, k := range out {
			if sameName(k, n) {
				return
			}
		}
		out = append(out, n)
	}
	for _, m := range msgs {
		if m.Direction == Incoming && !m.LabelPending && !m.IsOwnClanker() {
			add(m.Sender)
		}
	}
	return out
}

// maxKnownPeople bounds the people remembered per conversation.
const maxKnownPeople = 200

// namesOverlap reports whether two lists of names share one, as a person reads them.
func namesOverlap(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if sameName(x, y) {
				return true
			}
		}
	}
	return false
}

// namesInSidebarName reports whether one of the header names is the sidebar row's name or one
// of the comma-separated names an unnamed group's row shows.
func namesInSidebarName(header []string, side string) bool {
	return side != "" && namesOverlap(header, splitSidebarName(side))
}

// sidebarNameComparable reports whether a sidebar row's name can be compared with a header's
// names at all: a header naming several people beside a row that shows one name is a named
// group (its row shows the group's title, its header its members), and the title says nothing
// about who the members are.
func sidebarNameComparable(header []string, side string) bool {
	return side != "" && (len(header) <= 1 || strings.Contains(side, ","))
}

// splitSidebarName is a sidebar row's name and, for an unnamed group's row, each of the names
// it lists.
func splitSidebarName(side string) []string {
	if side == "" {
		return nil
	}
	return append([]string{side}, strings.Split(side, ",")...)
}

// strangers counts the messages written by someone not among people (the local user aside; a
// message whose sender is not known yet proves nothing).
func strangers(msgs []Message, people []string) int {
	n := 0
	for _, m := range msgs {
		if m.Direction == Outgoing || m.LabelPending || m.Sender == "" || m.Sender == "You" || m.IsOwnClanker() {
			continue
		}
		if !namesOverlap([]string{m.Sender}, people) {
			n++
		}
	}
	return n
}

// sameName compares two names as a person reads them: case, spacing, no-break spaces and the
// invisible direction marks pages wrap names in do not matter.
func sameName(a, b string) bool {
	a, b = CleanName(a), CleanName(b)
	return a != "" && strings.EqualFold(a, b)
}

// CleanName returns a name as a person reads it: without the invisible bidirectional controls
// and marks pages wrap names in (U+200E, U+200F, U+061C, U+202A-202E, U+2066-2069), with
// no-break and other spaces made plain and runs of them collapsed, trimmed. Letters, emoji and
// their joiners are kept as they are.
func CleanName(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case r == '\u200e' || r == '\u200f' || r == '\u061c' || (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069') || r == '\ufeff':
			continue
		case unicode.IsSpace(r) || r == '\u00a0' || r == '\u202f' || r == '\u2007':
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}
