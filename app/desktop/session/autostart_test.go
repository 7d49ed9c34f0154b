package session

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestAutostartRefusesARelativeProgramPath(t *testing.T) {
	t.Setenv("HOME", testDir(t))
	if err := SetAutostart(true, "clanker"); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Fatalf("want an error saying the path must be absolute, got %v", err)
	}
}

// plistDict reads the top-level dict of an XML property list: each key's value as a
// string ("true"/"false" for booleans) or a list of strings (arrays).
func plistDict(t *testing.T, data []byte) map[string]any {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	dec.Entity = xml.HTMLEntity
	out := map[string]any{}
	var key, text string
	var list []string
	depth, inArray := 0, false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the plist is not well-formed XML: %v\n%s", err, data)
		}
		switch v := tok.(type) {
		case xml.StartElement:
			depth++
			text = ""
			switch v.Name.Local {
			case "array":
				inArray, list = true, []string{}
			case "true", "false":
				out[key] = v.Name.Local
			}
		case xml.CharData:
			text += string(v)
		case xml.EndElement:
			depth--
			switch v.Name.Local {
			case "key":
				key = text
			case "string":
				if inArray {
					list = append(list, text)
				} else if depth == 2 {
					out[key] = text
				}
			case "array":
				inArray = false
				out[key] = list
			}
		}
	}
	return out
}

func TestLaunchAgentPlistRunsTheProgramHiddenAtLoginInTheGUISession(t *testing.T) {
	exe := "/Applications/Clanker.app/Contents/MacOS/clanker & <co>"
	d := plistDict(t, []byte(launchAgentPlist(exe, AutostartArgs)))
	want := map[string]any{
		"Label":                       launchAgentLabel,
		"ProgramArguments":            []string{exe, "--hidden"},
		"RunAtLoad":                   "true",
		"KeepAlive":                   "false",
		"LimitLoadToSessionType":      "Aqua",
		"ProcessType":                 "Interactive",
		"AssociatedBundleIdentifiers": []string{launchAgentLabel},
	}
	for k, v := range want {
		if got := d[k]; !reflect.DeepEqual(got, v) {
			t.Errorf("%s = %#v, want %#v", k, got, v)
		}
	}
	if len(d) != len(want) {
		t.Errorf("the plist has keys %v, want exactly %d", d, len(want))
	}
}

func TestLaunchAgentLabelIsTheAppBundlesIdentifier(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "build", "darwin", "Info.plist"))
	if err != nil {
		t.Fatal(err)
	}
	// Info.plist is a Wails template ({{...}} fields); only the identifier matters here.
	if id := plistDict(t, data)["CFBundleIdentifier"]; id != launchAgentLabel {
		t.Errorf("Info.plist's CFBundleIdentifier is %v, the LaunchAgent says %s: macOS would attribute the login item to another app", id, launchAgentLabel)
	}
}

func TestLaunchAgentIsWrittenUnderLibraryLaunchAgentsAndRemoved(t *testing.T) {
	home := testDir(t)
	exe := "/Applications/Clanker.app/Contents/MacOS/clanker"
	if on, err := launchAgentEnabled(home); err != nil || on {
		t.Fatalf("before: enabled=%v err=%v, want false", on, err)
	}
	if err := setLaunchAgent(home, true, exe, AutostartArgs); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, "Library", "LaunchAgents", "io.github.clanker-desktop.clanker.plist")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("want the login item at %s: %v", path, err)
	}
	if got := plistDict(t, data)["ProgramArguments"]; !reflect.DeepEqual(got, []string{exe, "--hidden"}) {
		t.Errorf("ProgramArguments = %v", got)
	}
	// A Unix file mode; Windows (where make test-windows also runs this) has none.
	if fi, err := os.Stat(path); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o644) {
		t.Errorf("mode %v (err %v), want 0644: launchd ignores agents others can write", fi.Mode().Perm(), err)
	}
	if on, err := launchAgentEnabled(home); err != nil || !on {
		t.Errorf("after enabling: enabled=%v err=%v", on, err)
	}
	// Enabling again (the app does at every start) points it at the binary running now.
	moved := "/Users/sam/Applications/Clanker.app/Contents/MacOS/clanker"
	if err := setLaunchAgent(home, true, moved, AutostartArgs); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	if got := plistDict(t, data)["ProgramArguments"]; !reflect.DeepEqual(got, []string{moved, "--hidden"}) {
		t.Errorf("after the app moved, ProgramArguments = %v", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("LaunchAgents holds %d files, want only the plist (no temp file left)", len(entries))
	}
	if err := setLaunchAgent(home, false, "", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("after disabling, want %s gone, got %v", path, err)
	}
	if err := setLaunchAgent(home, false, "", nil); err != nil {
		t.Errorf("disabling twice must not fail, got %v", err)
	}
}

func TestWindowsRunValueQuotesTheProgram(t *testing.T) {
	if got, want := windowsRunValue(`C:\Program Files\Clanker\clanker.exe`, AutostartArgs), `"C:\Program Files\Clanker\clanker.exe" --hidden`; got != want {
		t.Fatalf("want %s, got %s", want, got)
	}
}

// A login item naming a copy of Clanker that is gone after a restart (App Translocation,
// or the disk image it came in) is refused with a sentence saying what to do; one in
// Applications, or on a writable external disk, is written.
func TestTheLoginItemRefusesATranslocatedOrDiskImageCopy(t *testing.T) {
	for _, c := range []struct {
		exe      string
		readOnly bool
		refused  string
	}{
		{"/private/var/folders/xy/abc/T/AppTranslocation/1A2B/d/Clanker.app/Contents/MacOS/clanker", false, "App Translocation"},
		{"/Volumes/Clanker 1.2.0/Clanker.app/Contents/MacOS/clanker", true, "disk image"},
		{"/Applications/Clanker.app/Contents/MacOS/clanker", false, ""},
		{"/Users/sam/Applications/Clanker.app/Contents/MacOS/clanker", false, ""},
		{"/Volumes/External/Apps/Clanker.app/Contents/MacOS/clanker", false, ""},
	} {
		why := launchAgentRefusal(c.exe, c.readOnly)
		switch {
		case c.refused == "" && why != "":
			t.Errorf("%s refused: %s", c.exe, why)
		case c.refused != "" && (!strings.Contains(why, c.refused) || !strings.Contains(why, "Applications folder")):
			t.Errorf("%s: reason %q; want it to name %q and say to move Clanker.app to Applications", c.exe, why, c.refused)
		}
	}
	home := testDir(t)
	err := setLaunchAgent(home, true, "/private/var/folders/x/T/AppTranslocation/9/d/Clanker.app/Contents/MacOS/clanker", AutostartArgs)
	if err == nil {
		t.Fatal("a translocated copy got a login item")
	}
	if on, _ := launchAgentEnabled(home); on {
		t.Fatal("the refused login item was written anyway")
	}
}
