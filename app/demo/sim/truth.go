package sim

import (
	"hash/fnv"
	"net/http"
	"slices"
	"strings"
)

// Ground truth. The simulator stores names plain and every message in the conversation it
// belongs to; what the page draws may differ (VariantBidiNames decorates names, the
// behaviour variants reuse elements and keep stale panes). The page reports, with
// Options.Truth, when it opened which conversation and how, which messages reached it while
// it showed their conversation at its live end, and which snippets its real sidebar drew:
// the property test checks the bridge's events against these.

// Truth record kinds (TruthRecord.Kind).
const (
	// TruthOpen: the page began a visit to Conv (At "live", or "hit" for a view opened away
	// from the live end, as a search hit opens it). Every later row of Conv's until the next
	// visit is in this visit; anything stored before it is history to this visit.
	TruthOpen = "open"
	// TruthLive: the view of Conv reached its live end (its newest row is rendered).
	TruthLive = "live"
	// TruthLeave: the visit to Conv ended (another conversation or the landing page opened).
	TruthLeave = "leave"
	// TruthArrive: message ID of Conv reached the page. Shown is true when the page drew it
	// at once at the live end of the conversation it showed: a message the bridge owes Go.
	TruthArrive = "arrive"
	// TruthUpdate: a reaction to message ID of Conv reached the page; Shown is true when its
	// row was on the page of the open conversation and changed there.
	TruthUpdate = "update"
	// TruthSnippet: the real sidebar drew Snippet as Conv's snippet.
	TruthSnippet = "snippet"
	// TruthBehave: the page carried out a behaviour (Detail says which and how).
	TruthBehave = "behave"
)

// TruthRecord is one thing the page reported. T is the page's clock in milliseconds
// (performance.timeOrigin + performance.now()), the same clock a test host can stamp the
// bridge's events with.
type TruthRecord struct {
	T       float64 `json:"t"`
	Kind    string  `json:"kind"`
	Conv    string  `json:"conv,omitempty"`
	ID      string  `json:"id,omitempty"`
	Shown   bool    `json:"shown,omitempty"`
	At      string  `json:"at,omitempty"`
	Snippet string  `json:"snippet,omitempty"`
	Detail  string  `json:"detail,omitempty"`
	// N is the page's own count of records so far (1-based), so a reader can tell whether it
	// has them all (Server.TruthComplete).
	N int `json:"n"`
}

// maxTruth bounds the records kept; a longer run keeps its first ones and counts the rest.
const maxTruth = 200000

// Truth returns the page's ground-truth records received so far, in the page's order.
func (s *Server) Truth() []TruthRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.truth)
}

// TruthComplete reports whether the records up to the page's count n have all arrived (n is
// what the page shows in body[data-sim-truth]).
func (s *Server) TruthComplete(n int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.truth)+s.truthDropped >= n
}

func (s *Server) pageTruth(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Records []TruthRecord `json:"records"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rec := range req.Records {
		if len(s.truth) >= maxTruth {
			s.truthDropped++
			continue
		}
		s.truth = append(s.truth, rec)
	}
	w.WriteHeader(http.StatusNoContent)
}

// PlainName is a name as a person reads it: bidi controls and direction marks taken out,
// no-break and other spaces made plain, runs of space collapsed. Zero-width joiners and
// variation selectors stay: they are part of emoji sequences. The simulator's stored names
// are already plain; tests compare what the bridge read with PlainName of the truth.
func PlainName(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case isBidiControl(r):
			continue
		case r == '\u00a0' || r == '\u202f' || r == '\u2007' || r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\u2009' || r == '\u200a':
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

func isBidiControl(r rune) bool {
	switch {
	case r == '\u200e' || r == '\u200f' || r == '\u061c':
		return true
	case r >= '\u202a' && r <= '\u202e':
		return true
	case r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// decorate draws a name the way a page with bidi-aware templates may: in an isolate, with a
// direction mark before or after, with no-break spaces, or a mix; the form depends on the
// name and the place it is drawn (label, sender, header, sidebar, snippet), so one person's
// name looks different in different places, as it may on a real page.
func decorate(place, name string) string {
	if name == "" || name == "You" {
		return name
	}
	h := fnv.New32a()
	h.Write([]byte(place))
	h.Write([]byte{0})
	h.Write([]byte(name))
	switch h.Sum32() % 6 {
	case 0:
		return "\u2068" + name + "\u2069" // first-strong isolate
	case 1:
		return name + "\u200e" // left-to-right mark after
	case 2:
		return strings.ReplaceAll(name, " ", "\u00a0") // no-break spaces
	case 3:
		return "\u2066" + strings.ReplaceAll(name, " ", "\u00a0") + "\u2069\u200e" // isolate, no-break spaces and a mark
	case 4:
		return "\u200f" + name + "\u200f" // right-to-left marks around
	default:
		return "\u2067" + name + "\u2069" // right-to-left isolate
	}
}

// drawName is a name as the page draws it at place: decorated with VariantBidiNames.
func (s *Server) drawName(place, name string) string {
	if !s.hasVariant(VariantBidiNames) {
		return name
	}
	return decorate(place, name)
}

// drawnLocked is a copy of m whose sender and reactors are drawn as the page draws them at
// place, for computing its labels.
func (s *Server) drawnLocked(m *Message, place string) Message {
	d := *m
	if !s.hasVariant(VariantBidiNames) {
		return d
	}
	if !d.Outgoing {
		d.From = decorate(place, d.From)
	}
	d.Reactions = make([]Reaction, len(m.Reactions))
	for i, r := range m.Reactions {
		r.From = decorate(place+"-reactor", r.From)
		d.Reactions[i] = r
	}
	return d
}

// pageSidebarLocked is the sidebar as the page draws it: names, participants (the header)
// and snippets' sender names drawn with VariantBidiNames.
func (s *Server) pageSidebarLocked() []Conversation {
	out := s.sidebarLocked()
	if !s.hasVariant(VariantBidiNames) {
		return out
	}
	for i := range out {
		c := &out[i]
		parts := make([]string, len(c.Participants))
		for j, p := range c.Participants {
			parts[j] = decorate("header", p)
		}
		c.Participants = parts
		c.Name = decorate("sidebar", c.Name)
		if ms := s.msgs[c.ID]; len(ms) > 0 {
			last := s.drawnLocked(ms[len(ms)-1], "snippet")
			c.Snippet = last.Snippet(len(parts) > 1)
		}
	}
	return out
}
