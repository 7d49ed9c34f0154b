//go:build windows

package session

import (
	"errors"
	"testing"

	"golang.org/x/sys/windows/registry"
)

// keepRunValue saves the user's own Run entry for Clanker, if there is one, and puts it
// back after the test, so running the tests on a real Windows account changes nothing.
func keepRunValue(t *testing.T) {
	t.Helper()
	k, err := registry.OpenKey(registry.CURRENT_USER, runKeyPath, registry.QUERY_VALUE)
	if err != nil {
		return
	}
	old, _, err := k.GetStringValue(runValueName)
	k.Close()
	if err != nil {
		return
	}
	t.Cleanup(func() {
		k, _, err := registry.CreateKey(registry.CURRENT_USER, runKeyPath, registry.SET_VALUE)
		if err != nil {
			t.Errorf("restore the Run entry: %v", err)
			return
		}
		defer k.Close()
		if err := k.SetStringValue(runValueName, old); err != nil {
			t.Errorf("restore the Run entry: %v", err)
		}
	})
}

func runValue(t *testing.T) (string, error) {
	t.Helper()
	k, err := registry.OpenKey(registry.CURRENT_USER, runKeyPath, registry.QUERY_VALUE)
	if err != nil {
		return "", err
	}
	defer k.Close()
	v, _, err := k.GetStringValue(runValueName)
	return v, err
}

func TestAutostartWritesAndRemovesTheRunKeyValue(t *testing.T) {
	keepRunValue(t)
	exe := `C:\Program Files\Clanker\clanker.exe`
	if err := SetAutostart(true, exe); err != nil {
		t.Fatalf("SetAutostart(true): %v", err)
	}
	got, err := runValue(t)
	if err != nil {
		t.Fatalf("no HKCU\\%s\\%s after enabling: %v", runKeyPath, runValueName, err)
	}
	if want := `"C:\Program Files\Clanker\clanker.exe" --hidden`; got != want {
		t.Errorf("Run value = %q; want %q", got, want)
	}
	if on, err := AutostartEnabled(); err != nil || !on {
		t.Errorf("AutostartEnabled after enabling: %v, %v; want true", on, err)
	}
	if err := SetAutostart(false, exe); err != nil {
		t.Fatalf("SetAutostart(false): %v", err)
	}
	if _, err := runValue(t); !errors.Is(err, registry.ErrNotExist) {
		t.Errorf("after disabling, reading the value gave %v; want it gone", err)
	}
	if on, err := AutostartEnabled(); err != nil || on {
		t.Errorf("AutostartEnabled after disabling: %v, %v; want false", on, err)
	}
	if err := SetAutostart(false, exe); err != nil {
		t.Errorf("disabling twice must not fail: %v", err)
	}
}
