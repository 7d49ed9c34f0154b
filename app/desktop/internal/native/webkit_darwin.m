// The WKWebView side of the Clanker shell on macOS (compiled with ARC).
//
// Wails v2 creates the window and its WKWebView and keeps them to itself. This file finds
// the view, and puts Clanker's own code in front of what Wails set up:
//   - a document-start WKUserScript for the bridge, and Clanker's browser user agent;
//   - a guard in front of Wails' script message handler, which would crash on a message
//     that is not a string and would obey anything the Messages page sent;
//   - a delegate in front of Wails' (its WailsContext), which handles what Wails does not
//     (popups, web content crashes, failed loads, permissions) and hands everything else
//     on to Wails;
//   - observers for the window's geometry and for the Mac waking from sleep.
// What to do is decided in Go (app/desktop/internal/macos); this file gathers the facts
// and carries the decisions out.

#import <Cocoa/Cocoa.h>
#import <WebKit/WebKit.h>
#import <objc/runtime.h>
#include <stdlib.h>
#include "webkit_darwin.h"
#include "_cgo_export.h"

static void run_job(void *job)
{
    goRunJob((uint64_t)(uintptr_t)job);
}

void clanker_mac_schedule(uint64_t job)
{
    dispatch_async_f(dispatch_get_main_queue(), (void *)(uintptr_t)job, run_job);
}

// cstr is s as UTF-8 for a call into Go, which copies it at once.
static char *cstr(NSString *s)
{
    const char *c = s.UTF8String;
    return (char *)(c ? c : "");
}

static WKWebView *mainView;   // Wails' view, once set up
static id wailsContext;       // Wails' WailsContext: the view's delegates and message handler
static NSURL *lastCommitted;  // the main view's last committed URL, for a reload after a crash

// ---- finding the view ----

static WKWebView *find_in(NSView *v)
{
    if ([v isKindOfClass:[WKWebView class]])
        return (WKWebView *)v;
    for (NSView *sub in v.subviews) {
        WKWebView *found = find_in(sub);
        if (found != nil)
            return found;
    }
    return nil;
}

void *clanker_mac_find_webview(void)
{
    for (NSWindow *w in [NSApp windows]) {
        WKWebView *found = w.contentView ? find_in(w.contentView) : nil;
        if (found != nil)
            return (__bridge void *)found;
    }
    return NULL;
}

// ---- requests and messages: facts for Go ----

static int from_main(WKWebView *v)
{
    return v != nil && v == mainView;
}

// ORIGIN_ARGS passes a WKSecurityOrigin to Go as protocol, host and port.
#define ORIGIN_ARGS(o) cstr((o).protocol), cstr((o).host), (int)(o).port

// The script message guard. Wails' handler reads message.body as an NSString (a
// dictionary would raise "unrecognized selector" and end the app) and dispatches
// whatever an allowed origin sends, quit included. Go's rules decide what passes.
static IMP wailsReceive;

static BOOL message_allowed(WKScriptMessage *message)
{
    id body = message.body;
    BOOL isString = [body isKindOfClass:[NSString class]];
    // The whole body: the rule reads the bridge's event envelope, not just its start.
    NSString *text = isString ? (NSString *)body : @"";
    WKFrameInfo *frame = message.frameInfo;
    return goCheckMessage(isString, from_main(message.webView), frame.isMainFrame,
                          ORIGIN_ARGS(frame.securityOrigin), cstr(text)) != 0;
}

static const char *guard_messages(id handler)
{
    if (wailsReceive != NULL)
        return NULL;
    SEL sel = @selector(userContentController:didReceiveScriptMessage:);
    Method m = class_getInstanceMethod(object_getClass(handler), sel);
    if (m == NULL)
        return "Wails' script message handler was not found, so page messages cannot be guarded";
    IMP guarded = imp_implementationWithBlock(^(id me, WKUserContentController *ucc, WKScriptMessage *message) {
        if (!message_allowed(message))
            return;
        ((void (*)(id, SEL, WKUserContentController *, WKScriptMessage *))wailsReceive)(me, sel, ucc, message);
    });
    wailsReceive = method_setImplementation(m, guarded);
    return NULL;
}

