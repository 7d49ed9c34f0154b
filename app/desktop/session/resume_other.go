//go:build !windows

package session

import (
	"context"
	"log/slog"
)

// WatchResume calls onResume each time logind reports that the machine woke up, until ctx
// ends; onSuspend, if not nil, when it goes to sleep. It connects to the system bus
// (DBUS_SYSTEM_BUS_ADDRESS is honoured) and fails when there is none or logind's signal
// cannot be watched; the caller logs that once.
func WatchResume(ctx context.Context, onSuspend, onResume func(), log *slog.Logger) error {
	return watchResume(ctx, nil, onSuspend, onResume, log)
}
