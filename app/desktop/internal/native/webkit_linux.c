#include <string.h>
#include "webkit_linux.h"
#include "_cgo_export.h"

static gboolean run_job(gpointer data)
{
    goRunJob((guint64)(guintptr)data);
    return G_SOURCE_REMOVE;
}

void clanker_schedule(guint64 job)
{
    g_idle_add(run_job, (gpointer)(guintptr)job);
}

static WebKitWebView *find_in(GtkWidget *w)
{
    if (WEBKIT_IS_WEB_VIEW(w))
        return WEBKIT_WEB_VIEW(w);
    if (!GTK_IS_CONTAINER(w))
        return NULL;
    WebKitWebView *found = NULL;
    GList *children = gtk_container_get_children(GTK_CONTAINER(w));
    for (GList *l = children; l != NULL && found == NULL; l = l->next)
        found = find_in(GTK_WIDGET(l->data));
    g_list_free(children);
    return found;
}

WebKitWebView *clanker_find_webview(void)
{
    WebKitWebView *found = NULL;
    GList *tops = gtk_window_list_toplevels();
    for (GList *l = tops; l != NULL && found == NULL; l = l->next)
        found = find_in(GTK_WIDGET(l->data));
    g_list_free(tops);
    return found;
}

// ---- popups (window.open, e.g. Google sign-in) ----

static void popup_ready(WebKitWebView *popup, gpointer window)
{
    WebKitWindowProperties *props = webkit_web_view_get_window_properties(popup);
    GdkRectangle geo;
    webkit_window_properties_get_geometry(props, &geo);
    if (geo.width > 100 && geo.height > 100)
        gtk_window_set_default_size(GTK_WINDOW(window), geo.width, geo.height);
    gtk_widget_show_all(GTK_WIDGET(window));
    gtk_window_present(GTK_WINDOW(window));
    goPopupShown();
}

static void popup_close(WebKitWebView *popup, gpointer window)
{
    gtk_widget_destroy(GTK_WIDGET(window));
}

static void popup_destroyed(GtkWidget *window, gpointer data)
{
    goPopupClosed();
}

static void popup_title(WebKitWebView *popup, GParamSpec *spec, gpointer window)
{
    const char *t = webkit_web_view_get_title(popup);
    gtk_window_set_title(GTK_WINDOW(window), t && *t ? t : "Sign in");
}

static GtkWidget *on_create(WebKitWebView *wv, WebKitNavigationAction *action, gpointer data)
{
    // Measured on WebKitGTK 2.50: a related view keeps the main view's script message
    // handlers whatever user content manager it is given, and Wails attributes every
    // message to the main view's URL. So a popup page can talk to Go as if it were the
    // Messages page; only allowed origins may therefore open in-app (Go decides), the
    // rest go to the system browser.
    const char *uri = webkit_uri_request_get_uri(webkit_navigation_action_get_request(action));
    if (!goPopupAllowed((char *)(uri ? uri : "")))
        return NULL;
    // A related view shares the web process and session (cookies, storage) with the main
    // view, so window.opener works and sign-in lands in the main window's session.
    WebKitUserContentManager *ucm = webkit_user_content_manager_new();
    GtkWidget *popup = GTK_WIDGET(g_object_new(WEBKIT_TYPE_WEB_VIEW,
                                               "related-view", wv,
                                               "settings", webkit_web_view_get_settings(wv),
                                               "user-content-manager", ucm,
                                               NULL));
    g_object_unref(ucm);
    GtkWidget *window = gtk_window_new(GTK_WINDOW_TOPLEVEL);
    GtkWidget *top = gtk_widget_get_toplevel(GTK_WIDGET(wv));
    if (GTK_IS_WINDOW(top))
        gtk_window_set_transient_for(GTK_WINDOW(window), GTK_WINDOW(top));
    gtk_window_set_default_size(GTK_WINDOW(window), 520, 680);
    gtk_window_set_title(GTK_WINDOW(window), "Sign in");
    gtk_container_add(GTK_CONTAINER(window), popup);
    g_signal_connect(popup, "ready-to-show", G_CALLBACK(popup_ready), window);
    g_signal_connect(popup, "close", G_CALLBACK(popup_close), window);
    g_signal_connect(popup, "notify::title", G_CALLBACK(popup_title), window);
    g_signal_connect(window, "destroy", G_CALLBACK(popup_destroyed), NULL);
    goPopupCreated();
    return popup;
}

