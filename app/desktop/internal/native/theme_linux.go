//go:build linux

package native

/*
#cgo linux pkg-config: gtk+-3.0
#include <gtk/gtk.h>

// clanker_prefer_dark sets GTK's gtk-application-prefer-dark-theme for this process. The
// first call remembers the value GTK had (from settings.ini or XSETTINGS), so that
// mode -1 can put it back. Main thread only.
static int clanker_prefer_dark(int mode) {
	static int saved = -1;
	GtkSettings *s = gtk_settings_get_default();
	if (s == NULL) return 0;
	gboolean cur = FALSE;
	g_object_get(s, "gtk-application-prefer-dark-theme", &cur, NULL);
	if (saved < 0) saved = cur ? 1 : 0;
	gboolean want = mode < 0 ? saved : (mode ? TRUE : FALSE);
	if (want != cur) g_object_set(s, "gtk-application-prefer-dark-theme", want, NULL);
	return 1;
}
*/
import "C"

import (
	"context"
	"errors"
	"os"
)

// ForcedTheme is the GTK_THEME variable when it is set. GTK then uses that theme and
// variant ("Adwaita:dark") and ignores gtk-application-prefer-dark-theme for its own
// widgets, and WebKitGTK reads the variable's -dark/:dark suffix for the pages'
// prefers-color-scheme, so the user's forced theme already decides both: the app leaves
// it alone and does not follow the desktop's preference.
func ForcedTheme() string { return os.Getenv("GTK_THEME") }

// SetTheme asks GTK, on its main thread, for the dark or light variant of the theme, or
// gives the choice back to GTK's own settings (ThemeDefault). WebKitGTK decides every web
// view's prefers-color-scheme from gtk-application-prefer-dark-theme and follows its
// changes live, and GTK draws the window's menus with the same variant.
func SetTheme(ctx context.Context, t Theme) error {
	mode := C.int(-1)
	switch t {
	case ThemeDark:
		mode = 1
	case ThemeLight:
		mode = 0
	}
	var ok C.int
	if err := onMainThread(ctx, func() { ok = C.clanker_prefer_dark(mode) }); err != nil {
		return err
	}
	if ok == 0 {
		return errors.New("GTK has no default settings object (no display)")
	}
	return nil
}
