package engine

import (
	"time"
)

// checkNews runs every 5 minutes. A news check for the foreground conversation needs: the
// setting and web search on, a participating mode, no quiet hour, at least 2 h since the
// conversation's last message and 1 h since its last check (both from stored data, per
// conversation, so a restart does not reset them), and nothing else going on.
func (e *Engine) checkNews() {
	s := e.settings
	if !s.NewsSearch || !s.WebSearch || !e.configured() || e.screen.fg == nil || e.pageState != PageReady {
		return
	}
	if !e.mode().participating() || !e.foregroundAvailable() || e.visits.run != nil || e.paused() {
		return
	}
	now := time.Now()
	if s.QuietAt(now.In(e.loc).Hour()) {
		return
	}
	rec := e.screen.fg.rec
	if now.Sub(rec.LastMessageAt) < newsMinIdle || now.Sub(rec.LastNewsCheck) < newsMinGap {
		return
	}
	rec.LastNewsCheck = now
	if !e.save(rec) {
		return // without the stored timestamp the next tick would check again at once
	}
	e.screen.fg.rec = rec
	e.replies.gen++
	e.startRequest(RequestNews, e.replies.gen)
}

// housekeeping forgets conversations unseen for 30 days. It never runs before the sidebar has
// loaded, so an empty or broken page cannot make everything look orphaned, and it never drops a
// mode just because a row scrolled out of view: only the stored last-seen time counts.
func (e *Engine) housekeeping() {
	if e.budgetMonth != "" && time.Now().In(e.loc).Format("2006-01") != e.budgetMonth {
		// A new month brings a new budget: the banner saying it is spent is out of date.
		e.clearCauseBanners("a new budget month began")
	}
	if !e.sidebar.loaded {
		return
	}
	n, err := e.store.ForgetUnseen(time.Now().Add(-orphanAge))
	if err != nil {
		e.log.Error("engine: forget orphaned conversations", "err", err)
		return
	}
	if n > 0 {
		e.log.Info("engine: forgot conversations not seen for 30 days", "count", n)
	}
}