// ---- crashes and load failures ----

static void on_terminated(WebKitWebView *wv, WebKitWebProcessTerminationReason reason, gpointer data)
{
    if (reason == WEBKIT_WEB_PROCESS_TERMINATED_BY_API)
        return;
    // Go decides when to reload (it backs off when the process keeps dying).
    goWebProcessTerminated((int)reason);
}

static char *offline_url = NULL;

static gboolean on_load_failed(WebKitWebView *wv, WebKitLoadEvent ev, gchar *uri, GError *err, gpointer data)
{
    if (g_error_matches(err, WEBKIT_NETWORK_ERROR, WEBKIT_NETWORK_ERROR_CANCELLED) ||
        g_error_matches(err, WEBKIT_POLICY_ERROR, WEBKIT_POLICY_ERROR_FRAME_LOAD_INTERRUPTED_BY_POLICY_CHANGE))
        return FALSE;
    if (uri != NULL && g_str_has_prefix(uri, "wails:"))
        return FALSE;
    goLoadFailed((char *)(uri ? uri : ""), (char *)(err && err->message ? err->message : "unknown error"));
    if (offline_url == NULL)
        return FALSE;
    char *escaped = g_uri_escape_string(err && err->message ? err->message : "unknown error", NULL, FALSE);
    char *target = g_strconcat(offline_url, escaped, NULL);
    webkit_web_view_load_uri(wv, target);
    g_free(target);
    g_free(escaped);
    return TRUE; // handled: no raw WebKit error page
}

static void on_load_changed(WebKitWebView *wv, WebKitLoadEvent ev, gpointer data)
{
    if (ev == WEBKIT_LOAD_COMMITTED || ev == WEBKIT_LOAD_FINISHED) {
        const char *uri = webkit_web_view_get_uri(wv);
        goLoadChanged((char *)(uri ? uri : ""), ev == WEBKIT_LOAD_FINISHED);
    }
}

// ---- window geometry ----

static gboolean on_configure(GtkWidget *window, GdkEventConfigure *ev, gpointer data)
{
    int x, y, w, h;
    gtk_window_get_position(GTK_WINDOW(window), &x, &y);
    gtk_window_get_size(GTK_WINDOW(window), &w, &h);
    goGeometryChanged(x, y, w, h);
    return FALSE;
}

// The page's own web notifications are refused: Clanker raises its own native
// notification for every incoming message, so granting the page would show two for one
// message. Other permission requests keep WebKit's default handling.
static gboolean on_permission(WebKitWebView *wv, WebKitPermissionRequest *req, gpointer data)
{
    if (WEBKIT_IS_NOTIFICATION_PERMISSION_REQUEST(req)) {
        webkit_permission_request_deny(req);
        goPageNotification(0);
        return TRUE;
    }
    return FALSE;
}

// A page notification that gets here anyway (a permission granted some other way) is
// swallowed for the same reason: the message already has Clanker's notification.
static gboolean on_show_notification(WebKitWebView *wv, WebKitNotification *n, gpointer data)
{
    goPageNotification(1);
    return TRUE;
}

// is-active follows the window manager's focus: FALSE while another window is in front,
// the window is minimised or hidden.
static void on_active(GtkWindow *window, GParamSpec *spec, gpointer data)
{
    goFocusChanged(gtk_window_is_active(window));
}

// ---- the page's messages to Wails ----

// Wails connects its handler to the main view's content manager for messages posted to
// window.webkit.messageHandlers.external, and dispatches whatever an allowed origin
// sends (quit, hide, open a URL...). The guard stands in front of it: Wails' handler is
// blocked, and the guard's own handler asks Go (goCheckPageMessage) about each message
// and emits the allowed ones again with Wails' handler unblocked for that one emission.
// WebKitGTK reports neither the frame nor the document that posted a message, so Go
// judges it by the document the view shows, as Wails itself does.
static gulong wails_message_handler;
static gboolean passing_message;

