package run

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// notifyStateFile keeps, beside the database, whether the system last refused Clanker's
// notifications, so `clanker diag`, which runs as a process of its own, can say so. The
// running app writes it when that changes: at start when the system offers no
// notifications, when the user declines them (macOS asks once), when a notification is
// not shown, and again once one is.
const notifyStateFile = "notifications.json"

// notifyState is the file's content.
type notifyState struct {
	Refused bool      `json:"refused"`
	Reason  string    `json:"reason,omitempty"`
	At      time.Time `json:"at"`
}

// maxNotifyReason bounds the reason kept: it is the system's error text.
const maxNotifyReason = 300

// nextNotifyState is the state after a notification outcome (err nil: shown, or
// allowed) at now, and whether it differs from cur enough to be written: only changes
// are, so a stream of notifications writes nothing.
func nextNotifyState(cur notifyState, err error, now time.Time) (notifyState, bool) {
	if err == nil {
		if !cur.Refused {
			return cur, false
		}
		return notifyState{At: now.UTC()}, true
	}
	reason := strings.TrimSpace(err.Error())
	if r := []rune(reason); len(r) > maxNotifyReason {
		reason = string(r[:maxNotifyReason]) + "..."
	}
	if cur.Refused && cur.Reason == reason {
		return cur, false
	}
	return notifyState{Refused: true, Reason: reason, At: now.UTC()}, true
}

// notifyNote is what the diagnostics report says about st ("" when nothing was refused).
func notifyNote(st notifyState) string {
	if !st.Refused {
		return ""
	}
	return "Notifications: the system refused or could not show Clanker's notifications (last at " +
		st.At.UTC().Format(time.RFC3339) + "): " + st.Reason +
		". On macOS allow Clanker in System Settings > Notifications; on Windows in Settings > System > Notifications."
}

// readNotifyState reads the file in dir; a missing or unreadable file reads as nothing
// refused.
func readNotifyState(dir string) notifyState {
	var st notifyState
	b, err := os.ReadFile(filepath.Join(dir, notifyStateFile))
	if err != nil || json.Unmarshal(b, &st) != nil {
		return notifyState{}
	}
	return st
}

// recordNotify takes one notification outcome and writes the file when the state changed.
func (a *App) recordNotify(err error) {
	a.nt.mu.Lock()
	next, changed := nextNotifyState(a.nt.state, err, time.Now())
	a.nt.state = next
	a.nt.mu.Unlock()
	if !changed || a.dir == "" {
		return
	}
	b, _ := json.Marshal(next)
	path := filepath.Join(a.dir, notifyStateFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		a.log.Warn("notification state not saved", "err", err)
		return
	}
	if err := os.Rename(tmp, path); err != nil {
		a.log.Warn("notification state not saved", "err", err)
	}
}
