package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/session"
	"github.com/clanker-desktop/clanker/app/desktop/window"
	"github.com/clanker-desktop/clanker/app/engine"
)

// settingsStopWait is how long Quit waits for a settings window to close after asking it
// to, before it ends the process outright.
const settingsStopWait = 3 * time.Second

// notices is the desktop side of the app: the notifier, the unread count the engine last
// gave, and the settings processes.
type notices struct {
	mu     sync.Mutex
	n      session.Notifier
	unread int
	// settingsCmd is the settings window process while it runs.
	settingsCmd *exec.Cmd
	// children are every settings process still running (the settings window and any
	// diagnostics views), each with a channel closed when it has exited, so Quit can
	// close them with the app instead of leaving them and their web views orphaned.
	children map[*exec.Cmd]chan struct{}
	// closing is set once the app quits: no new settings window starts after that.
	closing bool
	// state is what the system last said about the app's notifications (notifystate.go).
	state notifyState
}

// startNotifier connects to the desktop's notification service. Without one (a bare
// window manager, or an OS without an implementation yet) the app carries on and logs.
func (a *App) startNotifier() {
	n, err := session.NewNotifier("Clanker", "clanker")
	if err != nil {
		a.log.Warn("desktop notifications unavailable; errors are shown on the page only", "err", err)
		a.recordNotify(err)
		return
	}
	a.nt.n = n
	a.closers = append(a.closers, func() { _ = n.Close() })
	if c, ok := any(n).(session.Clickable); ok {
		c.OnClick(a.openFromNotification)
	}
	if au, ok := any(n).(session.Authorizer); ok {
		au.OnAuthorization(func(granted bool, reason string) {
			if granted {
				a.recordNotify(nil)
				return
			}
			a.recordNotify(errors.New("the user or the system declined Clanker's notifications: " + reason))
		})
	}
}

// openFromNotification brings the window to the front and opens the conversation a
// clicked notification was about.
func (a *App) openFromNotification(conversation string) {
	a.log.Info("notification clicked: opening its conversation")
	if err := a.ShowWindow(); err != nil {
		a.log.Warn("could not show the window for a clicked notification", "err", err)
		return
	}
	// The click is the user coming to the window to read: what came counts as seen even
	// where the desktop does not hand the window the focus (the next focus change from the
	// window itself is reported as usual).
	if err := a.eng.Send(engine.WindowFocus{Active: true}); err != nil {
		a.log.Warn("engine refused the window focus", "err", err)
	}
	ctx, cancel := context.WithTimeout(a.ctx, 10*time.Second)
	defer cancel()
	if err := a.link.Open(ctx, conversation); err != nil {
		a.log.Warn("could not open the conversation of a clicked notification", "err", err)
	}
}

// onFocus tells the engine whether the window is in front: coming to the front counts
// as having seen what arrived, as showing the window does (the engine decides).
func (a *App) onFocus(active bool) {
	a.focused.Store(active)
	if err := a.eng.Send(engine.WindowFocus{Active: active}); err != nil {
		a.log.Warn("engine refused the window focus", "err", err)
	}
	a.notify()
}

// notifyUser shows a desktop notification. It never blocks its caller (the page link and
// menu callbacks call it), and a failure is logged once per call, without the text.
func (a *App) notifyUser(n session.Notification) {
	a.nt.mu.Lock()
	notifier := a.nt.n
	a.nt.mu.Unlock()
	if notifier == nil {
		a.log.Info("notification not shown: no notification service", "summary", n.Summary)
		return
	}
	go func() {
		err := notifier.Notify(n)
		if err != nil {
			a.log.Warn("desktop notification failed", "err", err)
		}
		a.recordNotify(err)
	}()
}

// maxDesktopJobs bounds the desktop work waiting for the desktop worker; past it new
// work is dropped with a log line rather than holding up the engine.
const maxDesktopJobs = 256

// desktopOut is the engine's Desktop: it carries out what the engine decided, in order, on
// a goroutine of its own, so the engine never waits for D-Bus or the GUI thread.
type desktopOut struct {
	a    *App
	jobs chan func()
}

func newDesktopOut(a *App) *desktopOut {
	d := &desktopOut{a: a, jobs: make(chan func(), maxDesktopJobs)}
	go func() {
		for {
			select {
			case <-a.ctx.Done():
				return
			case job := <-d.jobs:
				job()
			}
		}
	}()
	return d
}

