package pagechaos

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	protocol "github.com/clanker-desktop/clanker/app/page"
)

// Failure classes: each is one way the bridge can tell Go something untrue or nothing.
const (
	classProtocol     = "protocol"           // an event Go refuses
	classOldAsNew     = "old-as-new"         // a message that was there when the visit began reported as new
	classAgainAsNew   = "again-as-new"       // a message reported as new after it was already reported
	classWrongConv    = "wrong-conversation" // a row, header or sender of another conversation reported for this one
	classIDSwap       = "id-swap"            // a real message id reported as renamed to another
	classWrongContent = "wrong-content"      // a message reported with another message's text
	className         = "name"               // a name not as a person reads it
	classSidebar      = "sidebar"            // something other than the real conversation list reported as the sidebar
	classMissed       = "missed"             // a message drawn at the live end never reported, or a visit never settled
)

// violation is one broken property.
type violation struct {
	Class  string
	Detail string
}

// truthMsg is what the simulator stored of one message.
type truthMsg struct {
	conv     string
	from     string // "You" for outgoing
	text     string
	reactors map[string]bool
}

// visit is one visit of the page to a conversation, on the page's clock.
type visit struct {
	open, leave float64
	at          string
}

// world is the ground truth of a finished run.
type world struct {
	msgs     map[string]truthMsg
	convName map[string]string
	parts    map[string][]string
	archived map[string]bool
	created  map[string]bool
	visits   map[string][]visit
	// firstLive is when the page first drew each conversation's newest row: from then on the
	// bridge had seen it at its live end, and what arrives later is new.
	firstLive map[string]float64
	arrive    map[string]sim.TruthRecord // message id -> its arrival at the page
	updates   []sim.TruthRecord          // reactions that reached the page
	snippets  map[string]map[string]bool // conversation -> every snippet the real sidebar drew, as read
	end       float64                    // the page time when the run ended
}

func (r *run) world(recs []sim.TruthRecord) (*world, error) {
	w := &world{msgs: map[string]truthMsg{}, convName: map[string]string{}, parts: map[string][]string{},
		archived: map[string]bool{}, created: map[string]bool{}, visits: map[string][]visit{}, firstLive: map[string]float64{},
		arrive: map[string]sim.TruthRecord{}, snippets: map[string]map[string]bool{}}
	for _, c := range r.s.Conversations() {
		w.convName[c.ID] = c.Name
		w.parts[c.ID] = c.Participants
		w.archived[c.ID] = c.Archived
		w.snippets[c.ID] = map[string]bool{}
	}
	for i, pc := range r.plan.Conversations {
		if pc.Created && r.w.IDs[i] != "" {
			w.created[r.w.IDs[i]] = true
		}
	}
	for conv := range w.convName {
		ms, err := r.s.Messages(conv)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			tm := truthMsg{conv: conv, from: m.Sender(), text: m.Text, reactors: map[string]bool{}}
			for _, re := range m.Reactions {
				tm.reactors[re.From] = true
			}
			w.msgs[m.ID] = tm
		}
	}
	for _, rec := range recs {
		switch rec.Kind {
		case sim.TruthOpen:
			w.visits[rec.Conv] = append(w.visits[rec.Conv], visit{open: rec.T, leave: math.Inf(1), at: rec.At})
		case sim.TruthLive:
			if _, ok := w.firstLive[rec.Conv]; !ok {
				w.firstLive[rec.Conv] = rec.T
			}
		case sim.TruthLeave:
			if vs := w.visits[rec.Conv]; len(vs) > 0 && math.IsInf(vs[len(vs)-1].leave, 1) {
				vs[len(vs)-1].leave = rec.T
			}
		case sim.TruthArrive:
			if _, seen := w.arrive[rec.ID]; !seen {
				w.arrive[rec.ID] = rec
			}
		case sim.TruthUpdate:
			w.updates = append(w.updates, rec)
		case sim.TruthSnippet:
			if w.snippets[rec.Conv] == nil {
				w.snippets[rec.Conv] = map[string]bool{}
			}
			w.snippets[rec.Conv][sim.PlainName(rec.Snippet)] = true
		}
	}
	return w, nil
}

