package engine

import (
	"slices"
	"strconv"
)

// This file holds what the user decides for conversations, and what acts on every pipeline at
// once: the mode of a conversation (switching it, announcing it, deactivating everything),
// saved settings, and purging stored data.

// mode is the mode Clanker acts in, in the conversation on screen: Uninitialized while the
// settings are incomplete, Deactivated for automated senders, and otherwise the chosen mode as
// far as the people there were told about it (Conversation.Acting).
func (e *Engine) mode() Mode {
	if !e.configured() {
		return ModeUninitialized
	}
	if e.screen.fg == nil || e.screen.fg.automated {
		return ModeDeactivated
	}
	return e.screen.fg.rec.Acting()
}

// chosen is the mode the user chose for the conversation on screen, which the status pill and
// the menus show: Clanker may still be announcing it.
func (e *Engine) chosen() Mode {
	if !e.configured() {
		return ModeUninitialized
	}
	if e.screen.fg == nil || e.screen.fg.automated {
		return ModeDeactivated
	}
	return e.screen.fg.rec.Mode.normalized()
}

func (e *Engine) status() {
	e.do(Command{Kind: CmdStatus, Text: string(e.chosen()), Waiting: e.screen.waitShown}, nil)
}

// waitsForDraft reports whether something Clanker would do now waits for the user's draft
// in the conversation on screen: an answer due or ready there, or a visit to a conversation
// that is owed one. Clanker never types over a draft nor leaves it for a visit, so a draft
// left in the box would hold all of that for as long as it stays; the pill and the menus say
// so (showWaiting), and Clanker is never silent without a word.
func (e *Engine) waitsForDraft() bool {
	if !e.screen.draft || e.screen.fg == nil || e.screen.switching || e.visits.run != nil {
		return false
	}
	if len(e.sends.queue) > 0 || e.replies.pending != nil {
		return true
	}
	return len(e.visits.queue) > 0 && e.visitsAllowed()
}

// showWaiting sends the pill again when whether Clanker waits for the user's draft changed.
// It runs after every event (pump).
func (e *Engine) showWaiting() {
	if w := e.waitsForDraft(); w != e.screen.waitShown {
		e.screen.waitShown = w
		e.status()
	}
}

func (e *Engine) showConfigBanner() {
	e.banner(BannerConfig, e.configBannerText())
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

// onSetMode switches a conversation's mode. The people there are told before Clanker acts on
// a mode that lets it do more: the notice is queued at once for the conversation on screen,
// and for one that is not on screen and settled (another conversation, one still loading) the
// choice is stored with its notice owed, posted as soon as it is on screen and settled.
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
		e.toast("error", e.configBannerText())
		return
	}
	if !e.screen.settledOn(conv) {
		e.setModeAway(conv, ev)
		return
	}
	fg := e.screen.fg
	if fg.automated {
		e.toast("info", "Clanker never takes part in automated conversations.")
		return
	}
	old := fg.rec.Mode.normalized()
	if old == ev.Mode {
		e.announceOwed() // a notice lost on the way goes out now
		return
	}
	rec := fg.rec
	rec.Mode = ev.Mode
	// Clanker starts (or stops) from here: nothing said before the switch is owed an answer.
	rec.Decided = fg.decidedNow()
	if !e.save(rec) {
		e.toast("error", "Could not save the mode; nothing was changed.")
		return
	}
	e.log.Info("engine: mode changed", "conversation", conv, "from", old, "to", ev.Mode, "told", rec.Announced.normalized(), "source", ev.Source)
	if ev.Mode.participating() {
		// The user switched Clanker back on: the warning that it was switched off is done.
		e.clearCauseBanners("mode switched on again")
	}
	fg.rec = rec
	fg.allOwed = false
	e.cancelPending()
	e.dropReplies(conv)
	e.dropAnnouncements(conv)
	e.status()
	e.announceOwed()
}

// setModeAway stores a mode chosen for a conversation that is not on screen and settled. Its
// notice is owed until the conversation is shown; Clanker does not act on the new mode there
// before that.
func (e *Engine) setModeAway(conv ConversationID, ev SetMode) {
	rec, ok, err := e.store.LoadConversation(conv)
	if err != nil {
		e.toast("error", "Could not change the mode: "+err.Error())
		return
	}
	if !ok {
		rec = Conversation{ID: conv, Name: e.sidebar.names[conv]}
	}
	rec.ID = conv
	if rec.Mode.normalized() == ev.Mode {
		return
	}
	rec.Mode = ev.Mode
	if !e.save(rec) {
		e.toast("error", "Could not save the mode; nothing was changed.")
		return
	}
	e.log.Info("engine: mode changed for a conversation not on screen; its notice is owed", "conversation", conv, "to", ev.Mode, "told", rec.Announced.normalized(), "source", ev.Source)
	if e.screen.holds(conv) {
		// The conversation being left or still loading: the engine's copy follows the store.
		e.screen.fg.rec.Mode = ev.Mode
	}
	if ev.Mode.participating() {
		e.clearCauseBanners("mode switched on again")
	}
	if rec.noticeOwed() && ev.Mode.participating() {
		e.toast("info", "Clanker will announce itself in that conversation as soon as it is open, and takes part only from then on.")
	}
}

// deactivate switches a conversation off without announcing it (auth and quota failures): no
// farewell is owed either.
func (e *Engine) deactivate(conv ConversationID) {
	if e.screen.holds(conv) {
		e.screen.fg.rec.Mode, e.screen.fg.rec.Announced = ModeDeactivated, ModeDeactivated
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
	rec.Mode, rec.Announced = ModeDeactivated, ModeDeactivated
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
		// A purge starts the conversation afresh: what was owed before it is released
		// (the user saw the confirmation), or the answer would be asked for again at once.
		e.releaseOwed("the user purged the conversation's data")
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
