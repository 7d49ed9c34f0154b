// Clanker's WebKitGTK web-process extension (Linux). WebKit loads it into the process that
// runs the Messages page; it does one thing: when the app says work has stopped, it lets go
// of what the page no longer uses and hands the C heap's free pages back to the system.
// It reads nothing from the page and the page cannot reach it: these messages come only
// from the app's own UI process (webkit_web_view_send_message_to_page), and it answers each
// one.
//
// First a full JavaScript collection. A node the page removed lives on for as long as a
// JavaScript object for it (or for any node of the removed subtree) does, and the bridge
// reads every row, so each row of a conversation has one. Those objects outlive the young
// collections that come with allocation; only a full collection frees them, and JSC starts
// one by itself only when the heap has grown enough or its timer fires, which on a quiet
// page was tens of seconds to minutes after the user left a conversation (or never). Until
// then the left conversation's <img> stayed alive and WebKit kept the photo's decoded pixels
// (48 MB for a 12 MP photo; TestFullAppPictureLeftBehindIsNotKeptDecoded). The public
// JSGarbageCollect only asks for a collection "soon" (the same timer: 36 s later in that
// test); JSSynchronousGarbageCollectForDebugging, which libjavascriptcoregtk exports but no
// public header declares, collects now. It is looked up at run time, so a WebKit without it
// still loads the extension and falls back to the public call.
//
// Before that, WebKit's own non-critical memory release, the one its memory pressure handler
// runs when the system runs short: it empties the memory cache of resources no page uses
// any more, font and glyph caches, selector caches, and hands its allocator's (libpas)
// free pages back, which malloc_trim does not reach. A photo's decoded pixels go when its
// conversation is left (above), but the smaller copies Skia made to draw it scaled down
// (its mipmaps: a third of the decoded size, 15.5 MiB for a 12 MP photo) stayed with the
// dead image resource in the memory cache: the page's process held 46.9 MiB allocated
// after the family's photo was left and the release ran, 30.9 MiB with this call
// (TestFullAppPictureLeftBehindIsNotKeptDecoded checks those copies go too). On a chat
// without photos (BenchmarkAppMemory) it made little difference at idle (30.9 -> 30.7 MiB)
// and 2 MiB after the chat. The critical release frees about 1.5 MiB more but throws away
// the page's compiled JavaScript and the decoded pixels of pictures still on screen, which
// the next paint or keystroke would pay for, so it is not used. WTF::MemoryPressureHandler
// is exported by libjavascriptcoregtk with C++ names only; like the collection it is
// looked up at run time and skipped where it is missing.
//
// Then glibc's free pages: glibc keeps them otherwise, and WebKit only trims under memory
// pressure, which an idle desktop never reports.
//
// A deep release (the message's boolean parameter is true; the app sends one after a long
// quiet) then has the kernel reclaim the resident pages of the process's read-only file
// mappings: code of WebKit, JavaScriptCore, Mesa and LLVM that ran to start the process or
// to load the page and has not run since, about 25 MiB. It is what memory pressure would
// reclaim first, done while the machine is quiet; the next conversation switch reads back
// what it needs. The Go side does the same in the app's own process and documents the rule
// (app/desktop/internal/native/pageout_linux.go).
//
// Built by build/webext.sh into libclanker-webext.so; the app points WebKit at its folder
// (app/desktop/window/memory.go).

#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <webkit2/webkit-web-extension.h>

#define RELEASE_MESSAGE "clanker.release-memory"

typedef void (*collect_fn)(JSContextRef);

// collect_now is JSC's synchronous full collection, or NULL where this WebKit has none.
static collect_fn collect_now;

// WTF::MemoryPressureHandler::singleton() and its member releaseMemory(Critical,
// Synchronous); both arguments are one-byte enums (No = 0, Yes = 1). NULL where missing.
typedef void *(*pressure_handler_fn)(void);
typedef void (*pressure_release_fn)(void *handler, unsigned char critical, unsigned char synchronous);
static pressure_handler_fn pressure_handler;
static pressure_release_fn pressure_release;

