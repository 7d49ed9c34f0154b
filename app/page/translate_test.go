package page

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/app/engine"
)

func TestBridgeCommandMapsEachEngineCommandTheBridgeCarriesOut(t *testing.T) {
	long := strings.Repeat("x", 600)
	cases := []struct {
		name string
		cmd  engine.Command
		want CommandArgs
	}{
		{"insert", engine.Command{Kind: engine.CmdInsertText, Conversation: "c1", Text: "[clanker] hi"}, InsertText{ConversationID: "c1", Text: "[clanker] hi"}},
		{"type step", engine.Command{Kind: engine.CmdTypeText, Conversation: "c1", Text: "h"}, TypeStep{ConversationID: "c1", Text: "h"}},
		{"remove", engine.Command{Kind: engine.CmdRemoveText}, ClearInserted{}},
		{"remove named", engine.Command{Kind: engine.CmdRemoveText, Text: "[clanker] sure, sev"}, ClearInserted{Text: "[clanker] sure, sev"}},
		{"navigate", engine.Command{Kind: engine.CmdNavigate, Conversation: "c2"}, Navigate{ConversationID: "c2"}},
		{"read compose", engine.Command{Kind: engine.CmdReadCompose, Conversation: "c2"}, ReadCompose{}},
		{"fetch image", engine.Command{Kind: engine.CmdFetchImage, Src: "blob:x"}, FetchImage{Src: "blob:x", MaxBytes: MaxImageBytes}},
		{"toast info", engine.Command{Kind: engine.CmdToast, Text: "ok"}, ShowToast{Text: "ok", Level: "info"}},
		{"toast error", engine.Command{Kind: engine.CmdToast, Level: "error", Text: "bad"}, ShowToast{Text: "bad", Level: "error"}},
		{"toast success", engine.Command{Kind: engine.CmdToast, Level: "success", Text: "done"}, ShowToast{Text: "done", Level: "success"}},
		{"toast odd level", engine.Command{Kind: engine.CmdToast, Level: "warning", Text: "w"}, ShowToast{Text: "w", Level: "info"}},
		{"toast clipped", engine.Command{Kind: engine.CmdToast, Text: long}, ShowToast{Text: long[:499] + "…", Level: "info"}},
		{"overlay", engine.Command{Kind: engine.CmdOverlay, Text: "working"}, ShowOverlay{Text: "working"}},
		{"overlay clipped", engine.Command{Kind: engine.CmdOverlay, Text: long}, ShowOverlay{Text: long[:299] + "…"}},
		{"overlay off", engine.Command{Kind: engine.CmdOverlay}, HideOverlay{}},
		{"enter is the link's", engine.Command{Kind: engine.CmdPressEnter, Conversation: "c1"}, nil},
		{"banner is the link's", engine.Command{Kind: engine.CmdBanner, Key: "k", Text: "t"}, nil},
		{"status is the link's", engine.Command{Kind: engine.CmdStatus, Text: "active"}, nil},
		{"automated is the link's", engine.Command{Kind: engine.CmdSetAutomated, Text: "true"}, nil},
		{"unknown", engine.Command{Kind: "teleport"}, nil},
	}
	for _, c := range cases {
		if got := bridgeCommand(c.cmd); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: bridgeCommand(%+v) = %#v, want %#v", c.name, c.cmd, got, c.want)
		}
	}
}

func TestEnginePageStateKeepsOnlyWhatTheEngineActsOn(t *testing.T) {
	cases := map[string]engine.PageState{
		"loading":         engine.PageLoading,
		"signed_out":      engine.PageSignedOut,
		"unrecognised":    engine.PageUnrecognised,
		"conversation":    engine.PageReady,
		"no_conversation": engine.PageReady,
	}
	for state, want := range cases {
		if got := enginePageState(state); got != want {
			t.Errorf("enginePageState(%q) = %q, want %q", state, got, want)
		}
	}
	// Every state the protocol allows has a row above, so a new one is not silently "ready".
	for _, s := range enumOf(t, PageState{}, "State") {
		if _, ok := cases[s]; !ok {
			t.Errorf("page state %q of the protocol has no row in this table", s)
		}
	}
}

