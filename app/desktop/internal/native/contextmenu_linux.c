#include <string.h>
#include "contextmenu_linux.h"
#include "_cgo_export.h"

// The actions live as long as the process; each menu shown gets fresh items bound to them.
// The mode items are three boolean-state actions, shown as check items of which exactly
// one is checked. Radio items (one string-state action with a target per item) would
// be the natural model, but WebKitGTK 2.50 leaves items with a target out of the menu.
static GSimpleAction *act_modes[3];
static const char *mode_names[3] = {"deactivated", "available", "active"};
static GSimpleAction *act_none, *act_settings, *act_diag_state, *act_diag_sanitised,
    *act_deactivate_all, *act_purge_conversation, *act_purge_all;
static char *header_label, *reason_label;

static void on_activate(GSimpleAction *action, GVariant *param, gpointer name)
{
    const char *target = "";
    if (param != NULL && g_variant_is_of_type(param, G_VARIANT_TYPE_STRING))
        target = g_variant_get_string(param, NULL);
    // Go hands the work to a goroutine: nothing here may block the main loop.
    goContextMenuActivated((char *)name, (char *)target);
}

// new_action names the action "clanker-<name>" (WebKit puts it in one group with its
// own actions) and reports it to Go as name.
static void on_mode_activate(GSimpleAction *action, GVariant *param, gpointer mode)
{
    goContextMenuActivated("mode", (char *)mode);
}

static GSimpleAction *new_action(const char *name)
{
    char *full = g_strconcat("clanker-", name, NULL);
    GSimpleAction *a = g_simple_action_new(full, NULL);
    g_free(full);
    g_object_set_data(G_OBJECT(a), "clanker-name", (gpointer)name);
    g_signal_connect(a, "activate", G_CALLBACK(on_activate), (gpointer)name);
    return a;
}

// keep says which of WebKit's own items stay: editing, clipboard, spelling and input
// methods. Navigation (Back, Forward, Stop, Reload), Inspect, opening or downloading
// links and media make no sense in this window and go.
static gboolean keep(WebKitContextMenuAction a)
{
    switch (a) {
    case WEBKIT_CONTEXT_MENU_ACTION_NO_ACTION: // separators; tidied afterwards
    case WEBKIT_CONTEXT_MENU_ACTION_COPY_LINK_TO_CLIPBOARD:
    case WEBKIT_CONTEXT_MENU_ACTION_COPY_IMAGE_TO_CLIPBOARD:
    case WEBKIT_CONTEXT_MENU_ACTION_COPY_IMAGE_URL_TO_CLIPBOARD:
    case WEBKIT_CONTEXT_MENU_ACTION_COPY:
    case WEBKIT_CONTEXT_MENU_ACTION_CUT:
    case WEBKIT_CONTEXT_MENU_ACTION_PASTE:
    case WEBKIT_CONTEXT_MENU_ACTION_DELETE:
    case WEBKIT_CONTEXT_MENU_ACTION_SELECT_ALL:
    case WEBKIT_CONTEXT_MENU_ACTION_INPUT_METHODS:
    case WEBKIT_CONTEXT_MENU_ACTION_UNICODE:
    case WEBKIT_CONTEXT_MENU_ACTION_SPELLING_GUESS:
    case WEBKIT_CONTEXT_MENU_ACTION_NO_GUESSES_FOUND:
    case WEBKIT_CONTEXT_MENU_ACTION_IGNORE_SPELLING:
    case WEBKIT_CONTEXT_MENU_ACTION_LEARN_SPELLING:
    case WEBKIT_CONTEXT_MENU_ACTION_IGNORE_GRAMMAR:
    case WEBKIT_CONTEXT_MENU_ACTION_INSERT_EMOJI:
    case WEBKIT_CONTEXT_MENU_ACTION_PASTE_AS_PLAIN_TEXT:
        return TRUE;
    default:
        return FALSE;
    }
}

static gboolean is_separator(WebKitContextMenuItem *item)
{
    return webkit_context_menu_item_is_separator(item);
}

// tidy drops leading, trailing and doubled separators left by the filtering.
static void tidy(WebKitContextMenu *menu)
{
    GList *items = g_list_copy(webkit_context_menu_get_items(menu));
    gboolean prev_sep = TRUE; // a separator at the start is dropped
    for (GList *l = items; l != NULL; l = l->next) {
        WebKitContextMenuItem *item = l->data;
        gboolean sep = is_separator(item);
        if (sep && prev_sep)
            webkit_context_menu_remove(menu, item);
        else
            prev_sep = sep;
    }
    g_list_free(items);
    guint n = webkit_context_menu_get_n_items(menu);
    if (n > 0) {
        WebKitContextMenuItem *last = webkit_context_menu_get_item_at_position(menu, n - 1);
        if (is_separator(last))
            webkit_context_menu_remove(menu, last);
    }
}

