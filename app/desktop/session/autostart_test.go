package session

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestAutostartEntryIsWrittenAndRemovedInXDGConfigHome(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Fatalf("this test covers the XDG autostart path; GOOS=%s has its own untested implementation", runtime.GOOS)
	}
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

func TestAutostartRefusesARelativeProgramPath(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	if err := SetAutostart(true, "clanker"); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Fatalf("want an error saying the path must be absolute, got %v", err)
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

func TestLaunchAgentPlistRunsTheProgramHiddenAtLoad(t *testing.T) {
	p := launchAgentPlist("/Applications/Clanker.app/Contents/MacOS/clanker & co", AutostartArgs)
	for _, want := range []string{
		"<string>" + launchAgentLabel + "</string>",
		"<string>/Applications/Clanker.app/Contents/MacOS/clanker &amp; co</string>",
		"<string>--hidden</string>",
		"<key>RunAtLoad</key>\n\t<true/>",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("plist lacks %q:\n%s", want, p)
		}
	}
}

func TestWindowsRunValueQuotesTheProgram(t *testing.T) {
	if got, want := windowsRunValue(`C:\Program Files\Clanker\clanker.exe`, AutostartArgs), `"C:\Program Files\Clanker\clanker.exe" --hidden`; got != want {
		t.Fatalf("want %s, got %s", want, got)
	}
}
