// The Clanker items of the page's right-click menu on macOS (compiled with ARC).
//
// WKWebView shows its context menu with +[NSMenu popUpContextMenu:withEvent:forView:],
// and AppKit calls -[NSView willOpenMenu:withEvent:] on the view first: the documented
// place to change a view's context menu. Wails' view class does not define it, so it is
// added to that class here, calling the inherited implementation first.

#import <Cocoa/Cocoa.h>
#import <WebKit/WebKit.h>
#import <objc/runtime.h>
#include <stdlib.h>
#include "contextmenu_darwin.h"
#include "_cgo_export.h"

static char *menu_cstr(NSString *s)
{
    const char *c = s.UTF8String;
    return (char *)(c ? c : "");
}

@interface ClankerMenuTarget : NSObject <NSMenuItemValidation>
@end

@implementation ClankerMenuTarget

// representedObject is @[action, target, enabled].
- (void)clicked:(NSMenuItem *)item
{
    NSArray *info = item.representedObject;
    // Go hands the work to a goroutine: nothing here may block the main thread.
    goContextMenuActivated(menu_cstr(info[0]), menu_cstr(info[1]));
}

- (BOOL)validateMenuItem:(NSMenuItem *)item
{
    NSArray *info = item.representedObject;
    return [info isKindOfClass:[NSArray class]] && [info[2] boolValue];
}

@end

static ClankerMenuTarget *menuTarget;
static __weak NSView *contextView;
static IMP inheritedWillOpen;
static NSArray<NSDictionary *> *itemSpecs;

void clanker_mac_context_menu_set(int n, char **labels, char **actions, char **targets, const uint8_t *flags,
                                  const int *depths)
{
    NSMutableArray *specs = [NSMutableArray arrayWithCapacity:n];
    for (int i = 0; i < n; i++) {
        [specs addObject:@{
            @"label" : [NSString stringWithUTF8String:labels[i]] ?: @"",
            @"action" : [NSString stringWithUTF8String:actions[i]] ?: @"",
            @"target" : [NSString stringWithUTF8String:targets[i]] ?: @"",
            @"flags" : @(flags[i]),
            @"depth" : @(depths[i]),
        }];
    }
    itemSpecs = specs;
}

// build_items appends the Clanker items to menu, fresh each time (an NSMenuItem can be
// in one menu only).
static void build_items(NSMenu *menu)
{
    NSMutableArray<NSMenu *> *stack = [NSMutableArray arrayWithObject:menu];
    NSMenuItem *opener = nil;
    for (NSDictionary *spec in itemSpecs) {
        int depth = [spec[@"depth"] intValue];
        int flags = [spec[@"flags"] intValue];
        while ((int)stack.count - 1 > depth)
            [stack removeLastObject];
        if ((int)stack.count - 1 < depth) {
            if (opener == nil)
                continue;
            NSMenu *sub = [[NSMenu alloc] initWithTitle:opener.title];
            sub.autoenablesItems = NO;
            opener.submenu = sub;
            [stack addObject:sub];
        }
        NSMenu *into = stack.lastObject;
        if ((flags & CLANKER_MAC_ITEM_SEPARATOR) != 0) {
            if (into.numberOfItems > 0)
                [into addItem:[NSMenuItem separatorItem]];
            continue;
        }
        NSString *action = spec[@"action"];
        BOOL enabled = (flags & CLANKER_MAC_ITEM_ENABLED) != 0;
        NSMenuItem *item = [[NSMenuItem alloc] initWithTitle:spec[@"label"] action:NULL keyEquivalent:@""];
        if (action.length > 0) {
            item.target = menuTarget;
            item.action = @selector(clicked:);
            item.representedObject = @[ action, spec[@"target"], @(enabled) ];
        }
        item.enabled = enabled && (action.length > 0 || (flags & CLANKER_MAC_ITEM_OPENS) != 0);
        item.state = (flags & CLANKER_MAC_ITEM_CHECKED) != 0 ? NSControlStateValueOn : NSControlStateValueOff;
        [into addItem:item];
        if ((flags & CLANKER_MAC_ITEM_OPENS) != 0)
            opener = item;
    }
}

// add_items drops WebKit's items Go does not keep, then appends Clanker's.
static void add_items(NSMenu *menu)
{
    NSInteger n = menu.numberOfItems;
    if (n > 0) {
        char **ids = calloc((size_t)n, sizeof(char *));
        uint8_t *seps = calloc((size_t)n, 1);
        uint8_t *keep = calloc((size_t)n, 1);
        NSMutableArray *names = [NSMutableArray arrayWithCapacity:(NSUInteger)n]; // keeps the C strings alive
        for (NSInteger i = 0; i < n; i++) {
            NSMenuItem *it = [menu itemAtIndex:i];
            NSString *ident = it.identifier ?: @"";
            [names addObject:ident];
            ids[i] = menu_cstr(ident);
            seps[i] = it.isSeparatorItem ? 1 : 0;
        }
        goKeepWebKitItems(ids, seps, keep, (int)n);
        for (NSInteger i = n - 1; i >= 0; i--) {
            if (!keep[i])
                [menu removeItemAtIndex:i];
        }
        free(ids);
        free(seps);
        free(keep);
    }
    build_items(menu);
}

int clanker_mac_context_menu_install(void *webview)
{
    NSView *view = (__bridge NSView *)webview;
    if (menuTarget != nil)
        return contextView == view;
    SEL sel = @selector(willOpenMenu:withEvent:);
    // [view class], not object_getClass: a key-value observer would have swapped in a
    // subclass of its own that could go away again.
    Class cls = [view class];
    Method m = class_getInstanceMethod(cls, sel);
    if (m == NULL)
        return 0;
    menuTarget = [ClankerMenuTarget new];
    contextView = view;
    inheritedWillOpen = method_getImplementation(m);
    IMP mine = imp_implementationWithBlock(^(NSView *me, NSMenu *menu, NSEvent *event) {
        ((void (*)(id, SEL, NSMenu *, NSEvent *))inheritedWillOpen)(me, sel, menu, event);
        if (me == contextView)
            add_items(menu);
    });
    // Added to Wails' class, it overrides WKWebView's; if the class already had one of
    // its own, that one is replaced and called first instead.
    if (!class_addMethod(cls, sel, mine, method_getTypeEncoding(m)))
        inheritedWillOpen = method_setImplementation(m, mine);
    return 1;
}

static int activate_in(NSMenu *menu, NSString *name, NSString *target)
{
    for (NSInteger i = 0; i < menu.numberOfItems; i++) {
        NSMenuItem *it = [menu itemAtIndex:i];
        if (it.submenu != nil) {
            if (activate_in(it.submenu, name, target))
                return 1;
            continue;
        }
        NSArray *info = it.representedObject;
        if (![info isKindOfClass:[NSArray class]] || ![info[0] isEqualToString:name])
            continue;
        if ([name isEqualToString:@"mode"] && ![info[1] isEqualToString:target])
            continue;
        if (!it.isEnabled)
            return 0;
        [menu performActionForItemAtIndex:i];
        return 1;
    }
    return 0;
}

int clanker_mac_context_menu_activate(const char *name, const char *target)
{
    if (menuTarget == nil)
        return 0;
    NSMenu *menu = [[NSMenu alloc] initWithTitle:@"Clanker"];
    menu.autoenablesItems = NO;
    build_items(menu);
    return activate_in(menu, [NSString stringWithUTF8String:name] ?: @"", [NSString stringWithUTF8String:target] ?: @"");
}
