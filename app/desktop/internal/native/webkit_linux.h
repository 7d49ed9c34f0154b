// Native WebKitGTK glue for the Clanker shell. Every function here runs on the GTK main
// thread: Go schedules them with clanker_schedule (g_idle_add) and waits on a channel.
#ifndef CLANKER_WEBKIT_LINUX_H
#define CLANKER_WEBKIT_LINUX_H

#include <gtk/gtk.h>
#include <webkit2/webkit2.h>

// clanker_schedule runs the numbered job on the GTK main loop; the job calls back into
// Go (goRunJob) with the number.
void clanker_schedule(guint64 job);

// clanker_find_webview returns the first WebKitWebView found in any toplevel window, or NULL.
WebKitWebView *clanker_find_webview(void);

// clanker_setup configures the main view: user agent (NULL keeps WebKit's own), spell
// checking, the document-start user script, and the signals for popups, crashes, load
// failures, window geometry and focus, and the page's notification requests (refused).
// The offline URL is loaded when a main-frame load fails.
void clanker_setup(WebKitWebView *wv, const char *user_agent, const char *user_script, const char *offline_url);

// clanker_guard_messages puts Go's rule (goCheckPageMessage) in front of Wails' handler
// of the page's script messages. It returns NULL, or why the messages are not guarded.
const char *clanker_guard_messages(WebKitWebView *wv);

// clanker_reload reloads the main view (used after a crash and by Shell.Reload).
void clanker_reload(WebKitWebView *wv);

// clanker_keys delivers key press and release events for each keyval into the view,
// through an offscreen proxy window so that delivery also works while the window is hidden.
// shift_mask[i] != 0 sends that key with Shift held.
void clanker_keys(WebKitWebView *wv, const guint *keyvals, const guchar *shift_mask, int n);

// clanker_use_web_extensions makes WebKit load the web-process extensions in dir into every
// page process it starts. It must run on the thread GTK will run on, before any web view
// exists (it creates WebKit's default context, which Wails' view then uses).
void clanker_use_web_extensions(const char *dir);

// clanker_release_web_process_memory asks the web-process extension (if one was loaded) to
// hand the page process's free C heap back to the system, and when deep is true the pages
// of its read-only file mappings too; each answer it gets is counted.
void clanker_release_web_process_memory(WebKitWebView *wv, gboolean deep);

// clanker_web_process_releases is how many releases the extension has answered.
guint clanker_web_process_releases(void);

// clanker_web_process_pid is not exposed by WebKitGTK; tests find the process by parent pid.

#endif
