package page

import (
	"reflect"
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
	v.setStatus("active")
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
	if !v.setAutomated(true) || v.setAutomated(true) || !v.isAutomated() {
		t.Fatal("setAutomated must report a change once and keep the flag")
	}
}

func TestViewSidebarNamesComeFromTheMergedList(t *testing.T) {
	var v view
	v.setCurrent("c1")
	v.applySidebar(Sidebar{Full: true, Items: []SidebarItem{{ID: "c1", Name: "Bob"}, {ID: "c2", Name: "Ann", Snippet: "a"}}})
	rows, news := v.applySidebar(Sidebar{Items: []SidebarItem{{ID: "c2", Name: "Ann B", Snippet: "b", Unread: true}}})
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