static void on_script_message(WebKitUserContentManager *ucm, WebKitJavascriptResult *result, gpointer data)
{
    if (passing_message)
        return; // the emission below, on its way to Wails
    WebKitWebView *wv = WEBKIT_WEB_VIEW(data);
    JSCValue *value = webkit_javascript_result_get_js_value(result);
    int is_string = jsc_value_is_string(value);
    char *body = is_string ? jsc_value_to_string(value) : NULL;
    const char *uri = webkit_web_view_get_uri(wv);
    int allow = goCheckPageMessage(is_string, (char *)(body ? body : ""), (char *)(uri ? uri : ""));
    g_free(body);
    if (!allow)
        return;
    passing_message = TRUE;
    g_signal_handler_unblock(ucm, wails_message_handler);
    g_signal_emit_by_name(ucm, "script-message-received::external", result);
    g_signal_handler_block(ucm, wails_message_handler);
    passing_message = FALSE;
}

const char *clanker_guard_messages(WebKitWebView *wv)
{
    if (wails_message_handler != 0)
        return NULL;
    WebKitUserContentManager *ucm = webkit_web_view_get_user_content_manager(wv);
    guint signal = g_signal_lookup("script-message-received", WEBKIT_TYPE_USER_CONTENT_MANAGER);
    gulong wails = g_signal_handler_find(ucm, G_SIGNAL_MATCH_ID | G_SIGNAL_MATCH_DETAIL, signal,
                                         g_quark_from_static_string("external"), NULL, NULL, NULL);
    if (wails == 0)
        return "Wails' handler for the page's messages was not found, so they cannot be guarded";
    g_signal_handler_block(ucm, wails);
    wails_message_handler = wails;
    g_signal_connect(ucm, "script-message-received::external", G_CALLBACK(on_script_message), wv);
    return NULL;
}

void clanker_setup(WebKitWebView *wv, const char *user_agent, const char *user_script, const char *offline)
{
    WebKitSettings *settings = webkit_web_view_get_settings(wv);
    // Replaces Wails' "... wails.io/" string; NULL would restore WebKit's own.
    webkit_settings_set_user_agent(settings, user_agent);
    webkit_settings_set_javascript_can_open_windows_automatically(settings, FALSE);

    WebKitWebContext *ctx = webkit_web_view_get_context(wv);
    // WebKit's default cache model is a web browser's: its memory cache keeps resources no
    // page shows any more, decoded images included, until they pass half of a 128 MB cache,
    // and only then prunes them. A photo someone sent (12 MP: 48 MB decoded) stayed in the
    // page's process for good after its conversation was left. The document browser's model
    // keeps at most a quarter of 96 MB for those and prunes the rest when they go; its disk
    // cache (75 MB) still holds the page's scripts between starts.
    webkit_web_context_set_cache_model(ctx, WEBKIT_CACHE_MODEL_DOCUMENT_BROWSER);
    webkit_web_context_set_spell_checking_enabled(ctx, TRUE);
    const gchar *const *langs = g_get_language_names();
    if (langs != NULL && langs[0] != NULL && strcmp(langs[0], "C") != 0 && strcmp(langs[0], "POSIX") != 0) {
        const gchar *one[] = {langs[0], NULL};
        webkit_web_context_set_spell_checking_languages(ctx, one);
    }

    if (user_script != NULL && *user_script) {
        WebKitUserContentManager *ucm = webkit_web_view_get_user_content_manager(wv);
        WebKitUserScript *s = webkit_user_script_new(user_script,
                                                     WEBKIT_USER_CONTENT_INJECT_TOP_FRAME,
                                                     WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START,
                                                     NULL, NULL);
        webkit_user_content_manager_add_script(ucm, s);
        webkit_user_script_unref(s);
    }

    g_free(offline_url);
    offline_url = offline && *offline ? g_strdup(offline) : NULL;

    g_signal_connect(wv, "create", G_CALLBACK(on_create), NULL);
    g_signal_connect(wv, "web-process-terminated", G_CALLBACK(on_terminated), NULL);
    g_signal_connect(wv, "load-failed", G_CALLBACK(on_load_failed), NULL);
    g_signal_connect(wv, "load-changed", G_CALLBACK(on_load_changed), NULL);
    g_signal_connect(wv, "permission-request", G_CALLBACK(on_permission), NULL);
    g_signal_connect(wv, "show-notification", G_CALLBACK(on_show_notification), NULL);

    GtkWidget *top = gtk_widget_get_toplevel(GTK_WIDGET(wv));
    if (GTK_IS_WINDOW(top)) {
        gtk_widget_add_events(top, GDK_STRUCTURE_MASK);
        g_signal_connect(top, "configure-event", G_CALLBACK(on_configure), NULL);
        g_signal_connect(top, "notify::is-active", G_CALLBACK(on_active), NULL);
        goFocusChanged(gtk_window_is_active(GTK_WINDOW(top)));
    }
}

