#include <string.h>
#include "appmenu_linux.h"

static GtkWidget *find_menubar(GtkWidget *w)
{
    if (GTK_IS_MENU_BAR(w))
        return w;
    if (!GTK_IS_CONTAINER(w))
        return NULL;
    GtkWidget *found = NULL;
    GList *children = gtk_container_get_children(GTK_CONTAINER(w));
    for (GList *l = children; l != NULL && found == NULL; l = l->next)
        found = find_menubar(GTK_WIDGET(l->data));
    g_list_free(children);
    return found;
}

static GtkWidget *window_menubar(WebKitWebView *wv)
{
    GtkWidget *top = gtk_widget_get_toplevel(GTK_WIDGET(wv));
    if (!GTK_IS_WINDOW(top))
        return NULL;
    return find_menubar(top);
}

// block_activate blocks every handler of item's "activate" that is not blocked yet and
// returns their ids (ended by 0) for unblock_activate. It finds them one at a time:
// g_signal_handlers_block_matched blocks nothing when matched on the signal alone (GLib
// needs a closure, function or data in the mask), and the handlers are Wails' (its click
// handler), whose function and data are not this code's to know.
static gulong *block_activate(GtkWidget *item, guint sig)
{
    guint n = 0, cap = 4;
    gulong *ids = g_new0(gulong, cap + 1);
    gulong id;
    while ((id = g_signal_handler_find(item, G_SIGNAL_MATCH_ID | G_SIGNAL_MATCH_UNBLOCKED, sig, 0, NULL, NULL, NULL)) != 0) {
        g_signal_handler_block(item, id);
        if (n == cap) {
            cap *= 2;
            ids = g_renew(gulong, ids, cap + 1);
        }
        ids[n++] = id;
        ids[n] = 0;
    }
    return ids;
}

static void unblock_activate(GtkWidget *item, gulong *ids)
{
    for (gulong *id = ids; *id != 0; id++)
        g_signal_handler_unblock(item, *id);
    g_free(ids);
}

// set_radio_active checks one radio item without running the "activate" handlers
// (Wails' click handler) of any item in its group: GTK activates both the newly
// checked item and the one it unchecks, and a handler run here would take the redraw
// for the user choosing that mode.
static void set_radio_active(GtkWidget *item)
{
    if (!GTK_IS_RADIO_MENU_ITEM(item) || gtk_check_menu_item_get_active(GTK_CHECK_MENU_ITEM(item)))
        return;
    guint sig = g_signal_lookup("activate", GTK_TYPE_MENU_ITEM);
    GSList *group = g_slist_copy(gtk_radio_menu_item_get_group(GTK_RADIO_MENU_ITEM(item)));
    GSList *blocked = NULL;
    for (GSList *l = group; l != NULL; l = l->next)
        blocked = g_slist_prepend(blocked, block_activate(GTK_WIDGET(l->data), sig));
    blocked = g_slist_reverse(blocked);
    gtk_check_menu_item_set_active(GTK_CHECK_MENU_ITEM(item), TRUE);
    GSList *b = blocked;
    for (GSList *l = group; l != NULL; l = l->next, b = b->next)
        unblock_activate(GTK_WIDGET(l->data), b->data);
    g_slist_free(blocked);
    g_slist_free(group);
}

int clanker_appmenu_sync(WebKitWebView *wv, int n, char **labels, const guchar *flags)
{
    GtkWidget *bar = window_menubar(wv);
    if (bar == NULL)
        return -1;
    GList *tops = gtk_container_get_children(GTK_CONTAINER(bar));
    GtkWidget *sub = tops != NULL ? gtk_menu_item_get_submenu(GTK_MENU_ITEM(tops->data)) : NULL;
    g_list_free(tops);
    if (sub == NULL)
        return -1;
    GList *items = gtk_container_get_children(GTK_CONTAINER(sub));
    int count = (int)g_list_length(items);
    if (count == n) {
        int i = 0;
        for (GList *l = items; l != NULL; l = l->next, i++) {
            GtkWidget *w = GTK_WIDGET(l->data);
            guchar f = flags[i];
            gtk_widget_set_visible(w, !(f & CLANKER_ITEM_HIDDEN));
            if (f & CLANKER_ITEM_SEPARATOR)
                continue;
            if (!(f & CLANKER_ITEM_SUBMENU) && labels[i] != NULL) {
                const char *cur = gtk_menu_item_get_label(GTK_MENU_ITEM(w));
                if (cur == NULL || strcmp(cur, labels[i]) != 0)
                    gtk_menu_item_set_label(GTK_MENU_ITEM(w), labels[i]);
            }
            gtk_widget_set_sensitive(w, !(f & CLANKER_ITEM_DISABLED));
            if ((f & CLANKER_ITEM_RADIO) && (f & CLANKER_ITEM_CHECKED))
                set_radio_active(w);
        }
    }
    g_list_free(items);
    return count;
}

