// The Clanker items of the page's right-click menu (WebKitGTK "context-menu" signal).
// Every function runs on the GTK main thread.
#ifndef CLANKER_CONTEXTMENU_LINUX_H
#define CLANKER_CONTEXTMENU_LINUX_H

#include <gtk/gtk.h>
#include <webkit2/webkit2.h>

// clanker_context_menu_install creates the menu's actions and connects the signal.
// Activating an item calls goContextMenuActivated(name, target) on the main thread.
void clanker_context_menu_install(WebKitWebView *wv);

// clanker_context_menu_set records what the next menu shows: the conversation line,
// the current mode ("deactivated", "available", "active"; anything else checks none),
// whether the mode items are enabled, and the reason line ("" for none).
void clanker_context_menu_set(const char *header, const char *mode, gboolean modes_enabled, const char *reason);

// clanker_context_menu_activate activates one of the menu's actions by name, as a click
// on its item would (target is the mode for "mode", else ignored). It returns FALSE for
// an unknown or disabled action.
gboolean clanker_context_menu_activate(const char *name, const char *target);

#endif
