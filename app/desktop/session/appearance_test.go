//go:build linux

package session

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// standInPortal answers org.freedesktop.portal.Settings.Read like xdg-desktop-portal:
// the value wrapped in two variants.
type standInPortal struct {
	mu      sync.Mutex
	scheme  uint32
	missing bool // no appearance settings: NotFound, as a backend without them answers
}

func (p *standInPortal) Read(namespace, key string) (dbus.Variant, *dbus.Error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.missing || namespace != appearanceNamespace || key != colorSchemeKey {
		return dbus.Variant{}, dbus.NewError("org.freedesktop.portal.Error.NotFound", []any{"Requested setting not found"})
	}
	return dbus.MakeVariant(dbus.MakeVariant(p.scheme)), nil
}

func TestColorSchemeFollowsThePortalLive(t *testing.T) {
	addr := privateBus(t)
	app, desk := dial(t, addr), dial(t, addr)
	portal := &standInPortal{scheme: 1}
	if err := desk.Export(portal, portalPath, portalSettings); err != nil {
		t.Fatal(err)
	}
	if reply, err := desk.RequestName(portalName, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v %v", portalName, reply, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan ColorScheme, 16)
	done := make(chan error, 1)
	go func() { done <- followColorScheme(ctx, app, func(c ColorScheme) { got <- c }) }()

	next := func(what string) ColorScheme {
		t.Helper()
		select {
		case c := <-got:
			return c
		case err := <-done:
			t.Fatalf("%s: the watcher ended: %v", what, err)
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: nothing applied within 20 s", what)
		}
		return 0
	}
	if c := next("the first read"); c != PreferDark {
		t.Fatalf("the portal says dark (1); applied %v", c)
	}
	changed := func(ns, key string, v any) {
		t.Helper()
		if err := desk.Emit(portalPath, portalSettings+".SettingChanged", ns, key, dbus.MakeVariant(v)); err != nil {
			t.Fatal(err)
		}
	}
	// Other settings and other namespaces are not colour schemes; a repeat of the same
	// value applies nothing; then light, then a value the portal does not define, which
	// counts as no preference.
	changed("org.freedesktop.appearance", "accent-color", []float64{1, 0, 0})
	changed("org.gnome.desktop.interface", colorSchemeKey, uint32(2))
	changed(appearanceNamespace, colorSchemeKey, uint32(1))
	changed(appearanceNamespace, colorSchemeKey, uint32(2))
	if c := next("the change to light"); c != PreferLight {
		t.Fatalf("after SettingChanged(2) applied %v, want light (the signals before it are not the colour scheme or repeat dark)", c)
	}
	changed(appearanceNamespace, colorSchemeKey, uint32(7))
	if c := next("an unknown value"); c != NoPreference {
		t.Fatalf("after SettingChanged(7) applied %v, want no preference", c)
	}
	changed(appearanceNamespace, colorSchemeKey, "dark")
	changed(appearanceNamespace, colorSchemeKey, uint32(1))
	if c := next("back to dark"); c != PreferDark {
		t.Fatalf("after a malformed value and SettingChanged(1) applied %v, want dark", c)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the watcher ended with %v after its context, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the watcher did not stop when its context ended")
	}
	if len(got) != 0 {
		t.Fatalf("applied %v more than asked", <-got)
	}
}

func TestColorSchemeWithoutAPortalSaysSoAndAppliesNothing(t *testing.T) {
	addr := privateBus(t)
	app := dial(t, addr)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	applied := false
	err := followColorScheme(ctx, app, func(ColorScheme) { applied = true })
	if !errors.Is(err, ErrNoPortal) {
		t.Fatalf("with no portal on the bus: err %v, want ErrNoPortal", err)
	}
	if applied {
		t.Fatal("applied a colour scheme although no portal answered")
	}

	// A portal that has no appearance setting (an old or minimal backend) is the same.
	desk := dial(t, addr)
	if err := desk.Export(&standInPortal{missing: true}, portalPath, portalSettings); err != nil {
		t.Fatal(err)
	}
	if _, err := desk.RequestName(portalName, dbus.NameFlagDoNotQueue); err != nil {
		t.Fatal(err)
	}
	err = followColorScheme(ctx, app, func(ColorScheme) { applied = true })
	if !errors.Is(err, ErrNoPortal) || applied {
		t.Fatalf("with a portal that has no color-scheme: err %v, applied %v; want ErrNoPortal and nothing applied", err, applied)
	}
}

func TestColorSchemeOfUnwrapsVariants(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want ColorScheme
		ok   bool
	}{
		{uint32(1), PreferDark, true},
		{dbus.MakeVariant(uint32(2)), PreferLight, true},
		{dbus.MakeVariant(dbus.MakeVariant(uint32(1))), PreferDark, true},
		{dbus.MakeVariant(uint32(0)), NoPreference, true},
		{dbus.MakeVariant(uint32(9)), NoPreference, true},
		{dbus.MakeVariant("dark"), NoPreference, false},
		{int32(1), NoPreference, false},
	} {
		got, ok := colorSchemeOf(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("colorSchemeOf(%v) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
