package macos

import (
	"github.com/clanker-desktop/clanker/app/desktop/menus"
)

// MenuItem is one Clanker item of the page's right-click menu, as the Objective-C side
// builds it into an NSMenuItem.
type MenuItem struct {
	Label string
	// Action is the name a click reports (menus.Actions.ContextItem's names: "mode",
	// "settings", "diag-state" ...); "" for a line of text that cannot be clicked.
	Action string
	// Target is the mode a mode item sets ("" for the others).
	Target    string
	Enabled   bool
	Checked   bool
	Separator bool
	Submenu   []MenuItem
}

// ContextItems are the Clanker items appended to the page's right-click menu for the
// state c: the same items, in the same order, as on Linux, so a user finds the same
// menu on either system. The mode items are check items with exactly one checked.
func ContextItems(c menus.ContextMenuState) []MenuItem {
	header := c.Header
	if header == "" {
		header = "Clanker"
	}
	items := []MenuItem{
		{Separator: true},
		{Label: header},
	}
	for _, m := range menus.Modes {
		items = append(items, MenuItem{
			Label:   menus.ModeLabel(m),
			Action:  "mode",
			Target:  string(m),
			Enabled: c.ModesEnabled,
			Checked: string(m) == c.Mode,
		})
	}
	if c.Reason != "" {
		items = append(items, MenuItem{Label: c.Reason})
	}
	items = append(items,
		MenuItem{Separator: true},
		MenuItem{Label: "Settings...", Action: "settings", Enabled: true},
		MenuItem{Label: "Diagnostics", Enabled: true, Submenu: []MenuItem{
			{Label: "Show conversation state", Action: "diag-state", Enabled: true},
			{Label: "Show sanitised state", Action: "diag-sanitised", Enabled: true},
			{Label: "Deactivate in all conversations", Action: "deactivate-all", Enabled: true},
			{Label: "Purge conversation state", Action: "purge-conversation", Enabled: true},
			{Label: "Purge all state data...", Action: "purge-all", Enabled: true},
		}},
	)
	return items
}

// FlatItem is a MenuItem laid out for the Objective-C side, which reads a flat array:
// an item with Opens set starts a submenu, and the items after it with a greater Depth
// belong to that submenu.
type FlatItem struct {
	Label     string
	Action    string
	Target    string
	Enabled   bool
	Checked   bool
	Separator bool
	Opens     bool
	Depth     int
}

// Flatten lays items out depth first.
func Flatten(items []MenuItem) []FlatItem {
	var out []FlatItem
	var walk func([]MenuItem, int)
	walk = func(items []MenuItem, depth int) {
		for _, it := range items {
			out = append(out, FlatItem{
				Label: it.Label, Action: it.Action, Target: it.Target, Enabled: it.Enabled,
				Checked: it.Checked, Separator: it.Separator, Opens: len(it.Submenu) > 0, Depth: depth,
			})
			walk(it.Submenu, depth+1)
		}
	}
	walk(items, 0)
	return out
}

// droppedWebKitItems are WebKit's own right-click items that make no sense in Clanker's
// window, by their NSMenuItem identifiers (WebKit's WKMenuItemIdentifiers): navigation,
// opening or downloading links, images and media in windows Clanker does not have, full
// screen video, and the inspector. Editing, clipboard, spelling, Look Up, Translate,
// Speech and Share stay.
var droppedWebKitItems = map[string]bool{
	"WKMenuItemIdentifierGoBack":                   true,
	"WKMenuItemIdentifierGoForward":                true,
	"WKMenuItemIdentifierReload":                   true,
	"WKMenuItemIdentifierOpenLink":                 true,
	"WKMenuItemIdentifierOpenLinkInNewWindow":      true,
	"WKMenuItemIdentifierDownloadLinkedFile":       true,
	"WKMenuItemIdentifierOpenImageInNewWindow":     true,
	"WKMenuItemIdentifierDownloadImage":            true,
	"WKMenuItemIdentifierOpenMediaInNewWindow":     true,
	"WKMenuItemIdentifierDownloadMedia":            true,
	"WKMenuItemIdentifierOpenFrameInNewWindow":     true,
	"WKMenuItemIdentifierToggleFullScreen":         true,
	"WKMenuItemIdentifierToggleEnhancedFullScreen": true,
	"WKMenuItemIdentifierToggleVideoViewer":        true,
	"WKMenuItemIdentifierInspectElement":           true,
}

// KeepWebKitItems says which of WebKit's own items stay in the menu, given each item's
// identifier and whether it is a separator: the dropped items go, and so do the
// separators the dropping leaves at the start, at the end or next to each other.
func KeepWebKitItems(identifiers []string, separators []bool) []bool {
	keep := make([]bool, len(identifiers))
	prevSep := true // a separator at the start goes
	last := -1
	for i, id := range identifiers {
		sep := i < len(separators) && separators[i]
		switch {
		case sep && prevSep:
		case sep:
			keep[i], prevSep, last = true, true, i
		case droppedWebKitItems[id]:
		default:
			keep[i], prevSep, last = true, false, i
		}
	}
	if last >= 0 && prevSep {
		keep[last] = false // a separator at the end goes
	}
	return keep
}
