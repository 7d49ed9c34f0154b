// The Clanker items of the page's right-click menu on macOS. Every function here runs on
// the main thread.
#ifndef CLANKER_CONTEXTMENU_DARWIN_H
#define CLANKER_CONTEXTMENU_DARWIN_H

#include <stdint.h>

// Flags of one item, as Go lays the items out (macos.FlatItem).
enum {
    CLANKER_MAC_ITEM_ENABLED = 1,
    CLANKER_MAC_ITEM_CHECKED = 2,
    CLANKER_MAC_ITEM_SEPARATOR = 4,
    CLANKER_MAC_ITEM_OPENS = 8,
};

// clanker_mac_context_menu_install makes the view add the Clanker items to every
// right-click menu it opens (and drop WebKit's items that make no sense in Clanker). It
// returns 0 when the view has no menu hook to stand in front of.
int clanker_mac_context_menu_install(void *webview);

// clanker_mac_context_menu_set replaces the items the next menu shows. An item with
// CLANKER_MAC_ITEM_OPENS starts a submenu holding the items after it of greater depth.
void clanker_mac_context_menu_set(int n, char **labels, char **actions, char **targets, const uint8_t *flags,
                                  const int *depths);

// clanker_mac_context_menu_activate builds the items into a menu and performs the enabled
// item named (for "mode", the item whose target is target) as a click on it would. It
// returns 0 when there is no such enabled item.
int clanker_mac_context_menu_activate(const char *name, const char *target);

#endif
