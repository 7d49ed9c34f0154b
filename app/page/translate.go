package page

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/clanker-desktop/clanker/app/engine"
)

// This file holds the pure halves of the Link: how one engine command becomes one bridge
// command, and how one bridge event becomes engine events and user notices. Nothing here
// keeps state or talks to the page, so each mapping is tested on its own with a table.

// Incoming is a new message someone sent, as the page shows it.
type Incoming struct {
	Conversation string
	Sender       string
	Text         string
}

// maxSidebarItems bounds the sidebar the Link remembers, as the protocol bounds one event.
const maxSidebarItems = 1000

// bridgeCommand is the bridge command that carries out an engine command on its own, or
// nil for the kinds the Link handles itself (the trusted Enter, banners, the status pill,
// the automated flag) and for unknown kinds.
func bridgeCommand(cmd engine.Command) CommandArgs {
	switch cmd.Kind {
	case engine.CmdInsertText:
		return InsertText{ConversationID: string(cmd.Conversation), Text: cmd.Text}
	case engine.CmdTypeText:
		return TypeStep{ConversationID: string(cmd.Conversation), Text: cmd.Text}
	case engine.CmdRemoveText:
		return ClearInserted{Text: cmd.Text}
	case engine.CmdNavigate:
		return Navigate{ConversationID: string(cmd.Conversation), Visit: cmd.Visit}
	case engine.CmdReadCompose:
		return ReadCompose{}
	case engine.CmdFetchImage:
		return FetchImage{Src: cmd.Src, MaxBytes: MaxImageBytes}
	case engine.CmdResync:
		return Snapshot{}
	case engine.CmdToast:
		return ShowToast{Text: engine.Clip(cmd.Text, 500), Level: toastLevel(cmd.Level)}
	case engine.CmdOverlay:
		if cmd.Text == "" {
			return HideOverlay{}
		}
		return ShowOverlay{Text: engine.Clip(cmd.Text, 300)}
	}
	return nil
}

// enginePageState maps the bridge's page states onto the engine's: the engine only
// distinguishes a page it can act on (ready) from the ones it cannot.
func enginePageState(state string) engine.PageState {
	switch state {
	case "loading":
		return engine.PageLoading
	case "signed_out":
		return engine.PageSignedOut
	case "unrecognised":
		return engine.PageUnrecognised
	}
	return engine.PageReady
}

// conversationOpened is the engine's view of a settled conversation. The header names
// stand in for the participants when the page listed none.
func conversationOpened(ev Conversation) engine.ConversationOpened {
	names := ev.Participants
	if len(names) == 0 {
		names = ev.HeaderNames
	}
	ps := make([]engine.Participant, 0, len(names))
	for _, n := range names {
		ps = append(ps, engine.Participant{Name: n})
	}
	return engine.ConversationOpened{
		ID:           engine.ConversationID(ev.ConversationID),
		Participants: ps,
		Messages:     toEngineMessages(ev.Messages),
	}
}

// incomingMessage is the notice for a new row of the open conversation, when it is a
// message someone else sent (not ours, not our own Clanker's echo, not empty).
func incomingMessage(ev NewMessage) (Incoming, bool) {
	m := ev.Message
	if m.Direction != "in" || m.OwnClanker || (m.Text == "" && len(m.Images) == 0) {
		return Incoming{}, false
	}
	text := m.Text
	if text == "" {
		text = "(a picture)"
	}
	return Incoming{Conversation: ev.ConversationID, Sender: m.Sender, Text: text}, true
}

// composeState is the engine's view of the compose box. An event without a conversation
// id belongs to current; without a box, or with no conversation at all, there is nothing
// to report.
func composeState(ev Compose, current string) (engine.ComposeState, bool) {
	conv := ev.ConversationID
	if conv == "" {
		conv = current
	}
	if conv == "" || !ev.Present {
		return engine.ComposeState{}, false
	}
	return engine.ComposeState{Conversation: engine.ConversationID(conv), HasDraft: ev.HasUserText, Focused: ev.Focused}, true
}

// mergeSidebar applies one sidebar event to the list known so far and returns the new
// list with the messages that just came in elsewhere. prior is the snippet print
// (snippetPrint) of each row of the list before the event, by conversation id; listed holds
// every conversation listed since then began (nil before the first list). Neither is
// changed. Changed and added rows of a diff move to the top: the page lists conversations
// by recent activity, and a diff item is a conversation that just had some.
//
// A row of another conversation (not current) that is unread and not one of ours is a new
// incoming message when
//   - it was in the list and shows a snippet it did not have before, or
//   - it is a conversation never listed before that the page drew above one it had listed:
//     someone writing for the first time. A row never listed that comes below every known
//     one is an old conversation brought into view by scrolling or loading more, and an
//     unread one is no news.
//
// A full list with nothing listed before is the baseline: whatever it shows was there
// before Clanker looked. A full list after another (the page reloaded, or the list this
// run started with is the one the previous run left) is compared with the one before, as
// a diff is; there the page's order itself tells what stands above a known row.
func mergeSidebar(old []SidebarItem, prior map[string]string, listed map[string]bool, ev Sidebar, current string) ([]SidebarItem, []Incoming) {
	var news []Incoming
	if !ev.Full || len(listed) > 0 {
		knownBelow := make([]bool, len(ev.Items))
		if ev.Full {
			below := false
			for i := len(ev.Items) - 1; i >= 0; i-- {
				knownBelow[i] = below
				below = below || listed[ev.Items[i].ID]
			}
		} else {
			for i, it := range ev.Items {
				knownBelow[i] = it.AboveKnown
			}
		}
		for i, it := range ev.Items {
			if !it.Unread || it.ID == current || strings.HasPrefix(strings.TrimSpace(it.Snippet), "You:") {
				continue
			}
			was, inList := prior[it.ID]
			if (inList && was != snippetPrint(it.Snippet)) || (!inList && !listed[it.ID] && knownBelow[i]) {
				news = append(news, Incoming{Conversation: it.ID, Sender: it.Name, Text: it.Snippet})
			}
		}
	}
	var next []SidebarItem
	if ev.Full {
		next = append([]SidebarItem(nil), ev.Items...)
	} else {
		drop := map[string]bool{}
		for _, id := range ev.Removed {
			drop[id] = true
		}
		for _, it := range ev.Items {
			drop[it.ID] = true
		}
		next = make([]SidebarItem, 0, len(old)+len(ev.Items))
		next = append(next, ev.Items...)
		for _, it := range old {
			if !drop[it.ID] {
				next = append(next, it)
			}
		}
	}
	// The mark describes one report, not the row.
	for i := range next {
		next[i].AboveKnown = false
	}
	if len(next) > maxSidebarItems {
		next = next[:maxSidebarItems]
	}
	return next, news
}

