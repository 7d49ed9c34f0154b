package sim

import (
	"errors"
	"fmt"
	"slices"
)

// ErrNoPage is returned by the actions a connected page carries out (UserTypesDraft,
// ClickConversation, LoadOlder) when no page is listening.
var ErrNoPage = errors.New("no page is connected to carry it out")

// UnknownConversationError says a conversation id is not in the simulator.
type UnknownConversationError struct{ ID string }

func (e UnknownConversationError) Error() string { return fmt.Sprintf("no conversation %q", e.ID) }

// CreateConversation adds a conversation to the sidebar and returns it with its new id.
func (s *Server) CreateConversation(nc NewConversation) (Conversation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.createLocked(nc)
	if err != nil {
		return Conversation{}, fmt.Errorf("create conversation: %w", err)
	}
	s.publishLocked(event{Type: "sidebar", Sidebar: s.pageSidebarLocked()})
	return *c, nil
}

// Conversations lists the conversations in sidebar order, with snippets; archived ones
// (not in the sidebar) come last.
func (s *Server) Conversations() []Conversation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listLocked(true)
}

// Messages returns every stored message of a conversation, oldest first (not only the
// rows the page keeps in the DOM).
func (s *Server) Messages(conv string) ([]Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conv(conv) == nil {
		return nil, UnknownConversationError{conv}
	}
	out := []Message{}
	for _, m := range s.msgs[conv] {
		c := *m
		c.Shape = shapeOf(s.opts.Seed, c.ID)
		out = append(out, c)
	}
	return out, nil
}

// Deliver adds a remote participant's message (text, image, attachment, tombstone, reply)
// to a conversation, or applies m.Reaction to an existing message, shows it on the
// connected pages and returns the stored message.
func (s *Server) Deliver(conv string, m Message) (Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	stored, err := s.addLocked(conv, m, false)
	if err != nil {
		return Message{}, fmt.Errorf("deliver: %w", err)
	}
	v := s.viewLocked(stored)
	typ := "message"
	if m.Reaction != nil {
		typ = "update"
	}
	s.publishLocked(event{Type: typ, Conversation: conv, Row: &v, Sidebar: s.pageSidebarLocked()})
	out := *stored
	out.Shape = v.Shape
	return out, nil
}

// UserTypesDraft makes the page put text in the compose box as if the user had typed it.
// It returns once the page has been told, not when the draft is shown.
func (s *Server) UserTypesDraft(text string) error {
	return s.pageCommand(event{Type: "draft", Text: text})
}

// ClickConversation makes the page click that conversation's sidebar link, as the user
// would.
func (s *Server) ClickConversation(conv string) error {
	s.mu.Lock()
	ok := s.conv(conv) != nil
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("click: %w", UnknownConversationError{conv})
	}
	return s.pageCommand(event{Type: "click", Conversation: conv})
}

// LoadOlder makes the page insert up to n (1..1000) older rows at the top of the open
// conversation.
func (s *Server) LoadOlder(n int) error {
	if n <= 0 || n > 1000 {
		return fmt.Errorf("load older: count %d must be 1..1000", n)
	}
	return s.pageCommand(event{Type: "loadOlder", Count: n})
}

// pageCommand forwards a command the page itself carries out.
func (s *Server) pageCommand(e event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hub.count() == 0 {
		return fmt.Errorf("%s: %w", e.Type, ErrNoPage)
	}
	s.publishLocked(e)
	return nil
}

// SwapPendingIDs gives every pending tmp_ message its permanent id now, shown the given
// way.
func (s *Server) SwapPendingIDs(mode SwapMode) ([]Swap, error) {
	if mode != SwapInPlace && mode != SwapReplace {
		return nil, fmt.Errorf("swap pending: unknown mode %q (want %q or %q)", mode, SwapInPlace, SwapReplace)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	swaps := []Swap{}
	for _, c := range s.convs {
		for _, m := range s.msgs[c.ID] {
			if m.Pending {
				swaps = append(swaps, s.swapLocked(m, mode))
			}
		}
	}
	return swaps, nil
}

// Sent is the log of sends the page accepted (trusted input), oldest first.
func (s *Server) Sent() []Send {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Send{}, s.sent...)
}

// Rejected is the log of untrusted send attempts the page ignored, oldest first.
func (s *Server) Rejected() []Send {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Send{}, s.rejected...)
}

// Reset restores the start state (clock, ids, demo content, logs, variants, sign-in) and
// makes the pages render it again.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resetLocked()
	s.publishLocked(event{Type: "reload"})
	s.log.Info("simulator reset")
}

// SetVariant replaces the active page variants (none = the normal page) and makes the
// pages render again.
func (s *Server) SetVariant(vs ...Variant) error {
	for _, v := range vs {
		if !knownVariants[v] {
			return fmt.Errorf("set variant: unknown variant %q", v)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.variants = slices.Clone(vs)
	s.signedIn = !s.hasVariant(VariantSignedOut)
	s.signInOrigin = ""
	s.publishLocked(event{Type: "reload"})
	return nil
}

// SetLinger sets how long VariantLinger keeps an old pane (1..60000 ms) and makes the pages
// render again. With SetVariant(VariantLinger) a full-app test selects the lingering panes of
// issue 33 on a running simulator.
func (s *Server) SetLinger(ms int) error {
	if ms < 1 || ms > 60000 {
		return fmt.Errorf("set linger: %d ms is not 1..60000", ms)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.LingerMS = ms
	s.publishLocked(event{Type: "reload"})
	return nil
}

// HoldPages keeps pages that load from now on from drawing the app: their request for the
// state waits until ReleasePages, so the document stays blank. It stands for a machine so slow
// that the app appears later than any fixed threshold, for as long as a test needs, without a
// timer that a loaded machine could outrun or fall behind.
func (s *Server) HoldPages() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held == nil {
		s.held = make(chan struct{})
	}
	s.log.Info("pages held: the app is not drawn until released")
}

// ReleasePages lets held pages (and pages loaded later) draw the app.
func (s *Server) ReleasePages() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.releaseLocked()
	s.log.Info("pages released")
}

func (s *Server) releaseLocked() {
	if s.held != nil {
		close(s.held)
		s.held = nil
	}
}

// Status reports sign-in, variants, the open conversation, connected pages and pending
// ids.
func (s *Server) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{SignedIn: s.signedIn, Variants: s.variantsOrEmpty(), OpenConversation: s.openConv,
		SignInOrigin: s.signInOrigin, Pages: s.hub.count(), Pending: []string{},
		NotificationPermission: s.notePermission, NotificationsTried: s.notesTried}
	for _, c := range s.convs {
		for _, m := range s.msgs[c.ID] {
			if m.Pending {
				st.Pending = append(st.Pending, m.ID)
			}
		}
	}
	return st
}
