// Package appearance makes a window process follow the desktop's light or dark
// preference: it joins what package session reads from the desktop (the freedesktop
// settings portal on Linux) to what package native sets in the toolkit (GTK's dark theme
// preference, which WebKitGTK turns into the pages' prefers-color-scheme). The main
// window and the settings window, each in its own process, both run it.
package appearance

import (
	"context"
	"errors"
	"log/slog"

	"github.com/clanker-desktop/clanker/app/desktop/internal/native"
	"github.com/clanker-desktop/clanker/app/desktop/session"
)

// Follow applies the desktop's colour scheme now and after every change, until ctx ends;
// run it on a goroutine once the toolkit's main loop runs (Wails' OnStartup). Without a
// settings portal it logs that once at debug level and leaves the toolkit's theme as it
// is; a GTK_THEME set by the user wins over the desktop's preference.
func Follow(ctx context.Context, log *slog.Logger) {
	follow(ctx, log, native.ForcedTheme(), session.FollowColorScheme, native.SetTheme)
}

// follow is Follow with its platform parts passed in, for tests.
func follow(ctx context.Context, log *slog.Logger, forced string,
	watch func(context.Context, func(session.ColorScheme)) error,
	set func(context.Context, native.Theme) error) {
	if forced != "" {
		log.Debug("GTK_THEME is set; the windows keep that theme and do not follow the desktop's light or dark preference", "GTK_THEME", forced)
		return
	}
	err := watch(ctx, func(c session.ColorScheme) {
		if err := set(ctx, native.Theme(c)); err != nil {
			if ctx.Err() == nil {
				log.Warn("could not apply the desktop's colour scheme", "scheme", c.String(), "err", err)
			}
			return
		}
		log.Debug("following the desktop's colour scheme", "scheme", c.String())
	})
	switch {
	case errors.Is(err, session.ErrNoPortal):
		log.Debug("the desktop does not say whether it prefers light or dark; the toolkit's theme decides", "err", err)
	case err != nil:
		log.Debug("not following the desktop's colour scheme", "err", err)
	}
}
