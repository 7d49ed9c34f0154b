//go:build darwin

package native

/*
#cgo LDFLAGS: -framework Foundation -framework UserNotifications
#include <stdlib.h>
#include "notify_darwin.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"unsafe"

	"github.com/clanker-desktop/clanker/app/desktop/internal/macos"
)

// InitNotifications prepares macOS user notifications (UNUserNotificationCenter) for
// this process and asks the user's permission the first time. It fails when the
// process is not Clanker.app (no bundle identifier): macOS shows notifications only on
// behalf of an app bundle.
func InitNotifications() error {
	if msg := C.clanker_mac_notify_init(); msg != nil {
		return errors.New(C.GoString(msg))
	}
	return nil
}

var (
	notesMu   sync.Mutex
	notesNext uint64
	notesWait = map[uint64]chan error{}
)

// PostNotification shows n and waits until macOS has taken it (or refused it: the
// user turned Clanker's notifications off), or until ctx ends.
func PostNotification(ctx context.Context, n macos.Notification) error {
	done := make(chan error, 1)
	notesMu.Lock()
	notesNext++
	id := notesNext
	notesWait[id] = done
	notesMu.Unlock()
	defer func() {
		notesMu.Lock()
		delete(notesWait, id)
		notesMu.Unlock()
	}()
	ident, title, body, thread := C.CString(n.Identifier), C.CString(n.Title), C.CString(n.Body), C.CString(n.ThreadID)
	defer C.free(unsafe.Pointer(ident))
	defer C.free(unsafe.Pointer(title))
	defer C.free(unsafe.Pointer(body))
	defer C.free(unsafe.Pointer(thread))
	sound := C.int(0)
	if n.Sound {
		sound = 1
	}
	C.clanker_mac_notify(C.uint64_t(id), ident, title, body, thread, sound)
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("macOS did not take the notification in time: %w", ctx.Err())
	}
}

//export goNotifyDone
func goNotifyDone(id C.uint64_t, errText *C.char) {
	var err error
	if errText != nil {
		err = fmt.Errorf("macOS did not show the notification (allow Clanker in System Settings > Notifications): %s", C.GoString(errText))
	}
	notesMu.Lock()
	done := notesWait[uint64(id)]
	notesMu.Unlock()
	if done != nil {
		done <- err
	}
}

// macOS's answer to the permission request, kept for a handler set after it came.
var (
	authMu      sync.Mutex
	authKnown   bool
	authGranted bool
	authReason  string
	authFn      func(granted bool, reason string)
)

// OnNotifyAuthorization makes fn learn macOS's answer to the notification permission
// request (on a goroutine), at once if it came already.
func OnNotifyAuthorization(fn func(granted bool, reason string)) {
	authMu.Lock()
	authFn = fn
	known, granted, reason := authKnown, authGranted, authReason
	authMu.Unlock()
	if known && fn != nil {
		go fn(granted, reason)
	}
}

//export goNotifyAuthorized
func goNotifyAuthorized(granted C.int, errText *C.char) {
	log := slog.Default().With("component", "notifications")
	reason := C.GoString(errText)
	if granted != 0 {
		log.Info("macOS notifications are allowed for Clanker")
	} else {
		if reason == "" {
			reason = "notifications are off for Clanker"
		}
		log.Warn("macOS notifications are off for Clanker; turn them on in System Settings > Notifications > Clanker", "err", reason)
	}
	authMu.Lock()
	authKnown, authGranted, authReason = true, granted != 0, reason
	fn := authFn
	authMu.Unlock()
	if fn != nil {
		go fn(granted != 0, reason)
	}
}
