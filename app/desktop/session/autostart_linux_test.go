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

// An entry whose program is gone (uninstalled, moved) is removed at the app's next start;
// one whose program is there, or that names no absolute program, stays.
func TestPruneAutostartRemovesOnlyAnEntryWhoseProgramIsGone(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "cfg"))
	path := filepath.Join(home, "cfg", "autostart", "clanker.desktop")
	exe := filepath.Join(home, "opt", "Clanker 100%", "clanker")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if removed, err := PruneAutostart(); removed || err != nil {
		t.Fatalf("no entry: PruneAutostart = %v, %v; want false, nil", removed, err)
	}
	if err := SetAutostart(true, exe); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "TryExec="+exe+"\n") {
		t.Errorf("the entry has no TryExec naming the program (desktops then skip it once the program is gone):\n%s", b)
	}
	if removed, err := PruneAutostart(); removed || err != nil {
		t.Fatalf("program present: PruneAutostart = %v, %v; want the entry kept", removed, err)
	}
	if err := os.Remove(exe); err != nil {
		t.Fatal(err)
	}
	if removed, err := PruneAutostart(); !removed || err != nil {
		t.Fatalf("program gone: PruneAutostart = %v, %v; want the entry removed", removed, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the entry is still at %s (stat: %v)", path, err)
	}

	// An entry an older version wrote has no TryExec: its quoted Exec program counts.
	old := "[Desktop Entry]\nType=Application\nName=Clanker\nExec=" + desktopExecQuote(exe) + " --hidden\n"
	write := func(entry string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(entry), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(old)
	if removed, err := PruneAutostart(); !removed || err != nil {
		t.Fatalf("older entry for a missing program: PruneAutostart = %v, %v; want removed", removed, err)
	}
	// Something the app did not write (no absolute program) is left alone.
	write("[Desktop Entry]\nType=Application\nExec=clanker --hidden\n")
	if removed, err := PruneAutostart(); removed || err != nil {
		t.Fatalf("entry with a relative program: PruneAutostart = %v, %v; want it kept", removed, err)
	}
}

func TestEntryProgramReadsWhatDesktopEntryWrote(t *testing.T) {
	for _, exe := range []string{"/usr/bin/clanker", "/opt/Clanker Desktop/clanker", `/x/$HOME"q\b`, "/100%/clanker", "/a\tb/clanker"} {
		entry := desktopEntry(exe, AutostartArgs)
		if got := entryProgram(entry); got != exe {
			t.Errorf("entryProgram of the entry for %q = %q", exe, got)
		}
		noTry := strings.Join(strings.FieldsFunc(entry, func(r rune) bool { return r == '\n' }), "\n")
		noTry = strings.Replace(noTry, "TryExec=", "X-Old-TryExec=", 1)
		if got := entryProgram(noTry); got != exe {
			t.Errorf("entryProgram from Exec alone for %q = %q", exe, got)
		}
	}
}
