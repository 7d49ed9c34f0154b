package page

import (
	"strings"
	"sync"

	"github.com/clanker-desktop/clanker/app/engine"
)

// view is what the page shows, as far as the Link knows: the page state and foreground
// conversation the bridge last reported, the sidebar list, and what Clanker itself puts
// on the page (its banners, the mode in the status pill, the automated flag the menus
// read). It is safe for concurrent use; every method takes the lock once, so each answer
// is consistent.
type view struct {
	mu        sync.Mutex
	pageState string
	current   string // conversation id the page shows ("" when none)
	status    string // last mode shown in the pill
	waiting   bool   // the pill says Clanker waits for the user's draft
	automated bool
	hint      string   // the one-time hint beside the pill ("" when none)
	banners   []banner // oldest first
	sidebar   []SidebarItem
	prints    map[string]string // snippet print of each row of sidebar, by conversation id; replaced, never changed
	listed    map[string]bool   // every conversation the sidebar listed since the Link started
	// remembered is the list as the previous run left it (id to snippet print); the first
	// list of this run is compared with it. Nil when there is none.
	remembered map[string]string
}

// banner is one warning kept under its key. dismissed is set when the user closed the page's
// banner while this one was in it: it stays hidden until its cause is reported again.
type banner struct {
	key, text string
	dismissed bool
}

// setPage records a page_state event and returns what it replaced.
func (v *view) setPage(state, conv string) (prevState, prevConv string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	prevState, prevConv = v.pageState, v.current
	v.pageState, v.current = state, conv
	return prevState, prevConv
}

// setCurrent records the foreground conversation and returns the previous one.
func (v *view) setCurrent(conv string) (prev string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	prev, v.current = v.current, conv
	return prev
}

func (v *view) currentConversation() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.current
}

func (v *view) state() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.pageState
}

// setAutomated records the engine's automated flag and reports whether it changed.
func (v *view) setAutomated(on bool) (changed bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	changed = v.automated != on
	v.automated = on
	return changed
}

func (v *view) isAutomated() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.automated
}

// setStatus records the mode the pill shows and whether Clanker waits for the user's draft;
// it reports whether the latter changed (the menus say it too).
func (v *view) setStatus(mode string, waiting bool) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.status = mode
	changed := v.waiting != waiting
	v.waiting = waiting
	return changed
}

// Why the pill's menu offers no mode, as the tray and app menu say it.
const (
	LockedAutomated  = "Automated conversation: Clanker stays out"
	LockedNoSettings = "Finish the settings to choose a mode"
)

// statusCommand is the command that makes the pill match: the mode of the foreground
// conversation, locked with the reason when it cannot be changed, or no pill when there
// is no conversation or no mode yet.
func (v *view) statusCommand() CommandArgs {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.current == "" || v.status == "" {
		return HideStatus{}
	}
	st := SetStatus{ConversationID: v.current, Mode: v.status}
	switch {
	case v.status == string(engine.ModeUninitialized):
		st.Locked = LockedNoSettings
	case v.automated:
		st.Locked = LockedAutomated
	default:
		st.Waiting = v.waiting
	}
	return st
}

// setHint records the hint's text and reports whether it changed.
func (v *view) setHint(text string) (changed bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	changed = v.hint != text
	v.hint = text
	return changed
}

func (v *view) hintText() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.hint
}

// hintBeside is the hint to show beside the pill the status command st draws: the hint's
// text beside a pill whose menu can change the mode, else "" (a hint saying "switch it on
// here" next to a locked pill, or with no pill, would be wrong).
func (v *view) hintBeside(st CommandArgs) string {
	if s, ok := st.(SetStatus); ok && s.Locked == "" {
		return v.hintText()
	}
	return ""
}

// hintShown reports whether the page shows the hint now, as far as the Link knows.
func (v *view) hintShown() bool { return v.hintBeside(v.statusCommand()) != "" }

// setBanner shows (text non-empty) or removes the banner kept under key, and reports
// whether text is new: shown now, or different from what the key showed before.
func (v *view) setBanner(key, text string) (fresh bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	kept := v.banners[:0]
	was := ""
	for _, b := range v.banners {
		if b.key != key {
			kept = append(kept, b)
		} else {
			was = b.text
		}
	}
	v.banners = kept
	if text != "" {
		// Set again means the cause happened again: shown even if it was dismissed.
		v.banners = append(v.banners, banner{key: key, text: text})
	}
	return text != "" && text != was
}

// dismiss hides every banner shown now until its key is set again, and reports how many.
func (v *view) dismiss() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	n := 0
	for i := range v.banners {
		if !v.banners[i].dismissed {
			v.banners[i].dismissed = true
			n++
		}
	}
	return n
}

// bannerText is the one banner the page shows: every kept banner, newest first.
func (v *view) bannerText() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	parts := make([]string, 0, len(v.banners))
	for i := len(v.banners) - 1; i >= 0; i-- {
		if !v.banners[i].dismissed {
			parts = append(parts, v.banners[i].text)
		}
	}
	return engine.Clip(strings.Join(parts, " | "), 500)
}

// bannerCommand is the command that makes the page's banner match.
func (v *view) bannerCommand() CommandArgs {
	if text := v.bannerText(); text != "" {
		return ShowBanner{Text: text, Level: "warning"}
	}
	return HideBanner{}
}

// applySidebar merges a sidebar event into the list and returns the whole list for the
// engine, the messages that just came in elsewhere, and the list's snippet prints to keep
// for the next run.
//
// The first list of a run is compared with the one the previous run left, so a message
// that came while Clanker was not looking (not running, or the page still loading) is
// reported; at most maxFirstListNews of them, the top rows, so coming back after a long
// time does not pour out a notification per conversation.
func (v *view) applySidebar(ev Sidebar) ([]engine.SidebarRow, []Incoming, map[string]string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	prior, listed := v.prints, v.listed
	first := v.listed == nil
	if first && len(v.remembered) > 0 {
		prior, listed = v.remembered, make(map[string]bool, len(v.remembered))
		for id := range v.remembered {
			listed[id] = true
		}
	}
	var news []Incoming
	v.sidebar, news = mergeSidebar(v.sidebar, prior, listed, ev, v.current)
	if first && len(news) > maxFirstListNews {
		news = news[:maxFirstListNews]
	}
	v.prints = sidebarPrints(v.sidebar)
	if v.listed == nil {
		v.listed = map[string]bool{}
	}
	for _, it := range ev.Items {
		if len(v.listed) >= maxListed {
			break
		}
		v.listed[it.ID] = true
	}
	// v.prints is built afresh for every event and only read after, so the caller may keep it.
	return sidebarRows(v.sidebar), news, v.prints
}

// maxFirstListNews bounds the messages the first list of a run reports.
const maxFirstListNews = 5

// maxListed bounds the conversations the Link remembers having listed. Past it, a row
// never seen that comes above known ones can be taken for a new conversation once.
const maxListed = 20 * maxSidebarItems

func (v *view) sidebarSize() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.sidebar)
}

// conversationName is the sidebar name of a conversation ("" when not in the sidebar).
func (v *view) conversationName(id string) string {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, it := range v.sidebar {
		if it.ID == id {
			return it.Name
		}
	}
	return ""
}