func (d *desktopOut) queue(what string, job func()) {
	select {
	case d.jobs <- job:
	default:
		d.a.log.Warn("desktop work dropped: the desktop is not keeping up", "what", what)
	}
}

// Notify implements engine.Desktop: shows, updates or withdraws a notification.
func (d *desktopOut) Notify(n engine.DesktopNotice) {
	d.queue("notification", func() {
		d.a.nt.mu.Lock()
		notifier := d.a.nt.n
		d.a.nt.mu.Unlock()
		if notifier == nil {
			d.a.log.Info("notification not shown: no notification service", "withdraw", n.Withdraw)
			return
		}
		var err error
		if n.Withdraw {
			err = notifier.Withdraw(n.Key)
		} else {
			err = notifier.Notify(session.FromEngine(n))
		}
		if err != nil {
			d.a.log.Warn("desktop notification failed", "withdraw", n.Withdraw, "err", err)
		}
	})
}

// Attention implements engine.Desktop: the tray's count, and the window's urgency hint.
func (d *desktopOut) Attention(unread int, urgent bool) {
	d.a.nt.mu.Lock()
	changed := d.a.nt.unread != unread
	d.a.nt.unread = unread
	d.a.nt.mu.Unlock()
	if changed {
		go d.a.notify()
	}
	d.queue("attention", func() {
		if d.a.shell == nil {
			return
		}
		if err := d.a.shell.SetUrgent(urgent); err != nil {
			d.a.log.Debug("window urgency hint not set", "err", err)
		}
	})
}

func (a *App) unreadCount() int {
	a.nt.mu.Lock()
	defer a.nt.mu.Unlock()
	return a.nt.unread
}

// settingsArgs are the global flags a child `clanker` process needs to act on the same
// data as this app.
func (a *App) settingsArgs() []string {
	var args []string
	if a.opts.DataDir != "" {
		args = append(args, "--data-dir", a.opts.DataDir)
	}
	if a.opts.Demo {
		args = append(args, "--demo")
	}
	if a.opts.NoKeychain {
		args = append(args, "--no-keychain")
	}
	return args
}

// startSettings runs `clanker settings` as its own process, so nothing on the Messages
// origin can reach the settings service. diagnostics, when not empty, opens it on the
// Diagnostics view with that text, passed on stdin (never on the command line, which
// other local users can read). While one settings window runs, no second one starts.
func (a *App) startSettings(diagnostics string) error {
	opened, err := a.launchSettings(diagnostics)
	if opened {
		a.settingsWindow(true)
	}
	return err
}

// settingsWindow tells the engine that the settings window opened or closed (its banner
// says where to enter what is missing).
func (a *App) settingsWindow(open bool) {
	if a.eng == nil {
		return
	}
	if err := a.eng.Send(engine.SettingsWindow{Open: open}); err != nil {
		a.log.Warn("engine refused the settings window's state", "err", err)
	}
}

// launchSettings starts the process for startSettings and reports whether it started the
// settings window (not a diagnostics view).
func (a *App) launchSettings(diagnostics string) (opened bool, err error) {
	a.nt.mu.Lock()
	defer a.nt.mu.Unlock()
	if a.nt.settingsCmd != nil && diagnostics == "" {
		a.log.Info("the settings window is already open")
		return false, nil
	}
	if a.nt.closing {
		return false, errors.New("settings window not opened: Clanker is quitting")
	}
	args := a.settingsArgs()
	if diagnostics != "" {
		args = append(args, "--show-diagnostics")
	}
	cmd, err := a.settingsCommand(append(args, "settings"))
	if err != nil {
		return false, err
	}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if diagnostics != "" {
		cmd.Stdin = strings.NewReader(diagnostics)
	}
	if err := cmd.Start(); err != nil {
		return false, fmt.Errorf("could not open Settings: %w", err)
	}
	if diagnostics == "" {
		a.nt.settingsCmd = cmd
		opened = true
	}
	done := make(chan struct{})
	if a.nt.children == nil {
		a.nt.children = map[*exec.Cmd]chan struct{}{}
	}
	a.nt.children[cmd] = done
	a.log.Info("settings window started", "pid", cmd.Process.Pid, "diagnostics", diagnostics != "")
	go func() {
		_ = cmd.Wait()
		a.nt.mu.Lock()
		isMain := a.nt.settingsCmd == cmd
		if isMain {
			a.nt.settingsCmd = nil
		}
		delete(a.nt.children, cmd)
		close(done)
		a.nt.mu.Unlock()
		if isMain {
			a.settingsWindow(false)
		}
	}()
	return opened, nil
}