// ---- popups (window.open, e.g. Google sign-in) ----

@interface ClankerPopup : NSObject <WKUIDelegate, WKNavigationDelegate, NSWindowDelegate>
@property(nonatomic, strong) NSWindow *window;
@property(nonatomic, strong) WKWebView *view;
@end

static NSMutableSet<ClankerPopup *> *openPopups;

static WKWebView *open_popup(WKWebView *opener, WKWebViewConfiguration *config,
                             WKNavigationAction *action, WKWindowFeatures *features)
{
    // Go decides: the allowed sign-in origins open here, sharing the session (the given
    // configuration carries the main view's process pool and website data store); the
    // rest go to the browser. Wails has no such method, so without it window.open opens
    // nothing at all.
    NSString *url = action.request.URL.absoluteString ?: @"";
    if (!goPopupAllowed(cstr(url)))
        return nil;
    double w = 0, h = 0;
    goPopupSize(features.width ? features.width.doubleValue : 0, features.height ? features.height.doubleValue : 0, &w, &h);
    NSRect frame = NSMakeRect(0, 0, w, h);
    NSWindow *window = [[NSWindow alloc] initWithContentRect:frame
                                                   styleMask:NSWindowStyleMaskTitled | NSWindowStyleMaskClosable |
                                                             NSWindowStyleMaskMiniaturizable | NSWindowStyleMaskResizable
                                                     backing:NSBackingStoreBuffered
                                                       defer:NO];
    window.releasedWhenClosed = NO;
    window.title = @"Sign in";
    // WebKit requires the returned view to be made with exactly this configuration.
    WKWebView *view = [[WKWebView alloc] initWithFrame:frame configuration:config];
    view.customUserAgent = opener.customUserAgent;
    view.autoresizingMask = NSViewWidthSizable | NSViewHeightSizable;
    window.contentView = view;

    ClankerPopup *p = [ClankerPopup new];
    p.window = window;
    p.view = view;
    view.UIDelegate = p;
    view.navigationDelegate = p;
    window.delegate = p;
    if (openPopups == nil)
        openPopups = [NSMutableSet new];
    [openPopups addObject:p];

    NSWindow *parent = opener.window;
    if (parent != nil && parent.isVisible) {
        NSRect pf = parent.frame, f = window.frame;
        f.origin.x = NSMidX(pf) - f.size.width / 2;
        f.origin.y = NSMidY(pf) - f.size.height / 2;
        [window setFrame:f display:NO];
    } else {
        [window center];
    }
    goPopupCreated();
    [window makeKeyAndOrderFront:nil];
    goPopupShown();
    return view;
}

@implementation ClankerPopup

- (WKWebView *)webView:(WKWebView *)webView
    createWebViewWithConfiguration:(WKWebViewConfiguration *)configuration
               forNavigationAction:(WKNavigationAction *)action
                    windowFeatures:(WKWindowFeatures *)features
{
    return open_popup(webView, configuration, action, features);
}

// window.close() from the sign-in page, once it is done.
- (void)webViewDidClose:(WKWebView *)webView
{
    [self.window close];
}

- (void)webView:(WKWebView *)webView didFinishNavigation:(WKNavigation *)navigation
{
    NSString *t = webView.title;
    self.window.title = t.length > 0 ? t : @"Sign in";
}

- (void)webView:(WKWebView *)webView
    requestMediaCapturePermissionForOrigin:(WKSecurityOrigin *)origin
                          initiatedByFrame:(WKFrameInfo *)frame
                                      type:(WKMediaCaptureType)type
                           decisionHandler:(void (^)(WKPermissionDecision))decisionHandler API_AVAILABLE(macos(12.0))
{
    decisionHandler((WKPermissionDecision)goMediaDecision(0, frame.isMainFrame, ORIGIN_ARGS(origin), (int)type));
}

- (void)windowWillClose:(NSNotification *)notification
{
    self.view.UIDelegate = nil;
    self.view.navigationDelegate = nil;
    [self.view stopLoading];
    goPopupClosed();
    ClankerPopup *me = self;
    // Let AppKit finish closing before the last reference goes.
    dispatch_async(dispatch_get_main_queue(), ^{
        [openPopups removeObject:me];
    });
}

