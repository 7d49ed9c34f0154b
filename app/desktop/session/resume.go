package session

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// Resume from sleep. After a suspend the Messages page's connection to the phone is often
// stale, and the page may not notice for minutes; a script inside the page cannot see the
// sleep at all. On Linux the desktop app listens for systemd-logind's PrepareForSleep
// signal on the system bus and reloads the page when it reports the end of a sleep
// (argument false); where there is no logind (containers), the watcher logs once and does
// nothing. On Windows it registers for the system's suspend and resume notifications
// (resume_windows.go); macOS has its own wake notification (package native).

// wakeQuiet is how long after one reload-on-wake further wake reports count as the same
// wake: Windows reports a resume more than once (PBT_APMRESUMEAUTOMATIC, then
// PBT_APMRESUMESUSPEND when the user is back), to the window and to a registered
// callback alike.
const wakeQuiet = 30 * time.Second

// WakeGate turns the reports of one wake, from however many sources, into one reload.
// Its zero value is ready.
type WakeGate struct {
	mu    sync.Mutex
	last  time.Time
	slept bool
}

// Suspended records that the machine is going to sleep: the next wake report counts,
// however soon it comes.
func (g *WakeGate) Suspended() {
	g.mu.Lock()
	g.slept = true
	g.mu.Unlock()
}

// Woke reports whether a wake reported at now calls for a reload: the first report of a
// wake does, the others of the same wake (within wakeQuiet, without a sleep between) do
// not.
func (g *WakeGate) Woke(now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.slept && !g.last.IsZero() && now.Sub(g.last) < wakeQuiet && !now.Before(g.last) {
		return false
	}
	g.last, g.slept = now, false
	return true
}

const (
	login1Path      = "/org/freedesktop/login1"
	login1Interface = "org.freedesktop.login1.Manager"
	prepareForSleep = "PrepareForSleep"
)

// watchResume calls onResume each time logind reports that the machine woke up, until ctx
// ends. conn is the system bus (nil: connect to it; DBUS_SYSTEM_BUS_ADDRESS is honoured,
// which is how tests point it at a private bus).
func watchResume(ctx context.Context, conn *dbus.Conn, onSuspend, onResume func(), log *slog.Logger) error {
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
			sleeping, ok := sig.Body[0].(bool)
			switch {
			case ok && sleeping && onSuspend != nil:
				onSuspend()
			case ok && !sleeping:
				log.Info("the machine woke up")
				onResume()
			}
		}
	}
}