static void append_action(WebKitContextMenu *menu, GSimpleAction *a, const char *label)
{
    webkit_context_menu_append(menu, webkit_context_menu_item_new_from_gaction(G_ACTION(a), label, NULL));
}

static gboolean on_context_menu(WebKitWebView *wv, WebKitContextMenu *menu, GdkEvent *event,
                                WebKitHitTestResult *hit, gpointer data)
{
    GList *items = g_list_copy(webkit_context_menu_get_items(menu));
    for (GList *l = items; l != NULL; l = l->next) {
        WebKitContextMenuItem *item = l->data;
        if (!keep(webkit_context_menu_item_get_stock_action(item)))
            webkit_context_menu_remove(menu, item);
    }
    g_list_free(items);
    tidy(menu);
    if (webkit_context_menu_get_n_items(menu) > 0)
        webkit_context_menu_append(menu, webkit_context_menu_item_new_separator());

    append_action(menu, act_none, header_label ? header_label : "Clanker");
    append_action(menu, act_modes[0], "Deactivated");
    append_action(menu, act_modes[1], "Available");
    append_action(menu, act_modes[2], "Active");
    if (reason_label != NULL && *reason_label)
        append_action(menu, act_none, reason_label);
    webkit_context_menu_append(menu, webkit_context_menu_item_new_separator());
    append_action(menu, act_settings, "Settings...");

    WebKitContextMenu *diag = webkit_context_menu_new();
    append_action(diag, act_diag_state, "Show conversation state");
    append_action(diag, act_diag_sanitised, "Show sanitised state");
    append_action(diag, act_deactivate_all, "Deactivate in all conversations");
    append_action(diag, act_purge_conversation, "Purge conversation state");
    append_action(diag, act_purge_all, "Purge all state data...");
    webkit_context_menu_append(menu, webkit_context_menu_item_new_with_submenu("Diagnostics", diag));
    return FALSE; // show it
}

void clanker_context_menu_install(WebKitWebView *wv)
{
    if (act_none == NULL) {
        for (int i = 0; i < 3; i++) {
            char *n = g_strconcat("clanker-mode-", mode_names[i], NULL);
            act_modes[i] = g_simple_action_new_stateful(n, NULL, g_variant_new_boolean(FALSE));
            g_free(n);
            g_object_set_data(G_OBJECT(act_modes[i]), "clanker-name", (gpointer)mode_names[i]);
            g_signal_connect(act_modes[i], "activate", G_CALLBACK(on_mode_activate), (gpointer)mode_names[i]);
        }
        act_none = g_simple_action_new("clanker-label", NULL);
        g_simple_action_set_enabled(act_none, FALSE);
        act_settings = new_action("settings");
        act_diag_state = new_action("diag-state");
        act_diag_sanitised = new_action("diag-sanitised");
        act_deactivate_all = new_action("deactivate-all");
        act_purge_conversation = new_action("purge-conversation");
        act_purge_all = new_action("purge-all");
    }
    g_signal_connect(wv, "context-menu", G_CALLBACK(on_context_menu), NULL);
}

void clanker_context_menu_set(const char *header, const char *mode, gboolean modes_enabled, const char *reason)
{
    g_free(header_label);
    header_label = g_strdup(header);
    g_free(reason_label);
    reason_label = g_strdup(reason);
    if (act_none != NULL) {
        for (int i = 0; i < 3; i++) {
            g_simple_action_set_state(act_modes[i], g_variant_new_boolean(strcmp(mode, mode_names[i]) == 0));
            g_simple_action_set_enabled(act_modes[i], modes_enabled);
        }
    }
}

gboolean clanker_context_menu_activate(const char *name, const char *target)
{
    // A mode item is named by its mode (the target); the others by name.
    const char *want = strcmp(name, "mode") == 0 ? target : name;
    GSimpleAction *all[] = {act_modes[0], act_modes[1], act_modes[2], act_settings, act_diag_state,
                            act_diag_sanitised, act_deactivate_all, act_purge_conversation, act_purge_all};
    for (size_t i = 0; i < G_N_ELEMENTS(all); i++) {
        GSimpleAction *a = all[i];
        if (a == NULL || !g_action_get_enabled(G_ACTION(a)))
            continue;
        const char *n = g_object_get_data(G_OBJECT(a), "clanker-name");
        if (n == NULL || strcmp(n, want) != 0)
            continue;
        g_action_activate(G_ACTION(a), NULL);
        return TRUE;
    }
    return FALSE;
}
