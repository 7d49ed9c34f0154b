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

	mu      sync.Mutex
	shown   map[string]uint32 // the server's id of the notification shown under each key
	targets map[uint32]string // what a click on each shown notification opens
	onClick func(target string)
}

// maxTargets bounds the click targets remembered; the oldest notifications have long
// been replaced or closed.
const maxTargets = 64

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
	d := &DBusNotifier{conn: conn, appName: appName, icon: icon, targets: map[uint32]string{}, shown: map[string]uint32{}}
	// A click ("default" action) comes back as the server's ActionInvoked signal.
	if err := conn.AddMatchSignal(dbus.WithMatchInterface(notifyName), dbus.WithMatchObjectPath(notifyPath)); err != nil {
		conn.Close()
		return nil, fmt.Errorf("notifications: listen for clicks: %w", err)
	}
	signals := make(chan *dbus.Signal, 16)
	conn.Signal(signals)
	go d.listen(signals)
	return d, nil
}

// OnClick implements Clickable.
func (d *DBusNotifier) OnClick(fn func(target string)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.onClick = fn
}

// listen turns ActionInvoked signals for notifications this notifier showed into
// clicks, until the connection closes.
func (d *DBusNotifier) listen(signals <-chan *dbus.Signal) {
	for sig := range signals {
		switch sig.Name {
		case notifyName + ".ActionInvoked":
			var id uint32
			var action string
			if dbus.Store(sig.Body, &id, &action) != nil || action != "default" {
				continue
			}
			d.mu.Lock()
			target, ok := d.targets[id]
			fn := d.onClick
			d.mu.Unlock()
			if ok && fn != nil {
				fn(target)
			}
		case notifyName + ".NotificationClosed":
			var id, reason uint32
			if dbus.Store(sig.Body, &id, &reason) == nil {
				d.mu.Lock()
				delete(d.targets, id)
				for k, v := range d.shown {
					if v == id {
						delete(d.shown, k) // closed: the next one under its key is new
					}
				}
				d.mu.Unlock()
			}
		}
	}
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
	if n.Sound {
		// The freedesktop sound naming specification's name for an instant message.
		hints["sound-name"] = dbus.MakeVariant("message-new-instant")
		hints["category"] = dbus.MakeVariant("im.received")
	}
	actions := []string{}
	if n.Target != "" {
		// "default" is the click on the notification itself.
		actions = []string{"default", "Open"}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	var replaces uint32
	if n.Key != "" {
		replaces = d.shown[n.Key]
	}
	obj := d.conn.Object(notifyName, notifyPath)
	call := obj.Call(notifyName+".Notify", 0,
		d.appName, replaces, d.icon, n.Summary, escapeMarkup(n.Body),
		actions, hints, int32(-1))
	if call.Err != nil {
		return fmt.Errorf("notifications: Notify: %w", call.Err)
	}
	var id uint32
	if err := call.Store(&id); err == nil {
		if n.Key != "" {
			if len(d.shown) >= maxTargets {
				clear(d.shown)
			}
			d.shown[n.Key] = id
		}
		delete(d.targets, id)
		if n.Target != "" {
			if len(d.targets) >= maxTargets {
				clear(d.targets)
			}
			d.targets[id] = n.Target
		}
	}
	return nil
}

// Withdraw closes the notification shown under key (CloseNotification); nothing is shown
// under it afterwards.
func (d *DBusNotifier) Withdraw(key string) error {
	d.mu.Lock()
	id, ok := d.shown[key]
	delete(d.shown, key)
	delete(d.targets, id)
	d.mu.Unlock()
	if !ok {
		return nil
	}
	if call := d.conn.Object(notifyName, notifyPath).Call(notifyName+".CloseNotification", 0, id); call.Err != nil {
		return fmt.Errorf("notifications: CloseNotification: %w", call.Err)
	}
	return nil
}

// Close ends the bus connection.
func (d *DBusNotifier) Close() error { return d.conn.Close() }