// snippetPrint stands for a sidebar snippet when only whether it changed matters: the
// list kept for the next run holds these, not what people wrote.
func snippetPrint(snippet string) string {
	sum := sha256.Sum256([]byte(snippet))
	return hex.EncodeToString(sum[:8])
}

// sidebarPrints is the snippet print of each row of a list, by conversation id.
func sidebarPrints(items []SidebarItem) map[string]string {
	m := make(map[string]string, len(items))
	for _, it := range items {
		m[it.ID] = snippetPrint(it.Snippet)
	}
	return m
}

// sidebarRows is the engine's view of the whole sidebar list.
func sidebarRows(items []SidebarItem) []engine.SidebarRow {
	rows := make([]engine.SidebarRow, 0, len(items))
	for _, it := range items {
		rows = append(rows, engine.SidebarRow{ID: engine.ConversationID(it.ID), Name: it.Name, Snippet: it.Snippet, Unread: it.Unread})
	}
	return rows
}

// modeChoice is the engine's mode change for a pick in the status pill menu. It is
// refused for any conversation but current: a menu left open across a switch must not
// change a conversation the user is no longer looking at. The "settings" entry is not a
// mode; the Link handles it before asking.
func modeChoice(ev ModeMenu, current string) (engine.SetMode, bool) {
	if ev.ConversationID == "" || ev.ConversationID != current {
		return engine.SetMode{}, false
	}
	return engine.SetMode{Conversation: engine.ConversationID(ev.ConversationID), Mode: engine.Mode(ev.Choice), Source: "page"}, true
}

// failedSelectors counts the self-test lines that did not match as expected.
func failedSelectors(ev SelfTest) int {
	failed := 0
	for _, r := range ev.Results {
		if !r.OK {
			failed++
		}
	}
	return failed
}

// pageDrift is what a self-test tells the engine about the selectors that decide who said what
// or which rows are new: those of them that fail (none when they all pass). A self-test that
// checked none of them (a page state without a conversation: they do not apply there) tells
// nothing, and ok is false: the drift stays as the last self-test that checked them found it.
func pageDrift(ev SelfTest) (engine.PageDrift, bool) {
	checked := false
	var failing []string
	for _, r := range ev.Results {
		if !r.Critical {
			continue
		}
		checked = true
		if !r.OK && !slices.Contains(failing, r.Key) {
			failing = append(failing, r.Key)
		}
	}
	return engine.PageDrift{Failing: failing}, checked
}

// failingSelectors names the self-test lines that failed, with what they matched, for the
// log: "messagesList=0(want one) messageCore=0(want some, critical)". A critical line is
// one that decides who said what or which rows are new.
func failingSelectors(ev SelfTest) string {
	var parts []string
	for _, r := range ev.Results {
		if !r.OK {
			crit := ""
			if r.Critical {
				crit = ", critical"
			}
			parts = append(parts, fmt.Sprintf("%s=%d(want %s%s)", r.Key, r.Count, r.Expect, crit))
		}
	}
	return strings.Join(parts, " ")
}

func toEngineMessages(ms []Message) []engine.Message {
	out := make([]engine.Message, 0, len(ms))
	for _, m := range ms {
		out = append(out, toEngineMessage(m))
	}
	return out
}

// toEngineMessage keeps what the engine decides on. A row whose direction the label did
// not reveal counts as ours only when its sender reads "You".
func toEngineMessage(m Message) engine.Message {
	dir := engine.Incoming
	if m.Direction == "out" || (m.Direction == "unknown" && m.Sender == "You") {
		dir = engine.Outgoing
	}
	em := engine.Message{
		ID:           m.ID,
		Sender:       m.Sender,
		Direction:    dir,
		Text:         m.Text,
		OwnClanker:   m.OwnClanker,
		OtherClanker: m.OtherClanker,
		Unsupported:  m.Unsupported,
		Timestamp:    m.Timestamp,
		// No label yet: who wrote it may still arrive as a message_update.
		LabelPending: m.LabelKind == "none" && m.Sender == "" && m.Direction != "out",
	}
	for _, im := range m.Images {
		em.Images = append(em.Images, engine.Image{Src: im.Src, Alt: im.Alt})
	}
	if m.Quote != nil {
		em.Quoted = m.Quote.Text
		em.QuotedSender = m.Quote.Sender
	}
	return em
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func toastLevel(s string) string {
	switch s {
	case "error", "success":
		return s
	}
	return "info"
}