// settingsCommand is the command line of a settings process: this program with args.
// Tests replace it (settingsExec) with a stand-in process.
func (a *App) settingsCommand(args []string) (*exec.Cmd, error) {
	if a.settingsExec != nil {
		return a.settingsExec(args), nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("could not find Clanker's program file to open Settings: %w", err)
	}
	return exec.Command(exe, args...), nil
}

// stopSettings closes every settings process with the app. Each is asked to end
// (SIGTERM; on Windows, where a process cannot be asked, it is ended at once) and, if it
// has not within settingsStopWait, killed: an open settings window must not outlive the
// app with its web view processes. Safe to call more than once.
func (a *App) stopSettings() {
	a.nt.mu.Lock()
	a.nt.closing = true
	children := make(map[*exec.Cmd]chan struct{}, len(a.nt.children))
	for c, done := range a.nt.children {
		children[c] = done
	}
	a.nt.mu.Unlock()
	for c := range children {
		if err := c.Process.Signal(syscall.SIGTERM); err != nil {
			_ = c.Process.Kill()
		}
	}
	deadline := time.After(settingsStopWait)
	for c, done := range children {
		select {
		case <-done:
		case <-deadline:
			a.log.Warn("a settings window did not close when asked; ending it", "pid", c.Process.Pid)
			_ = c.Process.Kill()
			<-done
		}
	}
	if len(children) > 0 {
		a.log.Info("settings windows closed with the app", "count", len(children))
	}
}

// showText is the menus' ShowText: diagnostics open in the settings process's
// Diagnostics view, readable and with a Copy button.
func (a *App) showText(title, text string) {
	if err := a.startSettings(title + "\n\n" + text); err != nil {
		a.log.Warn("could not show the diagnostics", "err", err)
		a.notifyUser(session.ErrorNotification("Could not show the diagnostics: " + err.Error()))
	}
}

// firstRun opens the settings window by itself when the engine is not configured at
// start; the engine's banner says what is missing. The demo fills its own settings and
// never needs it.
func (a *App) firstRun() {
	if a.opts.Demo {
		return
	}
	ctx, cancel := context.WithTimeout(a.ctx, 10*time.Second)
	defer cancel()
	snap, err := a.eng.Snapshot(ctx)
	if err != nil || snap.Configured {
		return
	}
	if err := a.startSettings(""); err != nil {
		a.log.Error("could not open the settings window on first run", "err", err)
	}
}

// pruneAutostart removes a login entry that starts a program which is gone (an earlier,
// uninstalled or moved copy of Clanker wrote it), in the demo too, before the setting is
// applied; see session.PruneAutostart.
func (a *App) pruneAutostart() {
	removed, err := session.PruneAutostart()
	if err != nil {
		a.log.Warn("could not check the login entry", "err", err)
	}
	if removed {
		a.log.Info("removed a login entry whose program no longer exists")
	}
}

// applyAutostart writes or removes the login entry to match the setting. The demo never
// registers itself.
func (a *App) applyAutostart(enabled bool) {
	if a.opts.Demo {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		a.log.Warn("autostart not updated: the program path is unknown", "err", err)
		return
	}
	if on, err := session.AutostartEnabled(); err == nil && on == enabled && !enabled {
		return
	}
	if err := session.SetAutostart(enabled, exe); err != nil {
		a.log.Warn("autostart not updated", "enabled", enabled, "err", err)
		return
	}
	a.log.Info("autostart applied", "enabled", enabled)
}

// spelling is the window's spell checking for the setting.
func spelling(sc engine.SpellCheck) *window.Spelling {
	return &window.Spelling{On: sc.Enabled, Languages: slices.Clone(sc.Languages)}
}

// applySpelling sets the page's spell checking to a saved setting, at once.
func (a *App) applySpelling(sc engine.SpellCheck) {
	if a.shell == nil {
		return
	}
	if err := a.shell.SetSpelling(*spelling(sc)); err != nil {
		a.log.Warn("spell checking not applied", "err", err)
		return
	}
	a.log.Info("spell checking applied", "on", sc.Enabled, "languages", len(sc.Languages))
}
