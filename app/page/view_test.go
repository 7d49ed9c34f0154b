package page

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestViewBannersAreKeptPerKeyAndReportedFreshOnlyWhenNew(t *testing.T) {
	var v view
	steps := []struct {
		key, text string
		fresh     bool
		shown     string
	}{
		{"demo", "DEMO", true, "DEMO"},
		{"demo", "DEMO", false, "DEMO"},
		{"config", "not configured", true, "not configured | DEMO"},
		{"config", "still not configured", true, "still not configured | DEMO"},
		{"demo", "", false, "still not configured"},
		{"gone", "", false, "still not configured"},
		{"config", "", false, ""},
	}
	for i, s := range steps {
		if fresh := v.setBanner(s.key, s.text); fresh != s.fresh {
			t.Errorf("step %d: setBanner(%q, %q) fresh = %v, want %v", i, s.key, s.text, fresh, s.fresh)
		}
		if got := v.bannerText(); got != s.shown {
			t.Errorf("step %d: banner = %q, want %q", i, got, s.shown)
		}
	}
	if got := v.bannerCommand(); got != (HideBanner{}) {
		t.Errorf("no banners: command = %#v, want HideBanner", got)
	}
	v.setBanner("k", "warn")
	if got := v.bannerCommand(); got != (ShowBanner{Text: "warn", Level: "warning"}) {
		t.Errorf("one banner: command = %#v, want a warning banner", got)
	}
}

func TestViewStatusPillFollowsTheForegroundConversation(t *testing.T) {
	var v view
	if got := v.statusCommand(); got != (HideStatus{}) {
		t.Fatalf("nothing known: %#v, want HideStatus", got)
	}
	v.setStatus("active", false)
	if got := v.statusCommand(); got != (HideStatus{}) {
		t.Fatalf("a mode but no conversation: %#v, want HideStatus", got)
	}
	if st, conv := v.setPage("conversation", "c1"); st != "" || conv != "" {
		t.Fatalf("first page state replaced %q/%q, want nothing", st, conv)
	}
	if got := v.statusCommand(); got != (SetStatus{ConversationID: "c1", Mode: "active"}) {
		t.Fatalf("conversation c1 in active mode: %#v", got)
	}
	if prev := v.setCurrent("c2"); prev != "c1" {
		t.Fatalf("setCurrent replaced %q, want c1", prev)
	}
	if got := v.statusCommand(); got != (SetStatus{ConversationID: "c2", Mode: "active"}) {
		t.Fatalf("after the switch: %#v", got)
	}
	if !v.setStatus("active", true) || v.setStatus("active", true) {
		t.Fatal("setStatus must report a change of the waiting once")
	}
	if got := v.statusCommand(); got != (SetStatus{ConversationID: "c2", Mode: "active", Waiting: true}) {
		t.Fatalf("waiting for the user's draft: %#v", got)
	}
	if !v.setAutomated(true) || v.setAutomated(true) || !v.isAutomated() {
		t.Fatal("setAutomated must report a change once and keep the flag")
	}
	if got := v.statusCommand(); got != (SetStatus{ConversationID: "c2", Mode: "active", Locked: LockedAutomated}) {
		t.Fatalf("a locked pill never says it waits: %#v", got)
	}
}

func TestViewSidebarNamesComeFromTheMergedList(t *testing.T) {
	var v view
	v.setCurrent("c1")
	v.applySidebar(Sidebar{Full: true, Items: []SidebarItem{{ID: "c1", Name: "Bob"}, {ID: "c2", Name: "Ann", Snippet: "a"}}})
	rows, news, _ := v.applySidebar(Sidebar{Items: []SidebarItem{{ID: "c2", Name: "Ann B", Snippet: "b", Unread: true}}})
	if len(rows) != 2 || rows[0].ID != "c2" || rows[1].ID != "c1" {
		t.Errorf("rows = %+v, want c2 moved above c1", rows)
	}
	if want := []Incoming{{Conversation: "c2", Sender: "Ann B", Text: "b"}}; !reflect.DeepEqual(news, want) {
		t.Errorf("incoming = %+v, want %+v", news, want)
	}
	if got := v.conversationName("c2"); got != "Ann B" {
		t.Errorf("name of c2 = %q, want the renamed Ann B", got)
	}
	if got := v.conversationName("c9"); got != "" {
		t.Errorf("name of an unknown conversation = %q, want empty", got)
	}
}

// The first list of a run is compared with the list the previous run left: a message that
// came while Clanker was not looking (not running, or the page still loading) is news; an
// unread row the previous run saw as it is, or one below every remembered row, is not.
func TestViewFirstListOfARunIsComparedWithTheListThePreviousRunLeft(t *testing.T) {
	bob := SidebarItem{ID: "c1", Name: "Bob", Snippet: "see you"}
	ann := SidebarItem{ID: "c2", Name: "Ann", Snippet: "unread since yesterday", Unread: true}
	cy := SidebarItem{ID: "c3", Name: "Cy", Snippet: "ok"}
	var before view
	before.applySidebar(Sidebar{Full: true, Items: []SidebarItem{bob, ann, cy}})
	_, _, left := before.applySidebar(Sidebar{Items: []SidebarItem{{ID: "c3", Name: "Cy", Snippet: "You: thanks"}}})
	for id, p := range left {
		if p == "" || strings.Contains(p, "thanks") || strings.Contains(p, "see you") {
			t.Fatalf("the kept list holds %q for %s; want a print, not the text", p, id)
		}
	}
	first := Sidebar{Full: true, Items: []SidebarItem{
		{ID: "c9", Name: "Zoe", Snippet: "hi, Zoe here", Unread: true}, // first-time writer, above known rows
		{ID: "c1", Name: "Bob", Snippet: "are you up?", Unread: true},  // new message while Clanker was away
		ann, // unread, but the previous run saw it so
		{ID: "c3", Name: "Cy", Snippet: "You: thanks"},
		{ID: "c8", Name: "Old friend", Snippet: "months ago", Unread: true}, // below every known row
	}}
	v := view{remembered: left}
	_, news, _ := v.applySidebar(first)
	want := []Incoming{{Conversation: "c9", Sender: "Zoe", Text: "hi, Zoe here"}, {Conversation: "c1", Sender: "Bob", Text: "are you up?"}}
	if !reflect.DeepEqual(news, want) {
		t.Errorf("first list against the previous run's: incoming = %+v, want %+v", news, want)
	}
	// Only the first list: the next full list is compared with this run's own.
	if _, news, _ := v.applySidebar(first); len(news) != 0 {
		t.Errorf("the same list again: incoming = %+v, want none", news)
	}
	// Nothing remembered: the first list is the baseline.
	var fresh view
	if _, news, _ := fresh.applySidebar(first); len(news) != 0 {
		t.Errorf("first list with nothing remembered: incoming = %+v, want none", news)
	}
	// Back after a long time: a few notifications, the top rows, not one per conversation.
	many := Sidebar{Full: true}
	old := map[string]string{}
	for i := range 3 * maxFirstListNews {
		id := fmt.Sprintf("k%d", i)
		old[id] = snippetPrint("before")
		many.Items = append(many.Items, SidebarItem{ID: id, Name: id, Snippet: "after", Unread: true})
	}
	w := view{remembered: old}
	if _, news, _ := w.applySidebar(many); len(news) != maxFirstListNews || news[0].Conversation != "k0" {
		t.Errorf("first list with %d changed rows: incoming = %+v, want the top %d", len(many.Items), news, maxFirstListNews)
	}
}
