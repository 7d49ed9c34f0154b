//go:build linux

package e2e

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// leftoversHeading is the README section that lists what each platform keeps after an
// uninstall; its "| Linux |" rows name the places as `~/...` or `$XDG_RUNTIME_DIR/...`
// paths (a trailing / is a folder and everything in it; * matches within a name).
const leftoversHeading = "### What uninstalling leaves behind"

// readmeLinuxPlaces reads those places from the README.
func readmeLinuxPlaces(t *testing.T) []string {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	code := regexp.MustCompile("`((?:~|\\$XDG_RUNTIME_DIR)/[^`]*)`")
	var places []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == leftoversHeading:
			in = true
		case in && strings.HasPrefix(line, "#"):
			in = false
		case in && strings.HasPrefix(line, "| Linux"):
			cells := strings.Split(line, " | ")
			if len(cells) < 2 {
				continue
			}
			for _, m := range code.FindAllStringSubmatch(cells[1], -1) {
				places = append(places, m[1])
			}
		}
	}
	if len(places) == 0 {
		t.Fatalf("README.md has no %q section with | Linux | rows naming `~/...` places", leftoversHeading)
	}
	return places
}

// listed reports whether rel (a path under HOME, or $XDG_RUNTIME_DIR/...) is one of the
// README's places or inside one.
func listed(rel string, places []string) bool {
	for _, p := range places {
		p = strings.TrimPrefix(p, "~/")
		if strings.HasSuffix(p, "/") {
			if ok, _ := filepath.Match(strings.TrimSuffix(p, "/"), firstParts(rel, strings.Count(p, "/"))); ok {
				return true
			}
			continue
		}
		if ok, _ := filepath.Match(p, rel); ok {
			return true
		}
	}
	return false
}

// firstParts is the first n slash-separated parts of rel.
func firstParts(rel string, n int) string {
	parts := strings.Split(rel, "/")
	if len(parts) < n {
		return rel
	}
	return strings.Join(parts[:n], "/")
}

// Every file the real app writes in a user's home (its data folder at the default place,
// WebKit's folders, the login entry, the settings window's) is in a place the README's
// uninstall list names, so a new place written without being listed fails here. The app
// runs in a throw-away HOME with the XDG folders inside it, without --data-dir; it goes
// through a first start (settings window), settings saved with `clanker config` (start at
// login on), and a conversation opened.
func TestEveryFileTheAppWritesIsListedInTheREADME(t *testing.T) {
	needDisplay(t)
	places := readmeLinuxPlaces(t)
	f := newFullApp(t)
	f.app = StartApp(t, display, f.bin, 60*time.Second,
		"--no-keychain", "--messages-url", f.sim.AppURL(),
		"--popup-origin", f.sim.AccountsURL(), "--test-control", "{ready}", "-v")
	parts := strings.Fields(f.app.Control)
	if len(parts) != 2 {
		t.Fatalf("test control file holds %q, want URL and token", f.app.Control)
	}
	f.url, f.token = parts[0], parts[1]
	home := f.app.Home
	config := func(stdin string, args ...string) {
		t.Helper()
		cmd := exec.Command(f.bin, append([]string{"--no-keychain", "config"}, args...)...)
		cmd.Env = display.Env(home)
		cmd.Stdin = strings.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("clanker config %v: %v\n%s", args, err, out)
		}
	}
	testkit.WaitFor(t, 60*time.Second, "the settings window to open by itself", func() (bool, string) {
		return windowVisible("Clanker settings"), "no visible window titled Clanker settings"
	})
	config("", "set", "endpoint", f.llm.BaseURL())
	config("", "set", "model", "fake-model")
	config("", "set", "user_name", "Sam")
	config("sk-leftover-key-0123456789abcdef\n", "set", "api_key", "-")
	config("", "set", "autostart", "true")
	autostart := filepath.Join(home, ".config", "autostart", "clanker.desktop")
	testkit.WaitFor(t, 20*time.Second, "the configured app to write its login entry", func() (bool, string) {
		_, err := os.Stat(autostart)
		st := f.status()
		return st.Configured && err == nil, fmt.Sprintf("%+v, entry: %v", st, err)
	})
	f.closeSettingsWindows()
	f.open(f.conversation(sim.DemoBob))
	f.waitMode("deactivated")
	if _, err := os.Stat(filepath.Join(home, ".config", "Clanker", "clanker.db")); err != nil {
		t.Fatalf("the app did not use the default data folder: %v", err)
	}
	f.app.Stop()

	runtime := filepath.Join(home, "run")
	var unlisted []string
	seen := 0
	err := filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(home, path)
		if rel == "ready" { // the test control file this test asked for
			return nil
		}
		if r, err := filepath.Rel(runtime, path); err == nil && !strings.HasPrefix(r, "..") {
			rel = "$XDG_RUNTIME_DIR/" + r
			if !listed(rel, places) {
				unlisted = append(unlisted, rel)
			}
			return nil
		}
		seen++
		if !listed(rel, places) {
			unlisted = append(unlisted, "~/"+rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 5 {
		t.Fatalf("only %d files in the app's home; the walk did not see what the app wrote", seen)
	}
	if len(unlisted) > 0 {
		t.Fatalf("the app wrote files in places the README's %q does not list (add them, with how to remove them):\n  %s\nlisted places: %q",
			leftoversHeading, strings.Join(unlisted, "\n  "), places)
	}
}
