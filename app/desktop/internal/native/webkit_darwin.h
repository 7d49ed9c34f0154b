// Native WKWebView glue for the Clanker shell on macOS. Every function here runs on the
// main thread: Go schedules them with clanker_mac_schedule (the main dispatch queue) and
// waits on a channel. WebKit objects travel as void * so that the Go side needs no
// Objective-C.
#ifndef CLANKER_WEBKIT_DARWIN_H
#define CLANKER_WEBKIT_DARWIN_H

#include <stdint.h>

// clanker_mac_schedule runs the numbered job on the main queue; the job calls back into
// Go (goRunJob) with the number.
void clanker_mac_schedule(uint64_t job);

// clanker_mac_find_webview returns the first WKWebView in any of the app's windows
// (Wails' main view: no popup exists yet when it is called), or NULL.
void *clanker_mac_find_webview(void);

// clanker_mac_setup configures the main view: the user agent (NULL or "" keeps
// WebKit's), the document-start user script, the guard in front of Wails' script
// message handler, and the delegates for popups, crashes, loads, permissions and window
// geometry. It returns NULL, or a sentence saying what could not be set up.
const char *clanker_mac_setup(void *webview, const char *user_agent, const char *user_script);

// clanker_mac_reload reloads the main view (after a crash, a wake, or on request).
void clanker_mac_reload(void *webview);

// clanker_mac_window_state reports the view's window: -1 when there is none, else bit 1
// set when it is on screen (visible, not minimised) and bit 2 when it has the keyboard
// (key window of the active app).
int clanker_mac_window_state(void *webview);

// clanker_mac_keys makes the view its window's first responder and hands it n key
// events, built from the arrays, by route (macos.KeyRoute: 0 the view's -keyDown: and
// -keyUp:, 1 the window's -sendEvent:, 2 the hidden window ordered in behind everything,
// transparent and click-through, for its -sendEvent:, and ordered out again). It returns
// 0, or -1 when the view is in no window and -2 when AppKit refused to build an event.
int clanker_mac_keys(void *webview, int route, int n, const int *types, const uint16_t *codes,
                     const uint64_t *modifiers, char **characters, char **ignoring);

// clanker_mac_count_enters runs script (macos.EnterCounterScript) in an isolated script
// world of the view's page and reports the number it returns to goEntersCounted with
// job: -1 when the script failed, -2 before macOS 11 (no isolated worlds).
void clanker_mac_count_enters(void *webview, uint64_t job, const char *script);

// clanker_mac_watch_wake starts reporting NSWorkspaceDidWakeNotification to goWoke.
void clanker_mac_watch_wake(void);

#endif
