// Native GTK glue for the app menu bar, zoom, editing commands and the menu read-back
// used by tests and diagnostics. Every function runs on the GTK main thread.
#ifndef CLANKER_APPMENU_LINUX_H
#define CLANKER_APPMENU_LINUX_H

#include <gtk/gtk.h>
#include <webkit2/webkit2.h>

// Flags of one Clanker menu item handed to clanker_appmenu_sync.
enum {
    CLANKER_ITEM_DISABLED = 1,
    CLANKER_ITEM_HIDDEN = 2,
    CLANKER_ITEM_RADIO = 4,
    CLANKER_ITEM_CHECKED = 8,
    CLANKER_ITEM_SEPARATOR = 16,
    CLANKER_ITEM_SUBMENU = 32,
};

// clanker_appmenu_sync copies the state of the n items of the menu bar's first menu
// (labels[i], flags[i]) into its GTK widgets. It returns the number of widgets found
// in that menu, or -1 when the window has no menu bar; on a count mismatch nothing is
// changed.
int clanker_appmenu_sync(WebKitWebView *wv, int n, char **labels, const guchar *flags);

// clanker_menu_dump describes a menu as text, one line per item: depth, kind, flags
// (s sensitive, v visible, a active, p selected), accelerator and label, tab-separated. which is 0
// for the window's menu bar and 1 for the popup menus currently shown. The caller frees
// the result with g_free.
char *clanker_menu_dump(WebKitWebView *wv, int which);

void clanker_set_zoom(WebKitWebView *wv, double level);
double clanker_get_zoom(WebKitWebView *wv);

// clanker_edit runs one of WebKit's editing commands (Undo, Redo, Cut, Copy, Paste,
// SelectAll) in the focused frame.
void clanker_edit(WebKitWebView *wv, const char *command);

#endif
