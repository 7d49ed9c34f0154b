package window

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/session"
)

// Restarting after WebView2's browser process died. The web view cannot be used again:
// go-webview2 ends the process on the first failed call, and Wails' own focus and resize
// handlers call the dead controller. Building a new web view in the same window leaves
// Wails pointing at the dead one, and go-webview2's Embed waits in a message loop of its
// own that may never end. So Clanker restarts instead: it starts a new copy of itself,
// with the same arguments and the window shown or hidden as it is now, which takes over
// once this process has ended (session.PredecessorEnv), and quits. Everything it keeps
// (settings, modes, memory, the window's place) is in the data folder already.

// restartHistoryEnv carries the times of recent restarts into the new process, so a
// browser process that keeps dying does not restart Clanker for ever.
const restartHistoryEnv = "CLANKER_BROWSER_RESTARTS"

// At most maxRestarts restarts within restartWindow; the next crash ends the app with
// Wails' message instead.
const (
	maxRestarts   = 3
	restartWindow = 10 * time.Minute
)

// planRestart decides whether a browser-process crash at now restarts the app, given
// history (restartHistoryEnv's value: Unix seconds, comma-separated), and returns the
// history to hand on. Entries older than restartWindow, and garbage, are dropped.
func planRestart(history string, now time.Time) (restart bool, next string) {
	var kept []string
	for _, f := range strings.Split(history, ",") {
		sec, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			continue
		}
		if at := time.Unix(sec, 0); !at.After(now) && now.Sub(at) < restartWindow {
			kept = append(kept, strconv.FormatInt(sec, 10))
		}
	}
	if len(kept) >= maxRestarts {
		return false, strings.Join(kept, ",")
	}
	kept = append(kept, strconv.FormatInt(now.Unix(), 10))
	return true, strings.Join(kept, ",")
}

// restartArgs are the new process's arguments: this one's, with --hidden (in any of the
// spellings the flag package accepts) present exactly when the window is hidden now.
func restartArgs(args []string, hidden bool) []string {
	out := make([]string, 0, len(args)+1)
	for i, a := range args {
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "hidden" {
			continue
		}
		out = append(out, a)
	}
	if hidden {
		// Flags may follow the command's words, but not a "--".
		for i, a := range out {
			if a == "--" {
				return append(append(append([]string{}, out[:i]...), "--hidden"), out[i:]...)
			}
		}
		out = append(out, "--hidden")
	}
	return out
}

// browserProcessEnded starts the process that takes over and quits this one; it
// reports false when it does not restart (too many restarts lately, or the new process
// could not start), and the platform then ends the app with Wails' message. It runs on
// the GUI thread, so the quit goes to a goroutine.
func (s *Shell) browserProcessEnded() bool {
	restart, history := planRestart(os.Getenv(restartHistoryEnv), time.Now())
	if !restart {
		s.log.Error("the WebView2 browser process keeps ending; not restarting again", "restarts_within", restartWindow.String())
		return false
	}
	exe, err := os.Executable()
	if err != nil {
		s.log.Error("the WebView2 browser process ended and Clanker cannot find its own program to restart", "err", err)
		return false
	}
	cmd := exec.Command(exe, restartArgs(os.Args[1:], !s.Visible())...)
	cmd.Env = append(os.Environ(), session.PredecessorEnv+"="+strconv.Itoa(os.Getpid()), restartHistoryEnv+"="+history)
	if err := cmd.Start(); err != nil {
		s.log.Error("the WebView2 browser process ended and Clanker could not restart", "err", err)
		return false
	}
	pid := cmd.Process.Pid
	_ = cmd.Process.Release()
	s.log.Error("the WebView2 browser process ended; Clanker restarts (the new process takes over once this one has quit)", "pid", pid)
	go func() {
		if err := s.Quit(); err != nil {
			s.log.Error("quit for the restart", "err", err)
		}
	}()
	return true
}