@end

// ---- the main view's delegate, in front of Wails' ----

@interface ClankerDelegate : NSObject <WKNavigationDelegate, WKUIDelegate>
@property(nonatomic, strong) id target; // Wails' WailsContext
@end

static ClankerDelegate *mainDelegate;

static void load_failed(WKWebView *view, NSError *error)
{
    if (!from_main(view))
        return;
    NSString *url = error.userInfo[NSURLErrorFailingURLStringErrorKey] ?: view.URL.absoluteString ?: @"";
    if (!goShowsOffline(cstr(error.domain), (long)error.code, cstr(url)))
        return;
    NSString *text = error.localizedDescription ?: @"";
    goLoadFailed(cstr(url), cstr(text));
    char *offline = goOfflineURL(cstr(text));
    if (offline == NULL)
        return;
    NSURL *target = [NSURL URLWithString:[NSString stringWithUTF8String:offline]];
    free(offline);
    if (target != nil)
        [view loadRequest:[NSURLRequest requestWithURL:target]];
}

@implementation ClankerDelegate

// Whatever Clanker does not handle goes to Wails, as if Clanker were not there. WebKit
// asks respondsToSelector: once, when a delegate is assigned.
- (BOOL)respondsToSelector:(SEL)sel
{
    return [super respondsToSelector:sel] || [self.target respondsToSelector:sel];
}

- (id)forwardingTargetForSelector:(SEL)sel
{
    if ([self.target respondsToSelector:sel])
        return self.target;
    return [super forwardingTargetForSelector:sel];
}

- (void)webView:(WKWebView *)webView didCommitNavigation:(WKNavigation *)navigation
{
    if (from_main(webView)) {
        lastCommitted = webView.URL;
        goLoadChanged(cstr(webView.URL.absoluteString), 0);
    }
    if ([self.target respondsToSelector:_cmd])
        [self.target webView:webView didCommitNavigation:navigation];
}

- (void)webView:(WKWebView *)webView didFinishNavigation:(WKNavigation *)navigation
{
    if (from_main(webView))
        goLoadChanged(cstr(webView.URL.absoluteString), 1);
    // Wails raises OnDomReady here.
    if ([self.target respondsToSelector:_cmd])
        [self.target webView:webView didFinishNavigation:navigation];
}

- (void)webView:(WKWebView *)webView
    didFailProvisionalNavigation:(WKNavigation *)navigation
                       withError:(NSError *)error
{
    if ([self.target respondsToSelector:_cmd])
        [self.target webView:webView didFailProvisionalNavigation:navigation withError:error];
    load_failed(webView, error);
}

- (void)webView:(WKWebView *)webView didFailNavigation:(WKNavigation *)navigation withError:(NSError *)error
{
    if ([self.target respondsToSelector:_cmd])
        [self.target webView:webView didFailNavigation:navigation withError:error];
    load_failed(webView, error);
}

// The web content process died. With this method present WebKit no longer reloads by
// itself (it would wait until the window is visible, so never while Clanker sits in the
// menu bar); Go reloads, backing off when the page keeps crashing.
- (void)webViewWebContentProcessDidTerminate:(WKWebView *)webView
{
    if (from_main(webView))
        goWebProcessTerminated(0);
    else
        [webView reload];
}

- (WKWebView *)webView:(WKWebView *)webView
    createWebViewWithConfiguration:(WKWebViewConfiguration *)configuration
               forNavigationAction:(WKNavigationAction *)action
                    windowFeatures:(WKWindowFeatures *)features
{
    return open_popup(webView, configuration, action, features);
}

// The file picker (attaching a picture) is Wails' own panel, for the Messages page only.
- (void)webView:(WKWebView *)webView
    runOpenPanelWithParameters:(WKOpenPanelParameters *)parameters
              initiatedByFrame:(WKFrameInfo *)frame
             completionHandler:(void (^)(NSArray<NSURL *> *URLs))completionHandler
{
    if (!goFilePicker(from_main(webView), frame.isMainFrame, ORIGIN_ARGS(frame.securityOrigin)) ||
        ![self.target respondsToSelector:_cmd]) {
        completionHandler(nil);
        return;
    }
    [self.target webView:webView runOpenPanelWithParameters:parameters initiatedByFrame:frame completionHandler:completionHandler];
}