// enumOf returns the enum values of a field's v tag.
func enumOf(t *testing.T, v any, field string) []string {
	t.Helper()
	f, ok := reflect.TypeOf(v).FieldByName(field)
	if !ok {
		t.Fatalf("%T has no field %s", v, field)
	}
	return parseRule(f.Tag.Get("v")).enum
}

func TestToEngineMessageKeepsWhatTheEngineDecidesOn(t *testing.T) {
	cases := []struct {
		name string
		in   Message
		want engine.Message
	}{
		{"incoming",
			Message{ID: "m1", Sender: "Bob", Direction: "in", Text: "hi", Timestamp: "2:56 PM", LabelKind: "full", Status: []string{"SMS"}},
			engine.Message{ID: "m1", Sender: "Bob", Direction: engine.Incoming, Text: "hi", Timestamp: "2:56 PM"}},
		{"outgoing",
			Message{ID: "m2", Sender: "You", Direction: "out", Text: "yo", LabelKind: "full"},
			engine.Message{ID: "m2", Sender: "You", Direction: engine.Outgoing, Text: "yo"}},
		{"unknown direction from You is ours",
			Message{ID: "m3", Sender: "You", Direction: "unknown", LabelKind: "partial"},
			engine.Message{ID: "m3", Sender: "You", Direction: engine.Outgoing}},
		{"unknown direction from anyone else is incoming",
			Message{ID: "m4", Sender: "Bob", Direction: "unknown", LabelKind: "partial"},
			engine.Message{ID: "m4", Sender: "Bob", Direction: engine.Incoming}},
		{"unknown direction without a sender is incoming, its label still awaited",
			Message{ID: "m5", Direction: "unknown", LabelKind: "none", Unsupported: true},
			engine.Message{ID: "m5", Direction: engine.Incoming, Unsupported: true, LabelPending: true}},
		{"an outgoing row without its label is ours, nothing awaited",
			Message{ID: "m8", Direction: "out", Text: "[clanker] hi", LabelKind: "none"},
			engine.Message{ID: "m8", Direction: engine.Outgoing, Text: "[clanker] hi"}},
		{"a label without a sender will not bring one",
			Message{ID: "m9", Direction: "in", Text: "ok", LabelKind: "partial"},
			engine.Message{ID: "m9", Direction: engine.Incoming, Text: "ok"}},
		{"flags, images and quote",
			Message{ID: "m6", Sender: "Ann", Direction: "in", Text: "[clanker] hey", OtherClanker: true, LabelKind: "full",
				Images: []Image{{Src: "blob:a", Alt: "cat"}, {Src: "blob:b"}}, Quote: &Quote{Sender: "Bob", Text: "parent"},
				Reactions: []Reaction{{Reaction: "laugh", By: []string{"You"}}}},
			engine.Message{ID: "m6", Sender: "Ann", Direction: engine.Incoming, Text: "[clanker] hey", OtherClanker: true,
				Images: []engine.Image{{Src: "blob:a", Alt: "cat"}, {Src: "blob:b"}}, Quoted: "parent", QuotedSender: "Bob"}},
		{"own clanker",
			Message{ID: "m7", Sender: "You", Direction: "out", Text: "[clanker] done", OwnClanker: true, LabelKind: "full"},
			engine.Message{ID: "m7", Sender: "You", Direction: engine.Outgoing, Text: "[clanker] done", OwnClanker: true}},
	}
	for _, c := range cases {
		if got := toEngineMessage(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

func TestConversationOpenedNamesTheParticipantsOrElseTheHeader(t *testing.T) {
	msgs := []Message{{ID: "m1", Sender: "Bob", Direction: "in", Text: "a", LabelKind: "full"}, {ID: "m2", Sender: "You", Direction: "out", Text: "b", LabelKind: "full"}}
	cases := []struct {
		name string
		in   Conversation
		want engine.ConversationOpened
	}{
		{"participants", Conversation{ConversationID: "c1", Participants: []string{"Bob", "Ann"}, HeaderNames: []string{"Group"}, Messages: msgs},
			engine.ConversationOpened{ID: "c1", Participants: []engine.Participant{{Name: "Bob"}, {Name: "Ann"}},
				Messages: []engine.Message{{ID: "m1", Sender: "Bob", Direction: engine.Incoming, Text: "a"}, {ID: "m2", Sender: "You", Direction: engine.Outgoing, Text: "b"}}}},
		{"header names stand in", Conversation{ConversationID: "c2", HeaderNames: []string{"Bob"}},
			engine.ConversationOpened{ID: "c2", Participants: []engine.Participant{{Name: "Bob"}}, Messages: []engine.Message{}}},
		{"nobody", Conversation{ConversationID: "c3"},
			engine.ConversationOpened{ID: "c3", Participants: []engine.Participant{}, Messages: []engine.Message{}}},
	}
	for _, c := range cases {
		if got := conversationOpened(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

func TestIncomingMessageIsSomeoneElsesNewRowWithSomethingToShow(t *testing.T) {
	msg := func(m Message) NewMessage {
		m.ID, m.LabelKind = "m1", "full"
		return NewMessage{ConversationID: "c1", Message: m}
	}
	cases := []struct {
		name string
		in   NewMessage
		want Incoming
		ok   bool
	}{
		{"text", msg(Message{Sender: "Bob", Direction: "in", Text: "are you there"}), Incoming{Conversation: "c1", Sender: "Bob", Text: "are you there"}, true},
		{"picture only", msg(Message{Sender: "Bob", Direction: "in", Images: []Image{{Src: "blob:x"}}}), Incoming{Conversation: "c1", Sender: "Bob", Text: "(a picture)"}, true},
		{"another clanker counts", msg(Message{Sender: "Ann", Direction: "in", Text: "[clanker] hi", OtherClanker: true}), Incoming{Conversation: "c1", Sender: "Ann", Text: "[clanker] hi"}, true},
		{"ours", msg(Message{Sender: "You", Direction: "out", Text: "mine"}), Incoming{}, false},
		{"our clanker's echo", msg(Message{Sender: "Bob", Direction: "in", Text: "[clanker] echo", OwnClanker: true}), Incoming{}, false},
		{"unknown direction", msg(Message{Sender: "Bob", Direction: "unknown", Text: "?"}), Incoming{}, false},
		{"nothing to show", msg(Message{Sender: "Bob", Direction: "in", Unsupported: true}), Incoming{}, false},
	}
	for _, c := range cases {
		got, ok := incomingMessage(c.in)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: incomingMessage = %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestComposeStateBelongsToItsConversationOrTheForeground(t *testing.T) {
	cases := []struct {
		name    string
		in      Compose
		current string
		want    engine.ComposeState
		ok      bool
	}{
		{"own id", Compose{ConversationID: "c1", Present: true, Kind: "textarea", HasUserText: true, Focused: true}, "c2",
			engine.ComposeState{Conversation: "c1", HasDraft: true, Focused: true}, true},
		{"foreground", Compose{Present: true, Kind: "contenteditable", HasClankerText: true}, "c2",
			engine.ComposeState{Conversation: "c2"}, true},
		{"no conversation", Compose{Present: true, Kind: "textarea", HasUserText: true}, "", engine.ComposeState{}, false},
		{"no box", Compose{ConversationID: "c1", Kind: "none"}, "c1", engine.ComposeState{}, false},
	}
	for _, c := range cases {
		got, ok := composeState(c.in, c.current)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: composeState = %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestModeChoiceAppliesOnlyToTheConversationOnScreen(t *testing.T) {
	cases := []struct {
		name    string
		in      ModeMenu
		current string
		want    engine.SetMode
		ok      bool
	}{
		{"on screen", ModeMenu{ConversationID: "c1", Choice: "available"}, "c1",
			engine.SetMode{Conversation: "c1", Mode: engine.ModeAvailable, Source: "page"}, true},
		{"active", ModeMenu{ConversationID: "c1", Choice: "active"}, "c1",
			engine.SetMode{Conversation: "c1", Mode: engine.ModeActive, Source: "page"}, true},
		{"deactivated", ModeMenu{ConversationID: "c1", Choice: "deactivated"}, "c1",
			engine.SetMode{Conversation: "c1", Mode: engine.ModeDeactivated, Source: "page"}, true},
		{"stale menu", ModeMenu{ConversationID: "old", Choice: "active"}, "c1", engine.SetMode{}, false},
		{"no conversation named", ModeMenu{Choice: "active"}, "", engine.SetMode{}, false},
		{"nothing on screen", ModeMenu{ConversationID: "c1", Choice: "active"}, "", engine.SetMode{}, false},
	}
	for _, c := range cases {
		got, ok := modeChoice(c.in, c.current)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: modeChoice = %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestMergeSidebarMovesChangedRowsUpAndFindsNewMessagesElsewhere(t *testing.T) {
	bob := SidebarItem{ID: "c1", Name: "Bob", Snippet: "old"}
	ann := SidebarItem{ID: "c2", Name: "Ann", Snippet: "before"}
	cy := SidebarItem{ID: "c3", Name: "Cy", Snippet: "x"}
	many := make([]SidebarItem, maxSidebarItems+5)
	for i := range many {
		many[i] = SidebarItem{ID: fmt.Sprintf("n%d", i), Name: "n"}
	}
	cases := []struct {
		name     string
		old      []SidebarItem
		ev       Sidebar
		current  string
		want     []SidebarItem
		incoming []Incoming
	}{
		{"full replaces", []SidebarItem{bob}, Sidebar{Full: true, Items: []SidebarItem{ann, cy}}, "",
			[]SidebarItem{ann, cy}, nil},
		{"the first list is the baseline", nil, Sidebar{Full: true, Items: []SidebarItem{{ID: "c2", Name: "Ann", Snippet: "new", Unread: true}, bob}}, "",
			[]SidebarItem{{ID: "c2", Name: "Ann", Snippet: "new", Unread: true}, bob}, nil},
		{"changed row moves to the top", []SidebarItem{bob, ann, cy}, Sidebar{Items: []SidebarItem{{ID: "c3", Name: "Cy", Snippet: "y"}}}, "",
			[]SidebarItem{{ID: "c3", Name: "Cy", Snippet: "y"}, bob, ann}, nil},
		{"removed rows go", []SidebarItem{bob, ann, cy}, Sidebar{Removed: []string{"c1", "zz"}}, "",
			[]SidebarItem{ann, cy}, nil},
		{"unread new snippet elsewhere is news", []SidebarItem{bob, ann}, Sidebar{Items: []SidebarItem{{ID: "c2", Name: "Ann", Snippet: "lunch?", Unread: true}}}, "c1",
			[]SidebarItem{{ID: "c2", Name: "Ann", Snippet: "lunch?", Unread: true}, bob},
			[]Incoming{{Conversation: "c2", Sender: "Ann", Text: "lunch?"}}},
		{"the open conversation's row is not news", []SidebarItem{bob}, Sidebar{Items: []SidebarItem{{ID: "c1", Name: "Bob", Snippet: "hey", Unread: true}}}, "c1",
			[]SidebarItem{{ID: "c1", Name: "Bob", Snippet: "hey", Unread: true}}, nil},
		{"our own snippet is not news", []SidebarItem{cy}, Sidebar{Items: []SidebarItem{{ID: "c3", Name: "Cy", Snippet: " You: sent", Unread: true}}}, "",
			[]SidebarItem{{ID: "c3", Name: "Cy", Snippet: " You: sent", Unread: true}}, nil},
		{"read row is not news", []SidebarItem{ann}, Sidebar{Items: []SidebarItem{{ID: "c2", Name: "Ann", Snippet: "lunch?"}}}, "",
			[]SidebarItem{{ID: "c2", Name: "Ann", Snippet: "lunch?"}}, nil},
		{"same snippet is not news", []SidebarItem{ann}, Sidebar{Items: []SidebarItem{{ID: "c2", Name: "Ann", Snippet: "before", Unread: true}}}, "",
			[]SidebarItem{{ID: "c2", Name: "Ann", Snippet: "before", Unread: true}}, nil},
		{"a row never seen is not news", nil, Sidebar{Items: []SidebarItem{{ID: "c9", Name: "New", Snippet: "hi", Unread: true}}}, "",
			[]SidebarItem{{ID: "c9", Name: "New", Snippet: "hi", Unread: true}}, nil},
		{"capped", nil, Sidebar{Full: true, Items: many}, "", many[:maxSidebarItems], nil},
	}
	for _, c := range cases {
		before := append([]SidebarItem(nil), c.old...)
		got, news := mergeSidebar(c.old, sidebarPrints(c.old), listedIDs(c.old), c.ev, c.current)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: list = %+v, want %+v", c.name, got, c.want)
		}
		if !reflect.DeepEqual(news, c.incoming) {
			t.Errorf("%s: incoming = %+v, want %+v", c.name, news, c.incoming)
		}
		if !reflect.DeepEqual(c.old, before) {
			t.Errorf("%s: the old list was changed in place", c.name)
		}
	}
}

func TestSidebarRowsAndFailedSelectors(t *testing.T) {
	rows := sidebarRows([]SidebarItem{{ID: "c1", Name: "Bob", Snippet: "hi", Unread: true, Pinned: true}, {ID: "c2"}})
	want := []engine.SidebarRow{{ID: "c1", Name: "Bob", Snippet: "hi", Unread: true}, {ID: "c2"}}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("sidebarRows = %+v, want %+v", rows, want)
	}
	cases := []struct {
		results []SelectorResult
		want    int
	}{
		{nil, 0},
		{[]SelectorResult{{Key: "a", OK: true}, {Key: "b", OK: true}}, 0},
		{[]SelectorResult{{Key: "a", OK: false}, {Key: "b", OK: true}, {Key: "c"}}, 2},
	}
	for _, c := range cases {
		if got := failedSelectors(SelfTest{Results: c.results}); got != c.want {
			t.Errorf("failedSelectors(%+v) = %d, want %d", c.results, got, c.want)
		}
	}
	log := failingSelectors(SelfTest{Results: []SelectorResult{
		{Key: "messagesList", Expect: "one"}, {Key: "messageCore", Expect: "some", Critical: true}, {Key: "inputBox", Count: 1, Expect: "one", OK: true}}})
	if want := "messagesList=0(want one) messageCore=0(want some, critical)"; log != want {
		t.Errorf("failingSelectors = %q, want %q", log, want)
	}
}

// listedIDs is the set of conversations a Link that knows list has listed (nil for none).
func listedIDs(list []SidebarItem, more ...string) map[string]bool {
	if len(list)+len(more) == 0 {
		return nil
	}
	m := map[string]bool{}
	for _, it := range list {
		m[it.ID] = true
	}
	for _, id := range more {
		m[id] = true
	}
	return m
}

// Someone writing for the first time adds a row the Link never listed, drawn above the
// known rows. Rows never listed also appear when the list scrolls, loads more or redraws:
// those come below the known rows (the bridge does not mark them aboveKnown, and a full list
// shows them below), or were listed before, and are no news even when unread.
func TestMergeSidebarTellsAFirstTimeWriterFromRowsBroughtIntoView(t *testing.T) {
	bob := SidebarItem{ID: "c1", Name: "Bob", Snippet: "old"}
	ann := SidebarItem{ID: "c2", Name: "Ann", Snippet: "before"}
	newcomer := SidebarItem{ID: "c9", Name: "Zoe", Snippet: "hi, it's Zoe from the climbing gym", Unread: true}
	marked := func(it SidebarItem) SidebarItem { it.AboveKnown = true; return it }
	zoe := Incoming{Conversation: "c9", Sender: "Zoe", Text: "hi, it's Zoe from the climbing gym"}
	cases := []struct {
		name     string
		old      []SidebarItem
		listed   map[string]bool
		ev       Sidebar
		current  string
		want     []SidebarItem // nil: not checked
		incoming []Incoming
	}{
		{"a first-time writer above the known rows is news", []SidebarItem{bob, ann}, listedIDs([]SidebarItem{bob, ann}),
			Sidebar{Items: []SidebarItem{marked(newcomer)}}, "c1",
			[]SidebarItem{newcomer, bob, ann}, []Incoming{zoe}},
		{"two first-time writers in one report are both news", []SidebarItem{bob}, listedIDs([]SidebarItem{bob}),
			Sidebar{Items: []SidebarItem{marked(newcomer), marked(SidebarItem{ID: "c8", Name: "Max", Snippet: "yo", Unread: true})}}, "",
			nil, []Incoming{zoe, {Conversation: "c8", Sender: "Max", Text: "yo"}}},
		{"an unread row scrolled or loaded into view below the known rows is not news", []SidebarItem{bob, ann}, listedIDs([]SidebarItem{bob, ann}),
			Sidebar{Items: []SidebarItem{newcomer, {ID: "c7", Name: "Old friend", Snippet: "months ago", Unread: true}}}, "",
			nil, nil},
		{"a row listed before, scrolled away and back above the known rows, is not news", []SidebarItem{bob}, listedIDs([]SidebarItem{bob}, "c9"),
			Sidebar{Items: []SidebarItem{marked(newcomer)}}, "",
			nil, nil},
		{"a new conversation of our own is not news", []SidebarItem{bob}, listedIDs([]SidebarItem{bob}),
			Sidebar{Items: []SidebarItem{marked(SidebarItem{ID: "c9", Name: "Zoe", Snippet: "You: welcome!", Unread: true})}}, "",
			nil, nil},
		{"a first-time writer already read is not news", []SidebarItem{bob}, listedIDs([]SidebarItem{bob}),
			Sidebar{Items: []SidebarItem{marked(SidebarItem{ID: "c9", Name: "Zoe", Snippet: "hi"})}}, "",
			nil, nil},
		{"a first-time writer on screen is not news here", []SidebarItem{bob}, listedIDs([]SidebarItem{bob}),
			Sidebar{Items: []SidebarItem{marked(newcomer)}}, "c9",
			nil, nil},
		{"the first list is the baseline even with rows above others", nil, nil,
			Sidebar{Full: true, Items: []SidebarItem{newcomer, bob}}, "",
			[]SidebarItem{newcomer, bob}, nil},
		{"after a reload a first-time writer above a known row is news", []SidebarItem{bob, ann}, listedIDs([]SidebarItem{bob, ann}),
			Sidebar{Full: true, Items: []SidebarItem{newcomer, bob, ann}}, "",
			[]SidebarItem{newcomer, bob, ann}, []Incoming{zoe}},
		{"after a reload a known row with a new unread snippet is news", []SidebarItem{bob, ann}, listedIDs([]SidebarItem{bob, ann}),
			Sidebar{Full: true, Items: []SidebarItem{{ID: "c2", Name: "Ann", Snippet: "lunch?", Unread: true}, bob}}, "",
			nil, []Incoming{{Conversation: "c2", Sender: "Ann", Text: "lunch?"}}},
		{"after a reload unread rows never listed below every known row are not news", []SidebarItem{bob, ann}, listedIDs([]SidebarItem{bob, ann}),
			Sidebar{Full: true, Items: []SidebarItem{bob, ann, newcomer}}, "",
			nil, nil},
		{"after a reload the same unread rows are not news", []SidebarItem{{ID: "c2", Name: "Ann", Snippet: "lunch?", Unread: true}, bob}, listedIDs([]SidebarItem{bob, ann}),
			Sidebar{Full: true, Items: []SidebarItem{{ID: "c2", Name: "Ann", Snippet: "lunch?", Unread: true}, bob}}, "",
			nil, nil},
	}
	for _, c := range cases {
		got, news := mergeSidebar(c.old, sidebarPrints(c.old), c.listed, c.ev, c.current)
		if c.want != nil && !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: list = %+v, want %+v", c.name, got, c.want)
		}
		if !reflect.DeepEqual(news, c.incoming) {
			t.Errorf("%s: incoming = %+v, want %+v", c.name, news, c.incoming)
		}
		for _, it := range got {
			if it.AboveKnown {
				t.Errorf("%s: the list keeps a report's aboveKnown mark on %s", c.name, it.ID)
			}
		}
	}
}