void clanker_reload(WebKitWebView *wv)
{
    webkit_web_view_reload(wv);
}

// ---- trusted key input ----

// GTK drops key events whose window is not viewable, so a hidden main window would lose
// them. A shown offscreen window is always viewable; its GdkWindow is the event window
// and gtk_widget_event hands the event straight to the view.
static GtkWidget *proxy = NULL;

static GdkWindow *proxy_window(void)
{
    if (proxy == NULL) {
        proxy = gtk_offscreen_window_new();
        gtk_window_set_default_size(GTK_WINDOW(proxy), 1, 1);
        gtk_widget_show(proxy);
    }
    return gtk_widget_get_window(proxy);
}

static void deliver(WebKitWebView *wv, GdkEventType type, guint keyval, guint state)
{
    GdkDisplay *display = gtk_widget_get_display(GTK_WIDGET(wv));
    GdkEvent *ev = gdk_event_new(type);
    ev->key.window = g_object_ref(proxy_window());
    ev->key.send_event = FALSE;
    ev->key.time = (guint32)(g_get_monotonic_time() / 1000);
    ev->key.state = state;
    ev->key.keyval = keyval;
    GdkKeymapKey *keys = NULL;
    gint n = 0;
    if (gdk_keymap_get_entries_for_keyval(gdk_keymap_get_for_display(display), keyval, &keys, &n) && n > 0) {
        ev->key.hardware_keycode = keys[0].keycode;
        ev->key.group = keys[0].group;
    }
    g_free(keys);
    gunichar uc = gdk_keyval_to_unicode(keyval);
    char buf[8] = {0};
    if (uc != 0 && keyval != GDK_KEY_Return)
        g_unichar_to_utf8(uc, buf);
    ev->key.is_modifier = (keyval == GDK_KEY_Shift_L);
    ev->key.string = g_strdup(buf);
    ev->key.length = (gint)strlen(buf);
    GdkSeat *seat = gdk_display_get_default_seat(display);
    if (seat != NULL)
        gdk_event_set_device(ev, gdk_seat_get_keyboard(seat));
    gtk_widget_event(GTK_WIDGET(wv), ev);
    gdk_event_free(ev);
}

void clanker_keys(WebKitWebView *wv, const guint *keyvals, const guchar *shift_mask, int n)
{
    GtkWidget *top = gtk_widget_get_toplevel(GTK_WIDGET(wv));
    if (GTK_IS_WINDOW(top) && gtk_widget_get_visible(top))
        gtk_widget_grab_focus(GTK_WIDGET(wv));
    for (int i = 0; i < n; i++) {
        guint state = shift_mask[i] ? GDK_SHIFT_MASK : 0;
        if (state)
            deliver(wv, GDK_KEY_PRESS, GDK_KEY_Shift_L, 0);
        deliver(wv, GDK_KEY_PRESS, keyvals[i], state);
        deliver(wv, GDK_KEY_RELEASE, keyvals[i], state);
        if (state)
            deliver(wv, GDK_KEY_RELEASE, GDK_KEY_Shift_L, GDK_SHIFT_MASK);
    }
}

void clanker_use_web_extensions(const char *dir)
{
    webkit_web_context_set_web_extensions_directory(webkit_web_context_get_default(), dir);
}

static guint web_process_releases;

static void release_replied(GObject *source, GAsyncResult *result, gpointer data)
{
    (void)data;
    WebKitUserMessage *reply = webkit_web_view_send_message_to_page_finish(WEBKIT_WEB_VIEW(source), result, NULL);
    if (reply) {
        web_process_releases++;
        g_object_unref(reply);
    }
}

void clanker_release_web_process_memory(WebKitWebView *wv, gboolean deep)
{
    // The name and the parameter are those app/desktop/internal/native/webext/clanker-webext.c
    // answers to.
    webkit_web_view_send_message_to_page(
        wv, webkit_user_message_new("clanker.release-memory", g_variant_new_boolean(deep)), NULL, release_replied, NULL);
}

guint clanker_web_process_releases(void)
{
    return web_process_releases;
}