// visitAt is the visit of conv that began last at or before t.
func (w *world) visitAt(conv string, t float64) (visit, bool) {
	var found visit
	ok := false
	for _, v := range w.visits[conv] {
		if v.open <= t {
			found, ok = v, true
		}
	}
	return found, ok
}

// check compares every bridge event with the ground truth and returns what broke, once
// per class and subject.
func (r *run) check(w *world, evs []bridgeEvent) []violation {
	var out []violation
	seen := map[string]bool{}
	bad := func(class, key, format string, args ...any) {
		if seen[class+"\x00"+key] {
			return
		}
		seen[class+"\x00"+key] = true
		out = append(out, violation{Class: class, Detail: fmt.Sprintf(format, args...)})
	}
	// reported: conversation -> message id -> the first event that carried it (any kind).
	reported := map[string]map[string]string{}
	note := func(conv, id, how string) {
		if reported[conv] == nil {
			reported[conv] = map[string]string{}
		}
		if _, ok := reported[conv][id]; !ok {
			reported[conv][id] = how
		}
	}
	// owedSeen: message id -> page time it was reported new or in a settled conversation.
	owedSeen := map[string]float64{}

	for i, e := range evs {
		if e.Err != nil {
			bad(classProtocol, e.Err.Error(), "event %d was refused by Go: %v (%.200s)", i, e.Err, e.Raw)
			continue
		}
		switch ev := e.Env.Event.(type) {
		case protocol.Conversation:
			r.checkHeader(w, bad, ev)
			for _, m := range ev.Messages {
				r.checkMessage(w, bad, ev.ConversationID, m, "conversation")
				note(ev.ConversationID, m.ID, "conversation")
				if _, ok := owedSeen[m.ID]; !ok && w.msgs[m.ID].conv == ev.ConversationID {
					owedSeen[m.ID] = e.T
				}
			}
		case protocol.NewMessage:
			c, m := ev.ConversationID, ev.Message
			r.checkMessage(w, bad, c, m, "message")
			if tm, ok := w.msgs[m.ID]; ok && tm.conv == c {
				// Truly new is what arrived after the page first showed the conversation at
				// its live end; everything else was history when the bridge first saw it.
				v, inVisit := w.visitAt(c, e.T)
				arr, arrived := w.arrive[m.ID]
				live, seenLive := w.firstLive[c]
				switch {
				case !inVisit:
					bad(classWrongConv, "novisit "+m.ID, "message %s reported new for %s, which the page never opened", m.ID, r.label(c))
				case !arrived || !seenLive || arr.T < live:
					when := "before the page loaded"
					switch {
					case arrived && !seenLive:
						when = "while the page had never shown the conversation's newest row"
					case arrived:
						when = fmt.Sprintf("%.0f ms before the page first showed the conversation's newest row", live-arr.T)
					}
					bad(classOldAsNew, m.ID, "message %s of %s (%q) reported new at +%.0f ms into a visit (%s), but it arrived %s",
						m.ID, r.label(c), tm.text, e.T-v.open, v.at, when)
				case reported[c][m.ID] != "":
					bad(classAgainAsNew, m.ID, "message %s of %s (%q) reported new after it was already reported (first in a %s event)",
						m.ID, r.label(c), tm.text, reported[c][m.ID])
				}
				if _, ok := owedSeen[m.ID]; !ok {
					owedSeen[m.ID] = e.T
				}
			}
			note(c, m.ID, "message")
		case protocol.History:
			for _, m := range ev.Messages {
				r.checkMessage(w, bad, ev.ConversationID, m, "history")
				note(ev.ConversationID, m.ID, "history")
			}
		case protocol.MessageUpdate:
			r.checkMessage(w, bad, ev.ConversationID, ev.Message, "message_update")
		case protocol.MessageID:
			if !strings.HasPrefix(ev.OldID, "tmp_") {
				bad(classIDSwap, ev.OldID+">"+ev.NewID, "message id %s reported renamed to %s in %s: only a pending tmp_ id becomes another", ev.OldID, ev.NewID, r.label(ev.ConversationID))
			}
			if tm, ok := w.msgs[ev.NewID]; ok && tm.conv != ev.ConversationID {
				bad(classWrongConv, ev.NewID, "message %s of %s reported as an id of %s", ev.NewID, r.label(tm.conv), r.label(ev.ConversationID))
			}
		case protocol.Sidebar:
			r.checkSidebar(w, bad, ev)
		}
	}

	// Liveness: a message drawn at the live end of the open conversation is reported within
	// the bound, unless the visit ended (or the run did) before the bound passed.
	var owed []sim.TruthRecord
	for _, a := range w.arrive {
		if a.Shown {
			owed = append(owed, a)
		}
	}
	sort.Slice(owed, func(i, j int) bool { return owed[i].T < owed[j].T })
	bound := float64(liveBound.Milliseconds())
	for _, a := range owed {
		v, ok := w.visitAt(a.Conv, a.T)
		if !ok {
			continue
		}
		end := math.Min(v.leave, w.end)
		at, got := owedSeen[a.ID]
		if got && at >= a.T && at <= a.T+bound {
			continue
		}
		if end-a.T < bound && !(got && at > a.T+bound) {
			continue // the visit ended before the bridge owed it
		}
		if got {
			bad(classMissed, a.ID, "message %s of %s drawn at the live end was reported only %.0f ms later (bound %v)", a.ID, r.label(a.Conv), at-a.T, liveBound)
		} else {
			bad(classMissed, a.ID, "message %s of %s (%q) drawn at the live end was never reported in the %.0f ms the page showed it", a.ID, r.label(a.Conv), w.msgs[a.ID].text, end-a.T)
		}
	}
	// A reaction the page drew on a row of the open conversation is reported (an update, or
	// the row in a settled conversation) within the bound.
	for _, u := range w.updates {
		if !u.Shown {
			continue
		}
		v, ok := w.visitAt(u.Conv, u.T)
		if !ok || math.Min(v.leave, w.end)-u.T < bound {
			continue
		}
		reported := false
		for _, e := range evs {
			if e.T < u.T || e.T > u.T+bound || e.Err != nil {
				continue
			}
			switch ev := e.Env.Event.(type) {
			case protocol.MessageUpdate:
				reported = reported || ev.ConversationID == u.Conv && ev.Message.ID == u.ID
			case protocol.Conversation:
				reported = reported || ev.ConversationID == u.Conv && mentions(e, u.ID)
			}
		}
		if !reported {
			bad(classMissed, "update "+u.ID+fmt.Sprint(u.T), "a reaction to message %s of %s (%q), drawn on its row, was never reported", u.ID, r.label(u.Conv), w.msgs[u.ID].text)
		}
	}
	// Every visit that lasted the bound was settled: the bridge reported the conversation.
	for conv, vs := range w.visits {
		for _, v := range vs {
			end := math.Min(v.leave, w.end)
			if end-v.open < bound*2 {
				continue
			}
			settled := false
			for _, e := range evs {
				if c, ok := e.Env.Event.(protocol.Conversation); ok && c.ConversationID == conv && e.T >= v.open && e.T <= end {
					settled = true
					break
				}
			}
			if !settled {
				bad(classMissed, "settle "+conv+fmt.Sprint(v.open), "the page showed %s for %.0f ms (opened %s) and the bridge never reported it settled", r.label(conv), end-v.open, v.at)
			}
		}
	}
	return out
}