- (void)webView:(WKWebView *)webView
    requestMediaCapturePermissionForOrigin:(WKSecurityOrigin *)origin
                          initiatedByFrame:(WKFrameInfo *)frame
                                      type:(WKMediaCaptureType)type
                           decisionHandler:(void (^)(WKPermissionDecision))decisionHandler API_AVAILABLE(macos(12.0))
{
    decisionHandler((WKPermissionDecision)goMediaDecision(from_main(webView), frame.isMainFrame, ORIGIN_ARGS(origin), (int)type));
}

@end

// ---- window geometry ----

static void report_geometry(NSWindow *w)
{
    NSScreen *screen = w.screen ?: [NSScreen mainScreen];
    NSRect f = w.frame, v = screen.visibleFrame;
    goWindowGeometry(f.origin.x, f.origin.y, f.size.width, f.size.height, v.origin.x, v.origin.y, v.size.width,
                     v.size.height);
}

static void observe_geometry(NSWindow *window)
{
    static BOOL observing;
    if (observing || window == nil)
        return;
    observing = YES;
    __weak NSWindow *weak = window;
    void (^report)(NSNotification *) = ^(NSNotification *n) {
        NSWindow *w = weak;
        if (w != nil)
            report_geometry(w);
    };
    NSNotificationCenter *nc = [NSNotificationCenter defaultCenter];
    NSOperationQueue *main = [NSOperationQueue mainQueue];
    [nc addObserverForName:NSWindowDidMoveNotification object:window queue:main usingBlock:report];
    [nc addObserverForName:NSWindowDidResizeNotification object:window queue:main usingBlock:report];
    report_geometry(window);
}

// ---- setup ----

const char *clanker_mac_setup(void *webview, const char *user_agent, const char *user_script)
{
    WKWebView *view = (__bridge WKWebView *)webview;
    if (mainView != nil)
        return mainView == view ? NULL : "another web view was set up as the main view already";
    id wails = view.UIDelegate;
    if (wails == nil || (id)view.navigationDelegate != wails)
        return "the web view's delegates are not Wails' own, so Clanker cannot stand in front of them";
    const char *err = guard_messages(wails);
    if (err != NULL)
        return err;
    mainView = view;
    wailsContext = wails;

    if (user_agent != NULL && *user_agent)
        view.customUserAgent = [NSString stringWithUTF8String:user_agent];

    // At document start, in the top frame only, in the page's own world (where Wails'
    // "external" message handler is). It applies from the next navigation on: the
    // bootstrap page only navigates to Messages after this setup has finished.
    if (user_script != NULL && *user_script) {
        NSString *source = [NSString stringWithUTF8String:user_script];
        WKUserScript *s = [[WKUserScript alloc] initWithSource:source
                                                 injectionTime:WKUserScriptInjectionTimeAtDocumentStart
                                              forMainFrameOnly:YES];
        [view.configuration.userContentController addUserScript:s];
    }

    // UIDelegate and navigationDelegate are weak: mainDelegate keeps ours alive. WebKit
    // reads which methods a delegate has when it is assigned, so assign after building.
    mainDelegate = [ClankerDelegate new];
    mainDelegate.target = wails;
    view.navigationDelegate = mainDelegate;
    view.UIDelegate = mainDelegate;

    observe_geometry(view.window);
    return NULL;
}

void clanker_mac_reload(void *webview)
{
    WKWebView *view = (__bridge WKWebView *)webview;
    if (view.URL != nil)
        [view reload];
    else if (lastCommitted != nil)
        [view loadRequest:[NSURLRequest requestWithURL:lastCommitted]];
}

// ---- trusted key input ----

int clanker_mac_window_state(void *webview)
{
    WKWebView *view = (__bridge WKWebView *)webview;
    NSWindow *window = view.window;
    if (window == nil)
        return -1;
    int state = 0;
    if (window.isVisible && !window.isMiniaturized)
        state |= 1;
    if (window.isKeyWindow && NSApp.isActive)
        state |= 2;
    return state;
}

