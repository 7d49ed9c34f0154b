package engine

import "strings"

// PausedText is the banner shown while Clanker stands still because the page changed.
const PausedText = "Clanker paused: Google Messages changed in a way Clanker cannot read safely (who wrote a message, or which messages are new). The page works as usual; Clanker resumes by itself once it can read it again."

// onDrift pauses or resumes Clanker as the page's self-test of the selectors it reads who said
// what and which rows are new with fails or passes (issue 27.7). Paused, Clanker asks the model
// nothing, types nothing and visits nothing; the page stays the user's. What happened while it
// could not read the page is not trusted: on resume it is released (the banner told the user),
// and the conversation on screen is reported afresh.
func (e *Engine) onDrift(ev PageDrift) {
	was := e.pausedFor
	if len(ev.Failing) > 0 {
		e.pausedFor = strings.Join(ev.Failing, ", ")
		if was != "" {
			return
		}
		e.log.Warn("engine: paused, the page's selectors for who said what or which rows are new do not match", "failing", e.pausedFor)
		e.banner(BannerPaused, PausedText)
		e.cancelPending()
		if j := e.sends.cur; j != nil && !j.entering {
			e.abortCurrent("the page changed")
		}
		e.visitDrop("the page changed")
		return
	}
	if was == "" {
		return
	}
	e.pausedFor = ""
	e.log.Info("engine: the page can be read again; resuming", "was failing", was)
	e.banner(BannerPaused, "")
	e.releaseOwed("the page could not be read safely when it came (a banner said so)")
	if fg := e.screen.fg; fg != nil {
		e.do(Command{Kind: CmdResync, Conversation: fg.id}, nil)
	}
}