// checkMessage checks one reported message: it belongs to conv, its text is its own, and
// its sender and reactors are named as a person reads them.
func (r *run) checkMessage(w *world, bad func(class, key, format string, args ...any), conv string, m protocol.Message, how string) {
	tm, ok := w.msgs[m.ID]
	if !ok {
		bad(classWrongConv, "unknown "+m.ID, "a %s event for %s carried message id %q, which no conversation has", how, r.label(conv), m.ID)
		return
	}
	if tm.conv != conv {
		bad(classWrongConv, m.ID+" in "+conv, "a %s event for %s carried message %s (%q) of %s", how, r.label(conv), m.ID, tm.text, r.label(tm.conv))
		return
	}
	if m.LabelKind == "full" && m.Text != "" && m.Text != tm.text {
		bad(classWrongContent, m.ID, "message %s of %s reported with the text %q; it says %q", m.ID, r.label(conv), m.Text, tm.text)
	}
	if m.Sender != "" && m.Sender != tm.from {
		bad(className, "sender "+m.Sender, "message %s of %s reported from %q (%s); the person reads %q", m.ID, r.label(conv), m.Sender, codes(m.Sender), tm.from)
	}
	for _, re := range m.Reactions {
		for _, by := range re.By {
			if by == "You" {
				continue
			}
			if !tm.reactors[by] {
				bad(className, "reactor "+by, "a reaction to message %s of %s reported by %q (%s); the reactors are %s", m.ID, r.label(conv), by, codes(by), keys(tm.reactors))
			}
		}
	}
}

