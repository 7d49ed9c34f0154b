//go:build linux || freebsd || openbsd || netbsd

package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAutostartEntryIsWrittenAndRemovedInXDGConfigHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "cfg"))
	exe := "/opt/Clanker Desktop/clanker"
	if err := SetAutostart(true, exe); err != nil {
		t.Fatalf("SetAutostart(true): %v", err)
	}
	path := filepath.Join(home, "cfg", "autostart", "clanker.desktop")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("want the entry at %s, got %v", path, err)
	}
	text := string(b)
	for _, want := range []string{"[Desktop Entry]\n", "Type=Application\n", `Exec="/opt/Clanker Desktop/clanker" --hidden` + "\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("entry lacks %q; whole entry:\n%s", want, text)
		}
	}
	if on, err := AutostartEnabled(); err != nil || !on {
		t.Errorf("AutostartEnabled after enabling: want true, got %v (err %v)", on, err)
	}
	if err := SetAutostart(false, exe); err != nil {
		t.Fatalf("SetAutostart(false): %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("after disabling, want %s gone, got stat err %v", path, err)
	}
	if on, _ := AutostartEnabled(); on {
		t.Error("AutostartEnabled after disabling: want false, got true")
	}
	if err := SetAutostart(false, exe); err != nil {
		t.Errorf("disabling twice must not fail, got %v", err)
	}
}

func TestAutostartFallsBackToDotConfigWithoutXDGConfigHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	p, err := xdgAutostartPath()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, ".config", "autostart", "clanker.desktop"); p != want {
		t.Fatalf("want %s, got %s", want, p)
	}
}

func TestDesktopExecQuotingEscapesSpecialCharacters(t *testing.T) {
	cases := map[string]string{
		"/usr/bin/clanker": "/usr/bin/clanker",
		"/a b/c":           `"/a b/c"`,
		`/x/$HOME"q`:       `"/x/\\$HOME\\"q"`,
		"/100%/clanker":    "/100%%/clanker",
		"":                 `""`,
	}
	for in, want := range cases {
		if got := desktopExecQuote(in); got != want {
			t.Errorf("desktopExecQuote(%q): want %s, got %s", in, want, got)
		}
	}
}
