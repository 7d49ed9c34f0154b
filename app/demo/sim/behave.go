package sim

import (
	"fmt"
	"net/http"
	"strings"
)

// BehaviourKind names a one-shot page behaviour (Server.Behave).
type BehaviourKind string

const (
	// BehaveScrollBack brings N older rows into view at the top: loading more, or with
	// VariantRecycle sliding the rendered range up (the newest rows leave at the bottom).
	BehaveScrollBack BehaviourKind = "scroll-back"
	// BehaveScrollDown brings N newer rows into view at the bottom of a view that is not at
	// its live end (opened at a search hit, or scrolled back with VariantRecycle).
	BehaveScrollDown BehaviourKind = "scroll-down"
	// BehaveJumpLive draws the open conversation at its live end again (the "jump to the
	// newest message" button).
	BehaveJumpLive BehaviourKind = "jump-live"
	// BehaveRerenderList draws the message list again with N more older rows on top: new
	// elements for every row (with VariantIndexKeyed, the old elements rewritten in place and
	// new ones added at the bottom).
	BehaveRerenderList BehaviourKind = "rerender-list"
	// BehaveRerenderPane draws the whole conversation pane again; the old pane stays, hidden
	// with aria-hidden and display:none, for MS milliseconds (0: removed at once).
	BehaveRerenderPane BehaviourKind = "rerender-pane"
	// BehaveReinsert takes the message list out of the document and puts the same element
	// back MS milliseconds later.
	BehaveReinsert BehaviourKind = "reinsert"
	// BehaveMoveRow takes the row N places from the bottom out and puts it back where it was
	// (a list moving a view).
	BehaveMoveRow BehaviourKind = "move-row"
	// BehaveOpenAt opens Conversation N rows above its live end, as a search hit opens it.
	BehaveOpenAt BehaviourKind = "open-at"
	// BehaveTyping shows a typing indicator row for MS milliseconds (with VariantNoise any
	// page draws it; it carries no message).
	BehaveTyping BehaviourKind = "typing"
	// BehaveSearch draws search results for Query with the sidebar's row markup (archived
	// conversations too, each with the text of its hit as snippet) and hides the
	// conversation list; an empty Query closes the results and shows the list again.
	BehaveSearch BehaviourKind = "search"
	// BehaveSwitchLate switches to Conversation the way a router that reuses the pane does:
	// the open pane's header is rewritten for it at once, its rows when they come, and the
	// address changes only MS milliseconds after they are drawn (VariantReusePane does this
	// on some switches, mostly within 150 ms).
	BehaveSwitchLate BehaviourKind = "switch-address-late"
)

var knownBehaviours = map[BehaviourKind]bool{
	BehaveScrollBack: true, BehaveScrollDown: true, BehaveJumpLive: true, BehaveRerenderList: true,
	BehaveRerenderPane: true, BehaveReinsert: true, BehaveMoveRow: true, BehaveOpenAt: true,
	BehaveTyping: true, BehaveSearch: true, BehaveSwitchLate: true,
}

// Behaviour is one thing the page does by itself, as a virtual-scrolling chat page may.
// Seed drives the page's own choices within it (which reused elements show their old
// message for a moment, delays).
type Behaviour struct {
	Kind         BehaviourKind `json:"kind"`
	N            int           `json:"n,omitempty"`
	MS           int           `json:"ms,omitempty"`
	Conversation string        `json:"conversation,omitempty"`
	Query        string        `json:"query,omitempty"`
	Seed         uint32        `json:"seed,omitempty"`
}

func (b Behaviour) String() string {
	var parts []string
	parts = append(parts, string(b.Kind))
	if b.N != 0 {
		parts = append(parts, fmt.Sprintf("n=%d", b.N))
	}
	if b.MS != 0 {
		parts = append(parts, fmt.Sprintf("ms=%d", b.MS))
	}
	if b.Conversation != "" {
		parts = append(parts, "conversation="+b.Conversation)
	}
	if b.Query != "" || b.Kind == BehaveSearch {
		parts = append(parts, fmt.Sprintf("query=%q", b.Query))
	}
	return strings.Join(parts, " ")
}

// Behave makes the connected page carry out one behaviour. It returns once the page has
// been told; the page reports what it did in the truth log (Options.Truth).
func (s *Server) Behave(b Behaviour) error {
	if !knownBehaviours[b.Kind] {
		return fmt.Errorf("behave: unknown behaviour %q", b.Kind)
	}
	if b.N < 0 || b.N > 1000 || b.MS < 0 || b.MS > 60000 {
		return fmt.Errorf("behave %s: n must be 0..1000 and ms 0..60000 (got %d, %d)", b.Kind, b.N, b.MS)
	}
	if len(b.Query) > 200 {
		return fmt.Errorf("behave %s: query of %d bytes; the limit is 200", b.Kind, len(b.Query))
	}
	if b.Kind == BehaveOpenAt || b.Kind == BehaveSwitchLate {
		s.mu.Lock()
		ok := s.conv(b.Conversation) != nil
		s.mu.Unlock()
		if !ok {
			return fmt.Errorf("behave %s: %w", b.Kind, UnknownConversationError{b.Conversation})
		}
	}
	return s.pageCommand(event{Type: "behave", Behaviour: &b})
}

// searchHit is one search result as the page draws it.
type searchHit struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	Snippet      string   `json:"snippet"`
	Participants []string `json:"participants"`
}

// pageSearch answers the page's search: every conversation (archived ones too) with a
// message containing the query, newest hit first per conversation, its text as snippet.
func (s *Server) pageSearch(w http.ResponseWriter, r *http.Request) {
	q := strings.ToLower(strings.TrimSpace(r.URL.Query().Get("q")))
	s.mu.Lock()
	defer s.mu.Unlock()
	hits := []searchHit{}
	for _, c := range s.listLocked(true) {
		ms := s.msgs[c.ID]
		for i := len(ms) - 1; i >= 0; i-- {
			m := ms[i]
			if q == "" || m.Tombstone || !strings.Contains(strings.ToLower(m.Text), q) {
				continue
			}
			dm := s.drawnLocked(m, "snippet")
			hits = append(hits, searchHit{ID: c.ID, Name: s.drawName("sidebar", c.Name), Snippet: dm.Snippet(len(c.Participants) > 1),
				Participants: c.Participants})
			break
		}
	}
	writeJSON(w, map[string]any{"hits": hits})
}