// Routes, as app/desktop/internal/macos numbers them (KeyRoute).
enum { ROUTE_VIEW = 0, ROUTE_WINDOW = 1, ROUTE_REVEALED = 2 };

int clanker_mac_keys(void *webview, int route, int n, const int *types, const uint16_t *codes,
                     const uint64_t *modifiers, char **characters, char **ignoring)
{
    WKWebView *view = (__bridge WKWebView *)webview;
    NSWindow *window = view.window;
    if (window == nil)
        return -1;
    NSMutableArray<NSEvent *> *events = [NSMutableArray arrayWithCapacity:(NSUInteger)n];
    for (int i = 0; i < n; i++) {
        NSEvent *ev = [NSEvent keyEventWithType:(NSEventType)types[i]
                                       location:NSZeroPoint
                                  modifierFlags:(NSEventModifierFlags)modifiers[i]
                                      timestamp:[[NSProcessInfo processInfo] systemUptime]
                                   windowNumber:window.windowNumber
                                        context:nil
                                     characters:[NSString stringWithUTF8String:characters[i]]
                    charactersIgnoringModifiers:[NSString stringWithUTF8String:ignoring[i]]
                                      isARepeat:NO
                                        keyCode:codes[i]];
        if (ev == nil)
            return -2;
        [events addObject:ev];
    }
    // The keys go to this view and nowhere else: not through NSApp, not to whatever
    // window has the keyboard. Making the view its own window's first responder does not
    // activate the app or the window; it gives WebKit the responder state a typing user
    // would have.
    NSResponder *fr = window.firstResponder;
    if (!([fr isKindOfClass:[NSView class]] && [(NSView *)fr isDescendantOf:view]))
        [window makeFirstResponder:view];

    CGFloat alpha = window.alphaValue;
    BOOL ignoresMouse = window.ignoresMouseEvents;
    BOOL revealed = route == ROUTE_REVEALED && !window.isVisible;
    if (revealed) {
        // In the screen's window list, behind every other window, fully transparent and
        // click-through: nothing shows, nothing can be clicked, the app is not activated.
        window.alphaValue = 0;
        window.ignoresMouseEvents = YES;
        [window orderBack:nil];
    }
    for (NSEvent *ev in events) {
        if (route == ROUTE_VIEW) {
            if (ev.type == NSEventTypeKeyDown)
                [view keyDown:ev];
            else
                [view keyUp:ev];
        } else {
            [window sendEvent:ev];
        }
    }
    if (revealed) {
        [window orderOut:nil];
        window.alphaValue = alpha;
        window.ignoresMouseEvents = ignoresMouse;
    }
    return 0;
}

void clanker_mac_count_enters(void *webview, uint64_t job, const char *script)
{
    WKWebView *view = (__bridge WKWebView *)webview;
    if (@available(macOS 11.0, *)) {
        // An isolated world: the page can neither see the listener nor fake the count.
        WKContentWorld *world = [WKContentWorld worldWithName:@"clanker-keys"];
        [view evaluateJavaScript:[NSString stringWithUTF8String:script]
                         inFrame:nil
                  inContentWorld:world
               completionHandler:^(id result, NSError *error) {
                 long count = -1;
                 if (error == nil && [result isKindOfClass:[NSNumber class]])
                     count = [(NSNumber *)result longValue];
                 goEntersCounted(job, count);
               }];
        return;
    }
    goEntersCounted(job, -2);
}

// ---- waking from sleep ----

void clanker_mac_watch_wake(void)
{
    static id observer;
    if (observer != nil)
        return;
    // Only NSWorkspace's own notification center carries the wake notification.
    observer = [[[NSWorkspace sharedWorkspace] notificationCenter] addObserverForName:NSWorkspaceDidWakeNotification
                                                                               object:nil
                                                                                queue:[NSOperationQueue mainQueue]
                                                                           usingBlock:^(NSNotification *n) {
                                                                             goWoke();
                                                                           }];
}