// checkHeader checks a settled conversation's header names and participants.
func (r *run) checkHeader(w *world, bad func(class, key, format string, args ...any), c protocol.Conversation) {
	want := w.parts[c.ConversationID]
	if len(c.HeaderNames) == 0 {
		// No header read (it may come late): unknown, not wrong. The participants still count.
		c.HeaderNames = nil
	}
	var plain []string
	for _, n := range c.HeaderNames {
		plain = append(plain, sim.PlainName(n))
	}
	if len(plain) == 0 {
		// nothing to compare
	} else if !sameSet(plain, want) {
		bad(classWrongConv, "header "+c.ConversationID+strings.Join(plain, "|"), "%s was reported with header names %q; its people are %q", r.label(c.ConversationID), c.HeaderNames, want)
	} else if !sameSet(c.HeaderNames, want) {
		bad(className, "header "+strings.Join(c.HeaderNames, "|"), "%s was reported with header names %q (%s); the person reads %q", r.label(c.ConversationID), c.HeaderNames, codes(strings.Join(c.HeaderNames, "|")), want)
	}
	for _, p := range c.Participants {
		if p == "You" || slices.Contains(want, p) {
			continue
		}
		if slices.Contains(want, sim.PlainName(p)) {
			bad(className, "participant "+p, "%s was reported with participant %q (%s); the person reads %q", r.label(c.ConversationID), p, codes(p), sim.PlainName(p))
		} else {
			bad(classWrongConv, "participant "+c.ConversationID+p, "%s was reported with participant %q, who is not in it (its people are %q)", r.label(c.ConversationID), p, want)
		}
	}
}

// checkSidebar checks a sidebar report: real conversations only, named as read, with
// snippets the real list drew, and aboveKnown only for a conversation that just began.
func (r *run) checkSidebar(w *world, bad func(class, key, format string, args ...any), sb protocol.Sidebar) {
	for _, it := range sb.Items {
		name, ok := w.convName[it.ID]
		if !ok {
			bad(classSidebar, "unknown "+it.ID, "the sidebar report listed %q (%s), which is no conversation", it.ID, it.Name)
			continue
		}
		if w.archived[it.ID] {
			bad(classSidebar, "archived "+it.ID, "the sidebar report listed %s (%q), which is only in search results", r.label(it.ID), it.Name)
			continue
		}
		if it.Name != name {
			if sim.PlainName(it.Name) == name {
				bad(className, "sidebar "+it.Name, "the sidebar named %s %q (%s); the person reads %q", r.label(it.ID), it.Name, codes(it.Name), name)
			} else {
				bad(classSidebar, "sidebar name "+it.ID+it.Name, "the sidebar named %s %q; it is %q", r.label(it.ID), it.Name, name)
			}
		}
		if it.Snippet != "" && !w.snippets[it.ID][sim.PlainName(it.Snippet)] {
			bad(classSidebar, "snippet "+it.ID+it.Snippet, "the sidebar reported %s's snippet as %q, which the real list never drew (a search hit?)", r.label(it.ID), it.Snippet)
		}
		if it.AboveKnown && !w.created[it.ID] {
			bad(classSidebar, "above "+it.ID, "the sidebar marked %s as a conversation that just began (aboveKnown); it is an old one", r.label(it.ID))
		}
	}
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}

func keys(m map[string]bool) string {
	var ks []string
	for k := range m {
		ks = append(ks, fmt.Sprintf("%q", k))
	}
	slices.Sort(ks)
	return "[" + strings.Join(ks, " ") + "]"
}

// codes shows the invisible characters of a name.
func codes(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || (r >= 0x7f && r <= 0xa0) || (r >= 0x2000 && r <= 0x206f) || r == 0x061c {
			fmt.Fprintf(&b, "<U+%04X>", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// classes is the sorted set of classes among vs.
func classes(vs []violation) []string {
	var out []string
	for _, v := range vs {
		if !slices.Contains(out, v.Class) {
			out = append(out, v.Class)
		}
	}
	slices.Sort(out)
	return out
}
