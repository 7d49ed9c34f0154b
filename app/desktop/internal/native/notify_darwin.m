// macOS user notifications for Clanker (compiled with ARC). Wails v2.13 has its own
// UNUserNotificationCenter code, but it needs Wails' window context, and Clanker's
// notifier starts before the window exists; this small version needs nothing but the
// app bundle.

#import <Foundation/Foundation.h>
#import <UserNotifications/UserNotifications.h>
#include "notify_darwin.h"
#include "_cgo_export.h"

// Clanker needs macOS 12 (build/darwin/Info.plist); the availability marks only keep
// the compiler quiet when the build's deployment target is older (Wails says 10.13).
API_AVAILABLE(macos(10.14))
@interface ClankerNotificationDelegate : NSObject <UNUserNotificationCenterDelegate>
@end

@implementation ClankerNotificationDelegate

// macOS keeps a notification off screen while its app is the active one; Clanker's
// errors matter then too.
- (void)userNotificationCenter:(UNUserNotificationCenter *)center
       willPresentNotification:(UNNotification *)notification
         withCompletionHandler:(void (^)(UNNotificationPresentationOptions))completionHandler
{
    if (@available(macOS 11.0, *)) {
        completionHandler(UNNotificationPresentationOptionBanner | UNNotificationPresentationOptionList |
                          UNNotificationPresentationOptionSound);
    } else {
        completionHandler(UNNotificationPresentationOptionAlert | UNNotificationPresentationOptionSound);
    }
}

- (void)userNotificationCenter:(UNUserNotificationCenter *)center
    didReceiveNotificationResponse:(UNNotificationResponse *)response
             withCompletionHandler:(void (^)(void))completionHandler
{
    completionHandler(); // a click brings the app forward; nothing more to do
}

@end

static id notifyDelegate; // a ClankerNotificationDelegate; the center's delegate is weak

static char *note_cstr(NSString *s)
{
    const char *c = s.UTF8String;
    return (char *)(c ? c : "");
}

const char *clanker_mac_notify_init(void)
{
    // Called on a Go thread, which has no autorelease pool of its own: whatever AppKit and
    // UserNotifications autorelease here is released when the pool ends, not leaked.
    @autoreleasepool {
        // Without a bundle identifier +currentNotificationCenter raises an exception that
        // ends the process, so this is checked first: the bare binary (tests, `go run`) has
        // none; Clanker.app has the one in build/darwin/Info.plist.
        if ([[NSBundle mainBundle] bundleIdentifier] == nil)
            return "macOS notifications need Clanker.app: this program runs outside an app bundle, so it has no "
                   "bundle identifier to show them under";
        if (notifyDelegate != nil)
            return NULL;
        if (@available(macOS 10.14, *)) {
            UNUserNotificationCenter *center = [UNUserNotificationCenter currentNotificationCenter];
            ClankerNotificationDelegate *delegate = [ClankerNotificationDelegate new];
            notifyDelegate = delegate;
            center.delegate = delegate;
            [center requestAuthorizationWithOptions:(UNAuthorizationOptionAlert | UNAuthorizationOptionSound)
                                  completionHandler:^(BOOL granted, NSError *error) {
                                    goNotifyAuthorized(granted ? 1 : 0, error ? note_cstr(error.localizedDescription) : "");
                                  }];
            return NULL;
        }
        return "macOS notifications need macOS 10.14 or later";
    }
}

void clanker_mac_notify(uint64_t job, const char *identifier, const char *title, const char *body, const char *thread,
                        int sound)
{
    // Called on a Go thread: see clanker_mac_notify_init.
    @autoreleasepool {
        if (@available(macOS 10.14, *)) {
            UNMutableNotificationContent *content = [UNMutableNotificationContent new];
            content.title = [NSString stringWithUTF8String:title] ?: @"Clanker";
            content.body = [NSString stringWithUTF8String:body] ?: @"";
            content.threadIdentifier = [NSString stringWithUTF8String:thread] ?: @"";
            if (sound)
                content.sound = [UNNotificationSound defaultSound];
            NSString *ident = [NSString stringWithUTF8String:identifier] ?: [[NSUUID UUID] UUIDString];
            UNNotificationRequest *request = [UNNotificationRequest requestWithIdentifier:ident
                                                                                  content:content
                                                                                  trigger:nil];
            [[UNUserNotificationCenter currentNotificationCenter]
                addNotificationRequest:request
                 withCompletionHandler:^(NSError *error) {
                   goNotifyDone(job, error ? note_cstr(error.localizedDescription) : NULL);
                 }];
        } else {
            goNotifyDone(job, "macOS notifications need macOS 10.14 or later");
        }
    }
}
