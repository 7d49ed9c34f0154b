// Clanker's WebKitGTK web-process extension (Linux). WebKit loads it into the process that
// runs the Messages page; it does one thing: when the app says work has stopped, it hands
// the C heap's free pages back to the system. glibc keeps them otherwise, and WebKit only
// trims under memory pressure, which an idle desktop never reports. It reads nothing from
// the page and the page cannot reach it: these messages come only from the app's own UI
// process (webkit_web_view_send_message_to_page), and it answers each one.
//
// Built by build/webext.sh into libclanker-webext.so; the app points WebKit at its folder
// (app/desktop/window/memory.go).

#include <malloc.h>
#include <webkit2/webkit-web-extension.h>

#define RELEASE_MESSAGE "clanker.release-memory"

static gboolean on_user_message(WebKitWebPage *page, WebKitUserMessage *message, gpointer data)
{
    (void)page;
    (void)data;
    if (g_strcmp0(webkit_user_message_get_name(message), RELEASE_MESSAGE) != 0)
        return FALSE;
    gboolean trimmed = malloc_trim(0) == 1;
    // The reply tells the app the release ran (its tests and status count these).
    webkit_user_message_send_reply(message, webkit_user_message_new(RELEASE_MESSAGE, g_variant_new_boolean(trimmed)));
    return TRUE;
}

static void on_page_created(WebKitWebExtension *extension, WebKitWebPage *page, gpointer data)
{
    (void)extension;
    (void)data;
    g_signal_connect(page, "user-message-received", G_CALLBACK(on_user_message), NULL);
}

G_MODULE_EXPORT void webkit_web_extension_initialize(WebKitWebExtension *extension)
{
    g_signal_connect(extension, "page-created", G_CALLBACK(on_page_created), NULL);
}
