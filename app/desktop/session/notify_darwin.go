//go:build darwin && cgo

package session

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/internal/macos"
	"github.com/clanker-desktop/clanker/app/desktop/internal/native"
)

// macNotifier shows notifications through macOS's UNUserNotificationCenter. The
// Objective-C lives in internal/native with the rest of the app's cgo; what a
// notification says is built by macos.NewNotification, tested on every system.
//
// macOS shows notifications only for an app bundle: run from Clanker.app (whose
// Info.plist carries the bundle identifier) this works; the bare binary gets an error
// from NewNotifier and the app logs instead. macOS asks the user once whether Clanker
// may notify; until they agree, Notify returns macOS's refusal.
type macNotifier struct {
	run string
	seq atomic.Uint64
}

// NewNotifier prepares macOS notifications. appName and icon are the bundle's own on
// macOS (its Info.plist and icon), so they are not used.
func NewNotifier(appName, icon string) (Notifier, error) {
	if err := native.InitNotifications(); err != nil {
		return nil, err
	}
	return &macNotifier{run: strconv.FormatInt(time.Now().UnixNano(), 36)}, nil
}

func (m *macNotifier) Notify(n Notification) error {
	req := macos.NewNotification(n.Summary, n.Body, n.Urgent, m.run, m.seq.Add(1))
	if n.Key != "" {
		// A request with the identifier of one delivered replaces it (untested on macOS).
		req.Identifier = "clanker." + m.run + "." + n.Key
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return native.PostNotification(ctx, req)
}

// OnAuthorization passes on macOS's answer to the permission request NewNotifier made.
func (m *macNotifier) OnAuthorization(fn func(granted bool, reason string)) {
	native.OnNotifyAuthorization(fn)
}

// Withdraw leaves the notification in Notification Center: removing a delivered one
// needs Objective-C the app does not have yet.
func (m *macNotifier) Withdraw(key string) error { return nil }

// Close does nothing: notifications already shown stay in Notification Center.
func (m *macNotifier) Close() error { return nil }
