package page

import (
	"crypto/subtle"
	"fmt"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// This file is the Link's inbound half: events from the page, checked for the nonce,
// decoded, translated (translate.go), recorded in the view and passed to the engine.

// HandleRaw takes one event as the shell received it: the nonce, then the envelope's
// JSON text. Anything else is dropped with a log line; nothing from the page is trusted.
func (l *Link) HandleRaw(raw []byte) {
	n := len(l.nonce)
	if len(raw) < n || subtle.ConstantTimeCompare(raw[:n], l.nonce) != 1 {
		l.log.Warn("page event dropped: it does not carry this run's nonce (a popup or a foreign script?)", "bytes", len(raw))
		return
	}
	env, err := DecodeEvent(raw[n:])
	if err != nil {
		l.log.Warn("page event refused", "err", err)
		return
	}
	l.deliver(env)
}

// reorderWait is how long an event that arrived ahead of its turn waits for the ones before it.
// The shell may hand events over on several goroutines, so two events posted a moment apart
// can arrive swapped; the bridge numbers them, and the Link puts them back in order.
const reorderWait = 250 * time.Millisecond

// maxEarly bounds the events held while waiting for a gap to fill.
const maxEarly = 256

// deliver handles events in the bridge's order. Within one document the bridge numbers its
// events upwards from its hello. An event that arrives early waits (up to reorderWait) for the
// ones before it; when the gap does not fill, the waiting events are handled and the missing
// ones count as lost. An event whose number is at or below the last one handled (a replay, or
// one that arrived after its gap was given up) is dropped: acting on it could bring back a
// state the page has already left. The first such drop after a hello is logged; further ones
// are only counted, so a broken page cannot flood the log. Events are handled one at a time.
func (l *Link) deliver(env Envelope) {
	l.seqMu.Lock()
	defer l.seqMu.Unlock()
	if _, hello := env.Event.(Hello); hello {
		l.lastSeq, l.seqDropped = env.Seq, 0
		clear(l.early)
		l.stopGapTimer()
		l.handle(env)
		return
	}
	switch {
	case env.Seq <= l.lastSeq:
		l.seqDropped++
		if l.seqDropped == 1 {
			l.log.Warn("page event dropped: its sequence number goes backwards without a new hello", "type", env.Type, "seq", env.Seq, "last", l.lastSeq)
		}
		return
	case env.Seq == l.lastSeq+1:
		l.lastSeq = env.Seq
		l.handle(env)
		l.drainEarly()
	default:
		if l.early == nil {
			l.early = map[int64]Envelope{}
		}
		l.early[env.Seq] = env
		if len(l.early) > maxEarly {
			l.skipGap()
			return
		}
		if l.gapTimer == nil {
			l.gapTimer = time.AfterFunc(reorderWait, func() {
				l.seqMu.Lock()
				defer l.seqMu.Unlock()
				l.gapTimer = nil
				l.skipGap()
			})
		}
	}
}

// drainEarly handles held events that are now next in line; call with seqMu held.
func (l *Link) drainEarly() {
	for {
		env, ok := l.early[l.lastSeq+1]
		if !ok {
			break
		}
		delete(l.early, env.Seq)
		l.lastSeq = env.Seq
		l.handle(env)
	}
	if len(l.early) == 0 {
		l.stopGapTimer()
	}
}

// skipGap gives up on the missing events and handles the held ones in order; call with seqMu
// held.
func (l *Link) skipGap() {
	if len(l.early) == 0 {
		return
	}
	next := int64(-1)
	for s := range l.early {
		if next < 0 || s < next {
			next = s
		}
	}
	l.log.Warn("page events missing; going on without them", "missing", next-l.lastSeq-1, "after", l.lastSeq)
	l.lastSeq = next - 1
	l.drainEarly()
}

func (l *Link) stopGapTimer() {
	if l.gapTimer != nil {
		l.gapTimer.Stop()
		l.gapTimer = nil
	}
}

// DroppedOutOfOrder counts the events dropped since the last hello because their sequence
// number went backwards (diagnostics).
func (l *Link) DroppedOutOfOrder() int {
	l.seqMu.Lock()
	defer l.seqMu.Unlock()
	return l.seqDropped
}

func (l *Link) toEngine(ev engine.Event) {
	if err := l.cfg.Events(ev); err != nil {
		l.log.Warn("engine refused a page event", "type", fmt.Sprintf("%T", ev), "err", err)
	}
}

func (l *Link) handle(env Envelope) {
	switch ev := env.Event.(type) {
	case Hello:
		l.onHello(ev)
	case PageState:
		l.onPageState(ev)
	case Conversation:
		if prev := l.view.setCurrent(ev.ConversationID); prev != ev.ConversationID {
			l.changed()
		}
		l.toEngine(conversationOpened(ev))
		l.fireStatus()
	case NewMessage:
		if in, ok := incomingMessage(ev); ok {
			l.incoming(in)
		}
		l.toEngine(engine.MessageAdded{Conversation: engine.ConversationID(ev.ConversationID), Message: toEngineMessage(ev.Message)})
	case History:
		l.toEngine(engine.HistoryLoaded{Conversation: engine.ConversationID(ev.ConversationID), Messages: toEngineMessages(ev.Messages)})
	case MessageID:
		l.toEngine(engine.MessageIDChanged{Conversation: engine.ConversationID(ev.ConversationID), OldID: ev.OldID, NewID: ev.NewID})
	case MessageUpdate:
		// A late label, an image's src, a reaction: the engine completes what it knows of
		// the message. An update never triggers by itself.
		l.toEngine(engine.MessageUpdated{Conversation: engine.ConversationID(ev.ConversationID), Message: toEngineMessage(ev.Message)})
	case Compose:
		if cs, ok := composeState(ev, l.Current()); ok {
			l.toEngine(cs)
		}
	case Sidebar:
		rows, news, prints := l.view.applySidebar(ev)
		for _, in := range news {
			l.incoming(in)
		}
		if l.cfg.OnList != nil {
			l.cfg.OnList(prints)
		}
		l.toEngine(engine.SidebarUpdate{Rows: rows})
		l.changed()
	case SelfTest:
		// A failing selector that decides who said what or which rows are new pauses
		// Clanker (the engine's PageDrift: a banner, no requests, no typing, no visits) until
		// a self-test passes it again; any other failing selector is logged only, and the
		// bridge keeps working with the ones that still match.
		if failed := failedSelectors(ev); failed > 0 {
			l.log.Warn("bridge self-test: some selectors do not match; Google may have changed the page", "failed", failed,
				"selectors", failingSelectors(ev), "state", ev.State, "checked", ev.Checked)
		}
		if drift, ok := pageDrift(ev); ok {
			l.toEngine(drift)
		}
	case Result:
		l.onResult(ev)
	case ImageChunk:
		if known, err := l.conn.addChunk(ev); !known {
			l.log.Debug("image chunk for a command this link did not issue; ignored")
		} else if err != nil {
			l.log.Warn("image chunk refused", "err", err)
		}
	case ModeMenu:
		l.onModeMenu(ev)
	case OverlayCancel:
		vc := engine.VisitCancelled{Reason: "the user " + map[string]string{"cancel": "pressed Cancel", "key": "pressed a key in the compose box"}[ev.Reason]}
		if ev.Reason == "key" {
			vc.KeyIn = engine.ConversationID(ev.ConversationID)
		}
		l.toEngine(vc)
	case HintDismissed:
		l.log.Info("the user dismissed the hint beside the status pill")
		l.hintDone()
	case BannerDismissed:
		// The page already hid it; remember that, so a reload or another banner changing
		// does not bring it back while its cause has not happened again.
		l.log.Info("the user dismissed the banner", "banners", l.view.dismiss())
	}
}

// onHello handles a (re)injection: commands sent to the old document will never be
// answered, and the banner and pill it showed are gone with it.
func (l *Link) onHello(ev Hello) {
	for _, p := range l.conn.dropSent() {
		l.answer(p.engineID, "page_reloaded", nil)
	}
	l.log.Info("bridge connected", "bridge", ev.Bridge, "transport", ev.Transport, "ready_state", ev.ReadyState)
	l.fire(l.view.bannerCommand())
	l.fireStatus()
}

func (l *Link) onPageState(ev PageState) {
	prevState, prevConv := l.view.setPage(ev.State, ev.ConversationID)
	if prevState != ev.State {
		// The engine decides what the page's state calls for, its banner included.
		l.toEngine(engine.PageStateChanged{State: enginePageState(ev.State)})
	}
	if prevConv != ev.ConversationID {
		l.toEngine(engine.ConversationChanging{To: engine.ConversationID(ev.ConversationID)})
		l.changed()
	}
}

func (l *Link) onResult(r Result) {
	s, ok := l.conn.settle(r)
	if !ok {
		l.log.Debug("result for a command this link did not issue; ignored", "command", r.Command)
		return
	}
	if s.waited {
		return
	}
	if !r.OK && r.Code != "" && s.kind != "" {
		l.log.Info("page refused a command", "kind", s.kind, "code", r.Code)
	}
	switch {
	case s.image != nil:
		data, _, err := s.image.Finish(r)
		if err != nil {
			l.answer(s.engineID, err.Error(), nil)
			return
		}
		l.answer(s.engineID, "", data)
	case r.OK && s.kind == engine.CmdRemoveText:
		// How the text came out ({"removed": n, "how": "whole|by_position|restored|nothing"},
		// see PROTOCOL.md) is the engine's to tell the user.
		l.answer(s.engineID, "", r.Data)
	case r.OK:
		l.answer(s.engineID, "", nil)
	default:
		l.answer(s.engineID, nonEmpty(r.Code, "failed"), nil)
	}
}

func (l *Link) onModeMenu(m ModeMenu) {
	if m.Choice == "settings" {
		if l.cfg.OnSettings != nil {
			go l.cfg.OnSettings()
		}
		return
	}
	sm, ok := modeChoice(m, l.Current())
	if !ok {
		l.log.Warn("mode menu choice for a conversation that is not on screen; ignored")
		return
	}
	// Choosing a mode in the pill's menu is what the hint asks for: it has served.
	l.hintDone()
	l.toEngine(sm)
}