// release_webkit_caches runs WebKit's non-critical memory release now, on this (the main)
// thread, as its memory pressure handler would.
static void release_webkit_caches(void)
{
    if (pressure_handler == NULL || pressure_release == NULL)
        return;
    void *handler = pressure_handler();
    if (handler != NULL)
        pressure_release(handler, 0, 1);
}

// collect_garbage runs a full JavaScript collection in the page's heap (one heap for every
// frame of this process) before the release returns.
static void collect_garbage(WebKitWebPage *page)
{
    // Reaching JSC's C API from a page takes the main frame's global context; WebKit marks
    // both calls deprecated (for its GLib wrappers, which have no collection call).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    WebKitFrame *frame = webkit_web_page_get_main_frame(page);
    JSGlobalContextRef ctx = frame != NULL ? webkit_frame_get_javascript_global_context(frame) : NULL;
#pragma GCC diagnostic pop
    if (ctx == NULL)
        return;
    if (collect_now != NULL)
        collect_now(ctx);
    else
        JSGarbageCollect(ctx);
}

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

// page_out_file_mappings asks the kernel to reclaim the resident pages of every mapping of
// a regular file this process cannot write through (the same rule as readOnlyFileMappings
// in pageout_linux.go), and returns how many mappings it advised.
static int page_out_file_mappings(void)
{
    FILE *maps = fopen("/proc/self/maps", "re");
    if (maps == NULL)
        return 0;
    int advised = 0;
    char line[4096];
    while (fgets(line, sizeof line, maps) != NULL) {
        size_t len = strlen(line);
        if (len > 0 && line[len - 1] != '\n') {
            // A path too long for the buffer: skip the rest of this line.
            int c;
            while ((c = fgetc(maps)) != EOF && c != '\n')
                ;
            continue;
        }
        if (len > 0)
            line[len - 1] = '\0';
        unsigned long start, end, inode;
        char perms[5];
        int path_at = 0;
        if (sscanf(line, "%lx-%lx %4s %*s %*s %lu %n", &start, &end, perms, &inode, &path_at) != 4 || path_at == 0)
            continue;
        const char *path = line + path_at;
        if (perms[1] == 'w' || (perms[0] != 'r' && perms[2] != 'x') || inode == 0 || end <= start)
            continue;
        if (path[0] != '/' || strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/memfd:", 7) == 0)
            continue;
        size_t plen = strlen(path);
        if (plen >= 10 && strcmp(path + plen - 10, " (deleted)") == 0)
            continue;
        if (madvise((void *)start, end - start, MADV_PAGEOUT) == 0)
            advised++;
    }
    fclose(maps);
    return advised;
}

static gboolean on_user_message(WebKitWebPage *page, WebKitUserMessage *message, gpointer data)
{
    (void)data;
    if (g_strcmp0(webkit_user_message_get_name(message), RELEASE_MESSAGE) != 0)
        return FALSE;
    GVariant *params = webkit_user_message_get_parameters(message);
    gboolean deep = params != NULL && g_variant_is_of_type(params, G_VARIANT_TYPE_BOOLEAN) && g_variant_get_boolean(params);
    release_webkit_caches();
    collect_garbage(page);
    gboolean trimmed = malloc_trim(0) == 1;
    if (deep)
        page_out_file_mappings();
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
    collect_now = (collect_fn)dlsym(RTLD_DEFAULT, "JSSynchronousGarbageCollectForDebugging");
    pressure_handler = (pressure_handler_fn)dlsym(RTLD_DEFAULT, "_ZN3WTF21MemoryPressureHandler9singletonEv");
    pressure_release = (pressure_release_fn)dlsym(
        RTLD_DEFAULT, "_ZN3WTF21MemoryPressureHandler13releaseMemoryENS_8CriticalENS_11SynchronousE");
    g_signal_connect(extension, "page-created", G_CALLBACK(on_page_created), NULL);
}
