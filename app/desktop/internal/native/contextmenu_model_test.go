package native

import (
	"reflect"
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/app/desktop/menus"
)

func labels(items []ctxItem) []string {
	var out []string
	for _, it := range items {
		l := it.Label
		switch it.Kind {
		case ctxSeparator:
			l = "---"
		case ctxCheckBox:
			box := "[ ]"
			if it.Checked {
				box = "[x]"
			}
			l = box + " " + l
		case ctxSubmenu:
			l += " > " + strings.Join(labels(it.Children), " | ")
		}
		if !it.Enabled && it.Kind != ctxSeparator {
			l += " (disabled)"
		}
		out = append(out, l)
	}
	return out
}

func TestClankerItemsShowTheModeChecked(t *testing.T) {
	got := labels(clankerContextItems(menus.ContextMenuState{Header: "Clanker · Bob: Available", Mode: "available", ModesEnabled: true}, true))
	want := []string{"---", "Clanker · Bob: Available (disabled)", "[ ] Deactivated", "[x] Available", "[ ] Active", "---", "Settings...",
		"Diagnostics > Show conversation state | Show sanitised state | Deactivate in all conversations | Purge conversation state | Purge all state data..."}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("items:\n got %q\nwant %q", got, want)
	}
}

func TestLockedModesAreDisabledWithTheReasonUnderThem(t *testing.T) {
	items := clankerContextItems(menus.ContextMenuState{Header: "Clanker · no conversation", Mode: "deactivated", Reason: "Open a conversation first."}, false)
	got := labels(items)
	want := []string{"Clanker · no conversation (disabled)", "[x] Deactivated (disabled)", "[ ] Available (disabled)", "[ ] Active (disabled)",
		"Open a conversation first. (disabled)", "---", "Settings..."}
	if !reflect.DeepEqual(got[:len(want)], want) {
		t.Fatalf("items:\n got %q\nwant %q...", got, want)
	}
	if _, ok := findContextItem(items, "mode", "active"); ok {
		t.Error("a disabled mode item was found as clickable")
	}
	if it, ok := findContextItem(items, "purge-all", ""); !ok || it.Label != "Purge all state data..." {
		t.Errorf("the Diagnostics submenu's purge-all item was not found: %+v %v", it, ok)
	}
}

func TestEveryClankerActionIsOneTheMenusUnderstand(t *testing.T) {
	// The actions are those menus.Actions.ContextItem runs; a typo would be a dead item.
	known := map[string]bool{"mode": true, "settings": true, "diag-state": true, "diag-sanitised": true,
		"deactivate-all": true, "purge-conversation": true, "purge-all": true}
	var walk func([]ctxItem)
	walk = func(items []ctxItem) {
		for _, it := range items {
			if it.Action != "" && !known[it.Action] {
				t.Errorf("item %q reports unknown action %q", it.Label, it.Action)
			}
			walk(it.Children)
		}
	}
	walk(clankerContextItems(menus.ContextMenuState{ModesEnabled: true}, true))
}

func TestTheWebViewsOwnItemsAreFilteredAndSeparatorsTidied(t *testing.T) {
	sep := webViewItem{Separator: true}
	items := []webViewItem{
		{Name: "back"}, {Name: "forward"}, {Name: "reload"}, sep, // 0-3: navigation goes, its separator too
		{Name: "other"}, {Name: "other"}, sep, // 4-6: spelling suggestions stay
		{Name: "undo"}, {Name: "redo"}, sep, sep, // 7-10: a doubled separator is halved
		{Name: "cut"}, {Name: "copy"}, {Name: "paste"}, {Name: "selectAll"}, sep, // 11-15
		{Name: "saveAs"}, {Name: "print"}, sep, {Name: "inspectElement"}, // 16-19: all go, with the trailing separator
	}
	got := webViewItemsToRemove(items)
	want := []int{19, 18, 17, 16, 15, 10, 3, 2, 1, 0}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("remove %v; want %v", got, want)
	}
	if r := webViewItemsToRemove(nil); len(r) != 0 {
		t.Errorf("an empty menu removes %v", r)
	}
	if r := webViewItemsToRemove([]webViewItem{sep, {Name: "copy"}}); !reflect.DeepEqual(r, []int{0}) {
		t.Errorf("a leading separator: remove %v; want [0]", r)
	}
}
