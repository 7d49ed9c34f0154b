package run

import (
	"errors"
	"log/slog"

	"github.com/clanker-desktop/clanker/app/desktop/menus"
	"github.com/clanker-desktop/clanker/app/desktop/settingswin"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/update"
)

// newUpdateChecker is the app's update checker: none in the demo, which never asks anything
// of the network on its own; otherwise one that reads the update settings in force and hands
// each change of the notice to onNotice. A build that is not a release gets one too, which
// says in the log why it does not check and stops.
func newUpdateChecker(opts Options, dir string, settings func() engine.Updates, onNotice func(update.Notice), log *slog.Logger) *update.Checker {
	if opts.Demo {
		return nil
	}
	// The Fetcher's own client: its timeout, and redirects only to https.
	fetcher := update.Fetcher{UserAgent: "Clanker/" + opts.Version + " (update check; " + update.ReleasesPage + ")"}
	return &update.Checker{
		Version:  opts.Version,
		Dir:      dir,
		Settings: settings,
		Fetch:    fetcher.Fetch,
		OnNotice: onNotice,
		Log:      log.With("component", "update"),
	}
}

// onUpdateNotice records the update to show and redraws the menus.
func (a *App) onUpdateNotice(n update.Notice) {
	a.updateNotice.Store(&n)
	a.notify()
}

// updateStatus is the update the menus show (zero: none).
func (a *App) updateStatus() menus.UpdateNotice {
	n := a.updateNotice.Load()
	if n == nil {
		return menus.UpdateNotice{}
	}
	return menus.UpdateNotice{Version: n.Version, URL: n.URL}
}

// errNoUpdate is OpenUpdate's error when no newer release is known.
var errNoUpdate = errors.New("no newer release is known")

// OpenUpdate implements menus.Controller: the release page, in the user's browser. Clanker
// downloads and installs nothing itself.
func (a *App) OpenUpdate() error {
	n := a.updateStatus()
	if n.URL == "" {
		return errNoUpdate
	}
	if a.shell == nil {
		return errors.New("the window is not ready yet")
	}
	return a.shell.OpenInBrowser(n.URL)
}

// UpdateView is what the settings window says about updates: the update the app's last
// check found (from the state file in the data folder, which the app writes) and a sentence
// on the checks, for a build of version under the update settings u.
func UpdateView(dir, version string, u engine.Updates) settingswin.UpdateView {
	var v settingswin.UpdateView
	if _, why := update.Checkable(version); why != "" {
		v.Status = "No update checks: " + why + "."
		return v
	}
	if !u.Check {
		v.Status = "Update checks are off."
		return v
	}
	st, err := update.LoadState(dir)
	if err != nil {
		v.Status = "The last update check cannot be read: " + err.Error() + "."
		return v
	}
	n := update.NoticeFor(version, u.Check, u.Feed, st)
	v.Available, v.URL = n.Label(), n.URL
	switch {
	case st.CheckedAt.IsZero() || st.Feed != u.Feed:
		v.Status = "Not checked yet: Clanker asks the release feed about a minute after it starts, then once a day."
	case st.Error != "":
		v.Status = "Last checked " + st.CheckedAt.Local().Format("2006-01-02 15:04") + ": " + st.Error + ". The next check is a day later."
	case n.Version != "":
		v.Status = "Last checked " + st.CheckedAt.Local().Format("2006-01-02 15:04") + ": " + n.Label() + " (this is " + version + ")."
	default:
		v.Status = "Last checked " + st.CheckedAt.Local().Format("2006-01-02 15:04") + ": this is the newest version."
	}
	return v
}
