package engine

import (
	"slices"
	"strings"
	"time"
)

// sidebar is the conversation list as the engine last saw it: each row's snippet, the
// baseline a changed snippet is compared with to find news in a conversation that is not on
// screen (which queues a visit).
type sidebar struct {
	loaded   bool
	snippets map[ConversationID]string
	// names is each conversation's name as its row shows it, as a person reads it: a source
	// independent of the conversation pane, which the engine checks a pane's view against.
	names map[ConversationID]string
}

func (e *Engine) onSidebar(ev SidebarUpdate) {
	now := time.Now()
	var touch []ConversationID
	for _, r := range ev.Rows {
		if now.Sub(e.lastTouch[r.ID]) >= seenWriteInterval {
			e.lastTouch[r.ID] = now
			touch = append(touch, r.ID)
		}
	}
	if len(touch) > 0 {
		if err := e.store.MarkSeen(touch, now); err != nil {
			e.log.Error("engine: mark conversations seen", "err", err)
		}
	}
	for _, r := range ev.Rows {
		e.learnName(r.ID, CleanName(r.Name))
	}
	if !e.sidebar.loaded {
		for _, r := range ev.Rows {
			e.sidebar.snippets[r.ID] = r.Snippet
		}
		e.sidebar.loaded = len(ev.Rows) > 0
		return
	}
	for _, r := range ev.Rows {
		old, had := e.sidebar.snippets[r.ID]
		e.sidebar.snippets[r.ID] = r.Snippet
		if !had || old == r.Snippet {
			continue // a row that scrolled into view is a baseline, not news
		}
		if e.screen.holds(r.ID) {
			continue // the foreground handles its own messages; its baseline stays fresh
		}
		if run := e.visits.run; run != nil && r.ID == run.target {
			continue
		}
		if e.settings.InactiveMode == InactiveIgnore || !e.configured() {
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(r.Snippet), "You:") || IsAutomatedName(r.Name) {
			continue
		}
		rec, ok, err := e.store.LoadConversation(r.ID)
		if err != nil {
			e.log.Error("engine: load conversation for sidebar", "conversation", r.ID, "err", err)
			continue
		}
		if !ok {
			continue
		}
		mode := rec.Mode.normalized()
		if mode == ModeActive || (mode == ModeAvailable && mentionsClanker(r.Snippet)) {
			delete(e.visits.later, r.ID) // news there: no reason to wait any more
			if !slices.Contains(e.visits.queue, r.ID) {
				e.visits.queue = append(e.visits.queue, r.ID)
				e.log.Info("engine: inactive conversation queued", "conversation", r.ID)
			}
		}
	}
}

// listedName is conv's name as its row in the conversation list shows it, cleaned and clipped
// for a notice or a toast; empty when the list has not shown it.
func (e *Engine) listedName(conv ConversationID) string {
	return Clip(CleanName(e.sidebar.names[conv]), noticeNameRunes)
}
