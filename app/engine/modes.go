package engine

import (
	"slices"
	"strconv"
	"strings"
)

// This file holds what the user decides for conversations, and what acts on every pipeline at
// once: the mode of a conversation (switching it, announcing it, deactivating everything),
// saved settings, and purging stored data.

// mode is the conversation's effective mode.
func (e *Engine) mode() Mode {
	if !e.configured() {
		return ModeUninitialized
	}
	if e.screen.fg == nil || e.screen.fg.automated {
		return ModeDeactivated
	}
	return e.screen.fg.rec.Mode.normalized()
}

func (e *Engine) status() {
	e.do(Command{Kind: CmdStatus, Text: string(e.mode())}, nil)
}

func (e *Engine) showConfigBanner() {
	e.banner(BannerConfig, "Clanker is not configured: missing "+strings.Join(e.missing(), ", ")+". Open Settings to finish setting it up.")
}

// configured reports whether the settings and the stored key are enough to talk to a model.
func (e *Engine) configured() bool { return e.settings.Configured(e.hasKey) }

// missing names what keeps the engine Uninitialized, in the banner's words.
func (e *Engine) missing() []string { return e.settings.MissingLabels(e.hasKey) }

func (e *Engine) onSettings(ev SettingsChanged) {
	was := e.configured()
	oldPolicy := e.settings.InactiveMode
	e.settings, e.hasKey = ev.Settings, ev.HasAPIKey
	s := e.settings
	switch {
	case !e.configured():
		e.showConfigBanner()
		e.cancelPending()
		e.dropReplies("")
	case !was:
		e.banner(BannerConfig, "")
	}
	// Whatever made requests fail (the key, the endpoint, the budget) may be fixed now; the
	// next request checks again and brings the banner back if not.
	e.clearCauseBanners("settings saved")
	if s.InactiveMode != oldPolicy && s.InactiveMode == InactiveIgnore {
		e.visits.queue = nil
	}
	e.status()
}

func (e *Engine) onSetMode(ev SetMode) {
	conv := ev.Conversation
	if conv == "" && e.screen.fg != nil {
		conv = e.screen.fg.id
	}
	if conv == "" {
		e.toast("error", "Open a conversation first, then choose Clanker's mode for it.")
		return
	}
	if !e.configured() {
		e.toast("error", "Clanker is not configured yet: missing "+strings.Join(e.missing(), ", ")+". Open Settings first.")
		return
	}
	if !e.screen.settledOn(conv) {
		// Not on screen: store the choice; there is nowhere to announce it.
		rec, ok, err := e.store.LoadConversation(conv)
		if err != nil {
			e.toast("error", "Could not change the mode: "+err.Error())
			return
		}
		if !ok {
			rec = Conversation{ID: conv}
		}
		rec.Mode = ev.Mode
		if !e.save(rec) {
			e.toast("error", "Could not save the mode; nothing was changed.")
			return
		}
		if ev.Mode.participating() {
			e.clearCauseBanners("mode switched on again")
		}
		return
	}
	if e.screen.fg.automated {
		e.toast("info", "Clanker never takes part in automated conversations.")
		return
	}
	old := e.screen.fg.rec.Mode.normalized()
	if old == ev.Mode {
		return
	}
	rec := e.screen.fg.rec
	rec.Mode = ev.Mode
	if !e.save(rec) {
		e.toast("error", "Could not save the mode; nothing was changed.")
		return
	}
	e.log.Info("engine: mode changed", "conversation", conv, "from", old, "to", ev.Mode, "source", ev.Source)
	if ev.Mode.participating() {
		// The user switched Clanker back on: the warning that it was switched off is done.
		e.clearCauseBanners("mode switched on again")
	}
	e.screen.fg.rec = rec
	e.cancelPending()
	e.dropReplies(conv)
	e.dropAnnouncements(conv)
	e.status()
	switch ev.Mode {
	case ModeAvailable:
		e.enqueue(&sendJob{conv: conv, text: AvailableText, announce: ModeAvailable})
	case ModeDeactivated:
		e.enqueue(&sendJob{conv: conv, text: DeactivatedText, farewell: true, announce: ModeDeactivated})
	case ModeActive:
		if e.replies.inflight != nil {
			e.enqueue(&sendJob{conv: conv, text: ActiveFallbackText, announce: ModeActive})
			return
		}
		e.replies.gen++
		e.startRequest(RequestActivation, e.replies.gen)
	}
}

// deactivate switches a conversation off without announcing it (auth and quota failures).
func (e *Engine) deactivate(conv ConversationID) {
	if e.screen.holds(conv) {
		e.screen.fg.rec.Mode = ModeDeactivated
		e.save(e.screen.fg.rec)
		e.cancelPending()
		e.dropReplies(conv)
		e.status()
		return
	}
	rec, ok, err := e.store.LoadConversation(conv)
	if err != nil || !ok {
		rec = Conversation{ID: conv}
	}
	rec.Mode = ModeDeactivated
	e.save(rec)
}

func (e *Engine) onDeactivateAll() {
	if e.screen.fg != nil && e.screen.fg.rec.Mode.normalized().participating() && e.configured() {
		e.onSetMode(SetMode{Conversation: e.screen.fg.id, Mode: ModeDeactivated, Source: "deactivate-all"})
	}
	n, err := e.store.DeactivateAll()
	if err != nil {
		e.toast("error", "Could not deactivate every conversation: "+err.Error())
		return
	}
	if e.screen.fg != nil {
		e.screen.fg.rec.Mode = ModeDeactivated
	}
	clear(e.replies.deferred)
	e.visits.queue = nil
	e.toast("success", "Clanker is deactivated in all conversations ("+strconv.Itoa(n)+" changed).")
}

// onPurge stops everything that could write the purged data again, then lets the caller
// delete it (see Purge).
func (e *Engine) onPurge(ev Purge) {
	affects := func(c ConversationID) bool { return ev.All || c == ev.Conversation }
	if in := e.replies.inflight; in != nil && affects(in.req.Conversation) {
		in.discard = true
	}
	if e.screen.fg != nil && affects(e.screen.fg.id) {
		e.cancelPending()
	}
	if ev.All {
		e.dropReplies("")
		e.visits.queue = nil
	} else {
		e.dropReplies(ev.Conversation)
		e.visits.queue = slices.DeleteFunc(e.visits.queue, func(c ConversationID) bool { return c == ev.Conversation })
	}
	err := ev.Apply()
	if ev.Done != nil {
		ev.Done <- err
	}
	if err != nil {
		e.log.Error("engine: purge failed", "all", ev.All, "err", err)
		return
	}
	what := ev.What
	if what == "" {
		what = "the stored data"
	}
	e.log.Info("engine: purged", "all", ev.All, "conversation", ev.Conversation)
	e.toast("success", "Deleted "+what+".")
}
