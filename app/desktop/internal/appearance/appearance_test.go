package appearance

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/app/desktop/internal/native"
	"github.com/clanker-desktop/clanker/app/desktop/session"
)

func TestFollowHandsEachSchemeToTheToolkit(t *testing.T) {
	var set []native.Theme
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	watch := func(_ context.Context, apply func(session.ColorScheme)) error {
		for _, c := range []session.ColorScheme{session.PreferDark, session.PreferLight, session.NoPreference} {
			apply(c)
		}
		return nil
	}
	follow(context.Background(), log, "", watch, func(_ context.Context, th native.Theme) error {
		set = append(set, th)
		return nil
	})
	want := []native.Theme{native.ThemeDark, native.ThemeLight, native.ThemeDefault}
	if fmt.Sprint(set) != fmt.Sprint(want) {
		t.Fatalf("the toolkit was given %v, want %v", set, want)
	}
}

func TestFollowWithoutAPortalOrWithAForcedThemeLeavesTheToolkitAlone(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	set := func(context.Context, native.Theme) error {
		t.Fatal("the toolkit's theme was changed")
		return nil
	}
	follow(context.Background(), log, "", func(context.Context, func(session.ColorScheme)) error {
		return fmt.Errorf("%w: org.freedesktop.DBus.Error.ServiceUnknown", session.ErrNoPortal)
	}, set)
	if n := strings.Count(logs.String(), "level=DEBUG"); n != 1 || strings.Contains(logs.String(), "level=WARN") {
		t.Fatalf("no portal: want one debug line and no warning, got:\n%s", logs.String())
	}
	logs.Reset()
	watched := false
	follow(context.Background(), log, "Adwaita:dark", func(context.Context, func(session.ColorScheme)) error {
		watched = true
		return nil
	}, set)
	if watched || !strings.Contains(logs.String(), "GTK_THEME") {
		t.Fatalf("GTK_THEME set: watched the portal %v; log:\n%s", watched, logs.String())
	}
}
