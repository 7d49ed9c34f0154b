//go:build linux || freebsd || openbsd || netbsd

package session

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
)

func TestCheckDisplayNeedsAnX11OrWaylandDisplay(t *testing.T) {
	for _, c := range []struct {
		x11, wayland string
		ok           bool
	}{{"", "", false}, {":0", "", true}, {"", "wayland-0", true}} {
		t.Setenv("DISPLAY", c.x11)
		t.Setenv("WAYLAND_DISPLAY", c.wayland)
		if err := CheckDisplay(); (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrNoDisplay)) {
			t.Errorf("DISPLAY=%q WAYLAND_DISPLAY=%q: CheckDisplay() = %v", c.x11, c.wayland, err)
		}
	}
}

// An unset bus address with no bus socket is replaced by one nothing can connect to (so no
// client library starts a bus); a set address or a socket in XDG_RUNTIME_DIR is left alone.
func TestAvoidBusAutolaunchOnlyWhenThereIsNoBus(t *testing.T) {
	rt := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", rt)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/somewhere")
	if note := AvoidBusAutolaunch(); note != "" || os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "unix:path=/somewhere" {
		t.Errorf("a set address was changed: %q, note %q", os.Getenv("DBUS_SESSION_BUS_ADDRESS"), note)
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	if note := AvoidBusAutolaunch(); note == "" || os.Getenv("DBUS_SESSION_BUS_ADDRESS") != busDisabled {
		t.Errorf("no bus: want the address disabled and a note, got %q, note %q", os.Getenv("DBUS_SESSION_BUS_ADDRESS"), note)
	}
	l, err := net.Listen("unix", filepath.Join(rt, "bus"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	if note := AvoidBusAutolaunch(); note != "" || os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		t.Errorf("a bus socket in XDG_RUNTIME_DIR was ignored: %q, note %q", os.Getenv("DBUS_SESSION_BUS_ADDRESS"), note)
	}
}
