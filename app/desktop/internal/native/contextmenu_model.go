package native

import "github.com/clanker-desktop/clanker/app/desktop/menus"

// The model of the page's right-click menu where the platform builds it item by item
// (WebView2's ContextMenuRequested on Windows): which of the web view's own items stay,
// and the Clanker items added after them. It has no platform code, so it is tested on
// every OS. The Linux menu (contextmenu_linux.c) shows the same items.

// ctxKind is the kind of a context-menu item, numbered as WebView2's
// COREWEBVIEW2_CONTEXT_MENU_ITEM_KIND.
type ctxKind int32

const (
	ctxCommand   ctxKind = 0
	ctxCheckBox  ctxKind = 1
	ctxSeparator ctxKind = 3
	ctxSubmenu   ctxKind = 4
)

// ctxItem is one Clanker item of the right-click menu. Action and Target are what
// Events.ContextMenuActivated reports for a click ("" Action: a label that does nothing).
type ctxItem struct {
	Label    string
	Kind     ctxKind
	Enabled  bool
	Checked  bool
	Action   string
	Target   string
	Children []ctxItem
}

// clankerContextItems are the Clanker items for state c, in menu order: a separator
// when the web view's own items come before them (afterOthers), the header, the three
// mode check items (exactly one checked), the reason they are locked when they are, a
// separator, Settings..., and the Diagnostics submenu.
func clankerContextItems(c menus.ContextMenuState, afterOthers bool) []ctxItem {
	header := c.Header
	if header == "" {
		header = "Clanker"
	}
	var items []ctxItem
	if afterOthers {
		items = append(items, ctxItem{Kind: ctxSeparator})
	}
	items = append(items, ctxItem{Label: header, Kind: ctxCommand})
	for _, m := range menus.Modes {
		items = append(items, ctxItem{Label: menus.ModeLabel(m), Kind: ctxCheckBox,
			Enabled: c.ModesEnabled, Checked: string(m) == c.Mode, Action: "mode", Target: string(m)})
	}
	if c.Reason != "" {
		items = append(items, ctxItem{Label: c.Reason, Kind: ctxCommand})
	}
	items = append(items,
		ctxItem{Kind: ctxSeparator},
		ctxItem{Label: "Settings...", Kind: ctxCommand, Enabled: true, Action: "settings"},
		ctxItem{Label: "Diagnostics", Kind: ctxSubmenu, Enabled: true, Children: []ctxItem{
			{Label: "Show conversation state", Kind: ctxCommand, Enabled: true, Action: "diag-state"},
			{Label: "Show sanitised state", Kind: ctxCommand, Enabled: true, Action: "diag-sanitised"},
			{Label: "Deactivate in all conversations", Kind: ctxCommand, Enabled: true, Action: "deactivate-all"},
			{Label: "Purge conversation state", Kind: ctxCommand, Enabled: true, Action: "purge-conversation"},
			{Label: "Purge all state data...", Kind: ctxCommand, Enabled: true, Action: "purge-all"},
		}},
	)
	return items
}

// findContextItem finds the enabled item that reports (action, target), searching
// submenus too.
func findContextItem(items []ctxItem, action, target string) (ctxItem, bool) {
	for _, it := range items {
		if it.Action != "" && it.Enabled && it.Action == action && it.Target == target {
			return it, true
		}
		if found, ok := findContextItem(it.Children, action, target); ok && it.Enabled {
			return found, true
		}
	}
	return ctxItem{}, false
}

// webViewItem is one of the web view's own right-click items: its WebView2 name
// (ICoreWebView2ContextMenuItem::get_Name) and whether it is a separator.
type webViewItem struct {
	Name      string
	Separator bool
}

// keptWebViewItems names the web view's own items that stay in the menu: editing,
// the clipboard, emoji and spelling. WebView2 names spelling suggestions "other", with
// every item it gives no name of its own. Navigation (back, forward, reload), printing,
// saving, opening links in new windows, sharing and Inspect make no sense in this window
// and go, as on Linux.
var keptWebViewItems = map[string]bool{
	"undo": true, "redo": true, "cut": true, "copy": true, "paste": true,
	"pasteAndMatchStyle": true, "selectAll": true, "emoji": true,
	"copyLinkLocation": true, "copyImage": true, "copyImageLocation": true,
	"other": true,
}

// webViewItemsToRemove returns the indices of the web view's items to remove, highest
// first (so removing them in order keeps the rest in place): the items not kept, and the
// separators the removal leaves at the start, at the end or next to another separator.
func webViewItemsToRemove(items []webViewItem) []int {
	keep := make([]bool, len(items))
	prevSep := true // a separator at the very start goes
	for i, it := range items {
		switch {
		case it.Separator:
			keep[i] = !prevSep
			prevSep = true
		case keptWebViewItems[it.Name]:
			keep[i] = true
			prevSep = false
		}
	}
	// A separator left at the end goes too.
	for i := len(items) - 1; i >= 0; i-- {
		if !keep[i] {
			continue
		}
		if items[i].Separator {
			keep[i] = false
		}
		break
	}
	var remove []int
	for i := len(items) - 1; i >= 0; i-- {
		if !keep[i] {
			remove = append(remove, i)
		}
	}
	return remove
}
