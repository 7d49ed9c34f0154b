package session

import (
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"
)

// PredecessorEnv carries, into a Clanker that its predecessor started to take over, the
// predecessor's process id. The window does that when WebView2's browser process died
// (the view cannot be used again, so the app restarts with its state, which is all in
// the data folder). The new process must not claim the data folder while the old one
// still holds it, or it would only wake the old one and exit: AcquireInstance first
// waits for the old process to end.
const PredecessorEnv = "CLANKER_RESTART_OF"

// predecessorWait bounds that wait: the old process quits at once, but a hung one must
// not keep the new one from ever starting (it then finds the old one and wakes it).
const predecessorWait = 30 * time.Second

// predecessorPID reads PredecessorEnv's value: a process id other than self.
func predecessorPID(v string, self int) (int, bool) {
	pid, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || pid <= 0 || pid == self {
		return 0, false
	}
	return pid, true
}

// waitForPredecessor waits for the process named by PredecessorEnv, if any, to end, and
// removes the variable so that processes this one starts do not wait for it too.
func waitForPredecessor(log *slog.Logger) {
	v, ok := os.LookupEnv(PredecessorEnv)
	if !ok {
		return
	}
	_ = os.Unsetenv(PredecessorEnv)
	pid, ok := predecessorPID(v, os.Getpid())
	if !ok {
		log.Warn("ignoring a predecessor process that is not one", "value", v)
		return
	}
	log.Info("waiting for the Clanker this one restarts to end", "pid", pid)
	if err := waitProcessEnd(pid, predecessorWait); err != nil {
		log.Warn("the Clanker this one restarts did not end; carrying on", "pid", pid, "err", err)
	}
}
