package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/session"
	"github.com/clanker-desktop/clanker/app/page"
)

// Banner key of the first-run explanation.
const bannerFirstRun = "firstrun"

// FirstRunBanner explains, on the page, why a settings window opened by itself.
const FirstRunBanner = "Welcome to Clanker. The settings window has opened: enter your model's endpoint, API key and model, and your name. Clanker stays out of every conversation until then."

// FirstRunClosedBanner replaces FirstRunBanner once the settings window has closed with
// the settings still incomplete: it no longer says a window is open, and says where to
// find it again.
const FirstRunClosedBanner = "Clanker is not set up yet: open Settings (in the Clanker menu, the tray icon's menu or the status pill's menu) and enter your model's endpoint, API key and model, and your name. Clanker stays out of every conversation until then."

// settingsStopWait is how long Quit waits for a settings window to close after asking it
// to, before it ends the process outright.
const settingsStopWait = 3 * time.Second

// noticeRepeat is how long the same error text is not notified again: the engine may
// report one failure per message, and one notification says it.
const noticeRepeat = time.Minute

// notices is the desktop-notification side of the app: the notifier, which messages it
// has shown lately, and the unread count while the window is hidden.
type notices struct {
	mu     sync.Mutex
	n      session.Notifier
	recent map[string]time.Time
	unread int
	// settingsCmd is the settings window process while it runs.
	settingsCmd *exec.Cmd
	// children are every settings process still running (the settings window and any
	// diagnostics views), each with a channel closed when it has exited, so Quit can
	// close them with the app instead of leaving them and their web views orphaned.
	children map[*exec.Cmd]chan struct{}
	// closing is set once the app quits: no new settings window starts after that.
	closing bool
	// firstRun is set while the first-run banner stands.
	firstRun bool
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
	ctx, cancel := context.WithTimeout(a.ctx, 10*time.Second)
	defer cancel()
	if err := a.link.Open(ctx, conversation); err != nil {
		a.log.Warn("could not open the conversation of a clicked notification", "err", err)
	}
}

// onFocus records whether the window is in front. Coming to the front counts as
// having seen what arrived, as showing the window does.
func (a *App) onFocus(active bool) {
	a.focused.Store(active)
	if active && !a.hidden.Load() {
		a.nt.mu.Lock()
		a.nt.unread = 0
		a.nt.mu.Unlock()
	}
	a.notify()
}

// away reports whether new messages go unseen: the window is hidden, minimised or
// behind another window.
func (a *App) away() bool { return a.hidden.Load() || !a.focused.Load() }

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

// onNotice turns the page's error toasts and banners into desktop notifications when
// the user asked for error notifications. The informational banners (demo, first run,
// pairing) are not errors.
func (a *App) onNotice(n page.Notice) {
	if n.Banner && (n.Key == bannerDemo || n.Key == bannerFirstRun || n.Text == page.PairingExplanation) {
		return
	}
	if !a.cur.Load().st.Notifications.Errors {
		return
	}
	now := time.Now()
	a.nt.mu.Lock()
	if a.nt.recent == nil {
		a.nt.recent = map[string]time.Time{}
	}
	for text, at := range a.nt.recent {
		if now.Sub(at) >= noticeRepeat {
			delete(a.nt.recent, text)
		}
	}
	_, seen := a.nt.recent[n.Text]
	a.nt.recent[n.Text] = now
	a.nt.mu.Unlock()
	if seen {
		return
	}
	a.notifyUser(session.ErrorNotification(n.Text))
}

// onIncoming counts messages that arrive while the window is not in front (the tray
// icon shows the count) and, unless the user turned it off, notifies about each, without
// its text when hide-content is on. A click on the notification opens its conversation.
func (a *App) onIncoming(in page.Incoming) {
	if !a.away() {
		return
	}
	a.nt.mu.Lock()
	a.nt.unread++
	a.nt.mu.Unlock()
	go a.notify()
	ns := a.cur.Load().st.Notifications
	if !ns.IncomingWhileHidden {
		return
	}
	n := session.IncomingMessage(in.Sender, in.Text, ns.HideContent)
	n.Target = in.Conversation
	a.notifyUser(n)
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
	reopened, err := a.launchSettings(diagnostics)
	if reopened {
		// The first-run banner said the window had closed; it is open again.
		a.link.SetBanner(bannerFirstRun, FirstRunBanner)
	}
	return err
}

// launchSettings starts the process for startSettings and reports whether it is the
// settings window opened while the first-run banner stands.
func (a *App) launchSettings(diagnostics string) (firstRun bool, err error) {
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
		firstRun = a.nt.firstRun
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
		firstRun := a.nt.firstRun && !a.nt.closing
		a.nt.mu.Unlock()
		if isMain && firstRun && !a.configuredInStore() {
			a.link.SetBanner(bannerFirstRun, FirstRunClosedBanner)
		}
	}()
	return firstRun, nil
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

// configuredInStore reads the stored settings and key afresh: the settings window may
// have saved a moment before it closed, before the watcher applied the save.
func (a *App) configuredInStore() bool {
	st, err := a.store.Settings(a.ctx)
	if err != nil {
		return false
	}
	key, _, err := a.store.APIKey(a.ctx)
	if err != nil {
		return false
	}
	if a.opts.Demo && a.fake != nil {
		st, key = DemoEndpoint(st, key, a.fake.BaseURL())
	}
	return len(st.Missing(key != "")) == 0
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

// firstRun opens the settings window by itself when the settings are incomplete at
// start, and says why on the page. The demo fills its own settings and never needs it.
func (a *App) firstRun() {
	e := a.cur.Load()
	if a.opts.Demo || len(e.st.Missing(e.hasKey)) == 0 {
		return
	}
	a.nt.mu.Lock()
	a.nt.firstRun = true
	a.nt.mu.Unlock()
	if err := a.startSettings(""); err != nil {
		a.log.Error("could not open the settings window on first run", "err", err)
		a.link.SetBanner(bannerFirstRun, FirstRunClosedBanner)
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
