package session

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/godbus/dbus/v5"
)

// Resume from sleep. After a suspend the Messages page's connection to the phone is often
// stale, and the page may not notice for minutes; a script inside the page cannot see the
// sleep at all. The desktop app listens for systemd-logind's PrepareForSleep signal on the
// system bus and reloads the page when it reports the end of a sleep (argument false). Where
// there is no logind (other OSes, containers), the watcher logs once and does nothing.

const (
	login1Path      = "/org/freedesktop/login1"
	login1Interface = "org.freedesktop.login1.Manager"
	prepareForSleep = "PrepareForSleep"
)

// WatchResume calls onResume each time logind reports that the machine woke up, until ctx
// ends. It connects to the system bus (DBUS_SYSTEM_BUS_ADDRESS is honoured) and fails
// when there is none or logind's signal cannot be watched; the caller logs that once.
func WatchResume(ctx context.Context, onResume func(), log *slog.Logger) error {
	return watchResume(ctx, nil, onResume, log)
}

// watchResume calls onResume each time logind reports that the machine woke up, until ctx
// ends. conn is the system bus (nil: connect to it; DBUS_SYSTEM_BUS_ADDRESS is honoured,
// which is how tests point it at a private bus).
func watchResume(ctx context.Context, conn *dbus.Conn, onResume func(), log *slog.Logger) error {
	if conn == nil {
		c, err := dbus.ConnectSystemBus(dbus.WithContext(ctx))
		if err != nil {
			return fmt.Errorf("connect to the system bus to watch for resume: %w", err)
		}
		defer c.Close()
		conn = c
	}
	if err := conn.AddMatchSignalContext(ctx,
		dbus.WithMatchObjectPath(login1Path),
		dbus.WithMatchInterface(login1Interface),
		dbus.WithMatchMember(prepareForSleep),
	); err != nil {
		return fmt.Errorf("watch logind's %s: %w", prepareForSleep, err)
	}
	ch := make(chan *dbus.Signal, 8)
	conn.Signal(ch)
	defer conn.RemoveSignal(ch)
	for {
		select {
		case <-ctx.Done():
			return nil
		case sig, ok := <-ch:
			if !ok {
				return nil
			}
			if sig.Path != login1Path || sig.Name != login1Interface+"."+prepareForSleep || len(sig.Body) != 1 {
				continue
			}
			if sleeping, ok := sig.Body[0].(bool); ok && !sleeping {
				log.Info("the machine woke up; reloading the page")
				onResume()
			}
		}
	}
}