static gboolean same_closure(GtkAccelKey *key, GClosure *closure, gpointer data)
{
    return closure == data;
}

// item_accel names the first accelerator bound to the item's "activate" (the binding
// itself, as the window's accel group holds it), or "".
static char *item_accel(GtkWidget *w)
{
    char *name = NULL;
    GList *closures = gtk_widget_list_accel_closures(w);
    for (GList *l = closures; l != NULL && name == NULL; l = l->next) {
        GtkAccelGroup *group = gtk_accel_group_from_accel_closure(l->data);
        if (group == NULL)
            continue;
        GtkAccelKey *key = gtk_accel_group_find(group, same_closure, l->data);
        if (key != NULL && key->accel_key != 0)
            name = gtk_accelerator_name(key->accel_key, key->accel_mods);
    }
    g_list_free(closures);
    return name != NULL ? name : g_strdup("");
}

static void dump_shell(GString *out, GtkWidget *shell, int depth)
{
    GtkWidget *selected = gtk_menu_shell_get_selected_item(GTK_MENU_SHELL(shell));
    GList *items = gtk_container_get_children(GTK_CONTAINER(shell));
    for (GList *l = items; l != NULL; l = l->next) {
        GtkWidget *w = GTK_WIDGET(l->data);
        if (!GTK_IS_MENU_ITEM(w))
            continue;
        const char *kind = "item";
        if (GTK_IS_SEPARATOR_MENU_ITEM(w))
            kind = "separator";
        else if (GTK_IS_RADIO_MENU_ITEM(w))
            kind = "radio";
        else if (GTK_IS_CHECK_MENU_ITEM(w)) {
            // GtkMenu built from a GMenuModel (WebKit's context menu) uses check items
            // for radio and check actions alike; draw-as-radio tells them apart.
            kind = gtk_check_menu_item_get_draw_as_radio(GTK_CHECK_MENU_ITEM(w)) ? "radio" : "check";
        }
        GtkWidget *sub = gtk_menu_item_get_submenu(GTK_MENU_ITEM(w));
        if (sub != NULL)
            kind = "submenu";
        gboolean active = GTK_IS_CHECK_MENU_ITEM(w) && gtk_check_menu_item_get_active(GTK_CHECK_MENU_ITEM(w));
        char *accel = item_accel(w);
        const char *label = gtk_menu_item_get_label(GTK_MENU_ITEM(w));
        char *clean = g_strdup(label ? label : "");
        g_strdelimit(clean, "\t\n", ' ');
        g_string_append_printf(out, "%d\t%s\t%s%s%s%s\t%s\t%s\n", depth, kind,
                               gtk_widget_is_sensitive(w) ? "s" : "",
                               gtk_widget_get_visible(w) ? "v" : "",
                               active ? "a" : "", w == selected ? "p" : "", accel, clean);
        g_free(clean);
        g_free(accel);
        if (sub != NULL)
            dump_shell(out, sub, depth + 1);
    }
    g_list_free(items);
}

static void find_menus(GtkWidget *w, GList **found)
{
    if (GTK_IS_MENU(w)) {
        *found = g_list_append(*found, w);
        return;
    }
    if (!GTK_IS_CONTAINER(w))
        return;
    GList *children = gtk_container_get_children(GTK_CONTAINER(w));
    for (GList *l = children; l != NULL; l = l->next)
        find_menus(GTK_WIDGET(l->data), found);
    g_list_free(children);
}

char *clanker_menu_dump(WebKitWebView *wv, int which)
{
    GString *out = g_string_new("");
    if (which == 0) {
        GtkWidget *bar = window_menubar(wv);
        if (bar != NULL)
            dump_shell(out, bar, 0);
        return g_string_free(out, FALSE);
    }
    GList *tops = gtk_window_list_toplevels();
    for (GList *l = tops; l != NULL; l = l->next) {
        GtkWidget *top = GTK_WIDGET(l->data);
        if (!gtk_widget_get_mapped(top) || gtk_window_get_window_type(GTK_WINDOW(top)) != GTK_WINDOW_POPUP)
            continue;
        GList *menus = NULL;
        find_menus(top, &menus);
        for (GList *m = menus; m != NULL; m = m->next) {
            if (gtk_widget_get_mapped(GTK_WIDGET(m->data))) {
                g_string_append(out, "menu\n");
                dump_shell(out, GTK_WIDGET(m->data), 0);
            }
        }
        g_list_free(menus);
    }
    g_list_free(tops);
    return g_string_free(out, FALSE);
}

void clanker_set_zoom(WebKitWebView *wv, double level)
{
    webkit_web_view_set_zoom_level(wv, level);
}

double clanker_get_zoom(WebKitWebView *wv)
{
    return webkit_web_view_get_zoom_level(wv);
}

void clanker_edit(WebKitWebView *wv, const char *command)
{
    webkit_web_view_execute_editing_command(wv, command);
}
