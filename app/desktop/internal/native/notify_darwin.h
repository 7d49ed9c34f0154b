// macOS user notifications (UNUserNotificationCenter) for Clanker.
#ifndef CLANKER_NOTIFY_DARWIN_H
#define CLANKER_NOTIFY_DARWIN_H

#include <stdint.h>

// clanker_mac_notify_init sets Clanker's delegate on the notification center and asks
// for permission (macOS asks the user once; the answer reaches goNotifyAuthorized). It
// returns NULL, or a sentence saying why notifications cannot work in this process.
const char *clanker_mac_notify_init(void);

// clanker_mac_notify posts one notification; the outcome reaches goNotifyDone with job.
void clanker_mac_notify(uint64_t job, const char *identifier, const char *title, const char *body, const char *thread,
                        int sound);

#endif
