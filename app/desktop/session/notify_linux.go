//go:build linux || freebsd || openbsd || netbsd

package session

import (
	"fmt"
	"sync"

	"github.com/godbus/dbus/v5"
)

const (
	notifyName = "org.freedesktop.Notifications"
	notifyPath = "/org/freedesktop/Notifications"
)

// DBusNotifier sends notifications to the desktop's notification server over the session
// bus (org.freedesktop.Notifications.Notify). It keeps one private connection.
type DBusNotifier struct {
	conn    *dbus.Conn
	appName string
	icon    string

	mu   sync.Mutex
	last uint32 // replaced by the next notification so they do not pile up
}

// NewNotifier connects to the session bus. icon is an icon name or an absolute path
// ("" for none).
func NewNotifier(appName, icon string) (*DBusNotifier, error) {
	conn, err := dbus.SessionBusPrivate()
	if err != nil {
		return nil, fmt.Errorf("notifications: connect to the session bus: %w", err)
	}
	if err := conn.Auth(nil); err != nil {
		conn.Close()
		return nil, fmt.Errorf("notifications: session bus auth: %w", err)
	}
	if err := conn.Hello(); err != nil {
		conn.Close()
		return nil, fmt.Errorf("notifications: session bus hello: %w", err)
	}
	return &DBusNotifier{conn: conn, appName: appName, icon: icon}, nil
}

// Notify shows n. It fails when no notification server answers (e.g. a bare window
// manager); callers log that and carry on.
func (d *DBusNotifier) Notify(n Notification) error {
	urgency := byte(1)
	if n.Urgent {
		urgency = 2
	}
	hints := map[string]dbus.Variant{
		"urgency":       dbus.MakeVariant(urgency),
		"desktop-entry": dbus.MakeVariant("clanker"),
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	obj := d.conn.Object(notifyName, notifyPath)
	call := obj.Call(notifyName+".Notify", 0,
		d.appName, d.last, d.icon, n.Summary, escapeMarkup(n.Body),
		[]string{}, hints, int32(-1))
	if call.Err != nil {
		return fmt.Errorf("notifications: Notify: %w", call.Err)
	}
	var id uint32
	if err := call.Store(&id); err == nil {
		d.last = id
	}
	return nil
}

// Close ends the bus connection.
func (d *DBusNotifier) Close() error { return d.conn.Close() }
