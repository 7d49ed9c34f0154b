package engine

import (
	"context"
	"slices"
	"time"
)

// Snapshot is a point-in-time view of the engine for the diagnostics views. It holds ids and
// counts, never message text, so it is safe to show and to paste into a bug report.
type Snapshot struct {
	PageState    PageState
	Configured   bool
	Missing      []string
	WindowHidden bool
	Generation   uint64
	ErrorStreak  int

	Foreground *ForegroundSnapshot
	InFlight   *InFlightSnapshot
	// DeferredFor is the conversation whose reply was deferred last, if any; Deferred lists
	// every conversation with a deferred reply, sorted.
	DeferredFor ConversationID
	Deferred    []ConversationID
	QueuedSends int
	Sending     bool

	SidebarLoaded bool
	VisitQueue    []ConversationID
	Visiting      ConversationID // conversation being processed by inactive-conversation handling
	VisitPhase    string
	ReturnTo      ConversationID
	// VisitPauseLeft is how long visits still wait after a navigation that failed or that the
	// page refused because the user was using the window.
	VisitPauseLeft time.Duration
	// WaitingForDraft says that something Clanker would do waits for the user's draft in the
	// conversation on screen (an answer there, or a visit elsewhere); the pill and the menus
	// say so.
	WaitingForDraft bool
}

// ForegroundSnapshot describes the conversation on screen.
type ForegroundSnapshot struct {
	ID ConversationID
	// Mode is the mode chosen (what the pill shows); Acting is the one Clanker acts in, which
	// stays lower until the people were told (Announced). NoticeOwed says a notice is owed.
	Mode            Mode
	Acting          Mode
	Announced       Mode
	NoticeOwed      bool
	StoredMode      Mode
	Automated       bool
	Messages        int
	SeenIDs         int
	Participants    int
	LastProcessedID string
	// DecidedID is the newest message covered by a decision; OwedID the newest message still
	// owed an answer ("" when none).
	DecidedID      string
	OwedID         string
	Draft          bool
	Switching      bool
	Pending        bool
	PendingFiresIn time.Duration
	AwaitingHuman  bool
	LastMessageAt  time.Time
	LastNewsCheck  time.Time
	OpenedByVisit  bool
}

// InFlightSnapshot describes the running LLM request.
type InFlightSnapshot struct {
	Conversation ConversationID
	Kind         RequestKind
	Generation   uint64
	// FetchingImage is true while the page fetches the image the model asked for.
	FetchingImage bool
}

type snapshotReq struct{ reply chan Snapshot }

func (snapshotReq) validate() error { return nil }

// Snapshot asks the engine goroutine for a diagnostics snapshot. It waits for Run to answer or
// for ctx to end.
func (e *Engine) Snapshot(ctx context.Context) (Snapshot, error) {
	req := snapshotReq{reply: make(chan Snapshot, 1)}
	e.inbox.push(req)
	select {
	case s := <-req.reply:
		return s, nil
	case <-ctx.Done():
		return Snapshot{}, ctx.Err()
	}
}

func (e *Engine) snapshot() Snapshot {
	s := Snapshot{
		PageState:       e.pageState,
		Configured:      e.configured(),
		Missing:         e.missing(),
		WindowHidden:    e.hidden,
		Generation:      e.replies.gen,
		ErrorStreak:     e.errStreak,
		QueuedSends:     len(e.sends.queue),
		Sending:         e.sends.cur != nil,
		SidebarLoaded:   e.sidebar.loaded,
		VisitQueue:      append([]ConversationID(nil), e.visits.queue...),
		WaitingForDraft: e.screen.waitShown,
	}
	var last uint64
	for id, d := range e.replies.deferred {
		s.Deferred = append(s.Deferred, id)
		if d.seq > last {
			last, s.DeferredFor = d.seq, id
		}
	}
	slices.Sort(s.Deferred)
	if left := time.Until(e.visits.pauseUntil); left > 0 {
		s.VisitPauseLeft = left
	}
	if in := e.replies.inflight; in != nil {
		s.InFlight = &InFlightSnapshot{Conversation: in.req.Conversation, Kind: in.req.Kind, Generation: in.gen, FetchingImage: in.fetching}
	}
	if r := e.visits.run; r != nil {
		s.Visiting, s.VisitPhase, s.ReturnTo = r.target, string(r.phase), r.returnTo
	}
	if fg := e.screen.fg; fg != nil {
		f := &ForegroundSnapshot{
			ID:              fg.id,
			Mode:            e.chosen(),
			Acting:          e.mode(),
			Announced:       fg.rec.Announced.normalized(),
			NoticeOwed:      fg.rec.noticeOwed(),
			DecidedID:       fg.rec.Decided.ID,
			StoredMode:      fg.rec.Mode.normalized(),
			Automated:       fg.automated,
			Messages:        len(fg.msgs),
			SeenIDs:         len(fg.seen),
			Participants:    len(e.participants()),
			LastProcessedID: fg.rec.LastProcessed.ID,
			Draft:           e.screen.draft,
			Switching:       e.screen.switching,
			AwaitingHuman:   fg.quiet,
			LastMessageAt:   fg.rec.LastMessageAt,
			LastNewsCheck:   fg.rec.LastNewsCheck,
			OpenedByVisit:   fg.byVisit,
		}
		if e.mode().participating() {
			if m := e.owedTrigger(); m != nil {
				f.OwedID = m.ID
			}
		}
		if p := e.replies.pending; p != nil {
			f.Pending = true
			f.PendingFiresIn = max(0, time.Until(p.fireAt))
		}
		s.Foreground = f
	}
	return s
}
