//go:build windows && installer

package wintest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/session"
	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"
)

// The installer's silent install and uninstall (setup.exe /S, uninstall.exe /S) on a
// Windows whose state the test may change: a throw-away Wine prefix (make test-windows)
// or a CI runner (.github/workflows/windows.yml). CLANKER_SETUP_EXE names the installer
// (build/dist.sh windows makes it).

// webView2Key is where the installer looks for an installed WebView2 runtime; without
// it, it runs Microsoft's bootstrapper, which needs the internet.
const webView2Key = `SOFTWARE\WOW6432Node\Microsoft\EdgeUpdate\Clients\{F3017226-FE2A-4295-8BDF-00C3A9A7E4C5}`

const uninstallKey = `Software\Microsoft\Windows\CurrentVersion\Uninstall\Clanker`

func knownFolder(t *testing.T, id *windows.KNOWNFOLDERID) string {
	t.Helper()
	p, err := windows.KnownFolderPath(id, 0)
	if err != nil {
		t.Fatalf("known folder: %v", err)
	}
	return p
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func keyExists(root registry.Key, path string) bool {
	k, err := registry.OpenKey(root, path, registry.QUERY_VALUE|registry.WOW64_64KEY)
	if err != nil {
		return false
	}
	k.Close()
	return true
}

func stringValue(t *testing.T, root registry.Key, path, name string) string {
	t.Helper()
	k, err := registry.OpenKey(root, path, registry.QUERY_VALUE|registry.WOW64_64KEY)
	if err != nil {
		t.Errorf("registry key %s missing: %v", path, err)
		return ""
	}
	defer k.Close()
	v, _, err := k.GetStringValue(name)
	if err != nil {
		t.Errorf("registry value %s\\%s missing: %v", path, name, err)
	}
	return v
}

// seedWebView2 makes the installer believe the WebView2 runtime is installed, unless it
// is, and undoes that afterwards.
func seedWebView2(t *testing.T) {
	t.Helper()
	if keyExists(registry.LOCAL_MACHINE, webView2Key) {
		return
	}
	k, _, err := registry.CreateKey(registry.LOCAL_MACHINE, webView2Key, registry.SET_VALUE|registry.WOW64_64KEY)
	if err != nil {
		t.Fatalf("seed the WebView2 key: %v", err)
	}
	defer k.Close()
	if err := k.SetStringValue("pv", "120.0.0.0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := registry.DeleteKey(registry.LOCAL_MACHINE, webView2Key); err != nil {
			t.Logf("remove the seeded WebView2 key: %v", err)
		}
	})
}

func run(t *testing.T, exe string, args ...string) {
	t.Helper()
	cmd := exec.Command(exe, args...)
	// A process the installer starts can inherit its output and outlive it (under Wine,
	// a wineserver or explorer.exe started on demand): once the installer has exited,
	// wait only briefly for the rest of its output.
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil
	}
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", exe, args, err, out)
	}
}

// waitGone waits for the uninstaller, which copies itself to the temp folder and goes
// on there after the started process has ended.
func waitGone(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for exists(path) {
		if time.Now().After(deadline) {
			t.Fatalf("%s still there 2 minutes after the uninstaller started", path)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestSilentInstallAndUninstall(t *testing.T) {
	setup := os.Getenv("CLANKER_SETUP_EXE")
	if setup == "" {
		t.Fatal("set CLANKER_SETUP_EXE to the installer to test (make test-windows builds one)")
	}
	if keyExists(registry.LOCAL_MACHINE, uninstallKey) {
		t.Fatal("Clanker is installed on this system already; the test installs and uninstalls it, so run it on a throw-away system")
	}
	seedWebView2(t)
	appData := knownFolder(t, windows.FOLDERID_RoamingAppData)
	programDir := filepath.Join(knownFolder(t, windows.FOLDERID_ProgramFiles), "Clanker")
	startMenu := filepath.Join(knownFolder(t, windows.FOLDERID_CommonPrograms), "Clanker.lnk")
	desktop := filepath.Join(knownFolder(t, windows.FOLDERID_PublicDesktop), "Clanker.lnk")

	// What a user's earlier runs left: Clanker's data and the WebView2 profile.
	dataDir := filepath.Join(appData, "Clanker")
	profile := filepath.Join(appData, "clanker.exe", "EBWebView")
	for _, d := range []string{dataDir, profile} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(dataDir, "clanker.db")
	if err := os.WriteFile(db, []byte("the user's conversations"), 0o600); err != nil {
		t.Fatal(err)
	}
	cookies := filepath.Join(profile, "Cookies")
	if err := os.WriteFile(cookies, []byte("the Messages pairing"), 0o600); err != nil {
		t.Fatal(err)
	}

	run(t, setup, "/S")
	exe := filepath.Join(programDir, "clanker.exe")
	uninstaller := filepath.Join(programDir, "uninstall.exe")
	for _, f := range []string{exe, uninstaller, startMenu, desktop} {
		if !exists(f) {
			t.Errorf("after install, %s is missing", f)
		}
	}
	if got := stringValue(t, registry.LOCAL_MACHINE, uninstallKey, "DisplayName"); got != "Clanker" {
		t.Errorf("Apps entry DisplayName %q; want Clanker", got)
	}
	if got := stringValue(t, registry.LOCAL_MACHINE, uninstallKey, "QuietUninstallString"); !strings.EqualFold(got, `"`+uninstaller+`" /S`) {
		t.Errorf("QuietUninstallString %q; want %q", got, `"`+uninstaller+`" /S`)
	}
	if t.Failed() {
		t.FailNow()
	}

	// What the installed app writes for its user: the login entry and the toast
	// registration (the same code the app runs).
	if err := session.SetAutostart(true, exe); err != nil {
		t.Fatal(err)
	}
	if err := session.RegisterAppID("Clanker"); err != nil {
		t.Fatal(err)
	}
	runKey := `Software\Microsoft\Windows\CurrentVersion\Run`
	if got := stringValue(t, registry.CURRENT_USER, runKey, "Clanker"); got != `"`+exe+`" --hidden` {
		t.Fatalf("Run value %q before uninstalling", got)
	}

	// A Clanker still running from the program folder: here `config set ... -`, which
	// waits on its input, on a data folder of its own. The uninstaller stops it first
	// (Windows cannot delete a running program).
	runningData, err := os.MkdirTemp("", "clanker-wintest-running-")
	if err != nil {
		t.Fatal(err)
	}
	running := exec.Command(exe, "--data-dir", runningData, "--no-keychain", "config", "set", "model", "-")
	stdin, err := running.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := running.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- running.Wait() }()
	// It has opened its store (and waits on its input) once the database exists.
	for deadline := time.Now().Add(time.Minute); !exists(filepath.Join(runningData, "clanker.db")); {
		select {
		case err := <-ended:
			t.Fatalf("the installed clanker.exe ended before the uninstall (%v); the test needs it running", err)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the installed clanker.exe did not open its store within a minute")
		}
	}

	run(t, uninstaller, "/S")
	select {
	case <-ended:
	case <-time.After(time.Minute):
		t.Fatal("the Clanker that ran from the program folder still runs after the uninstaller ran")
	}
	waitGone(t, programDir)
	for _, f := range []string{startMenu, desktop, profile} {
		waitGone(t, f)
	}
	if keyExists(registry.LOCAL_MACHINE, uninstallKey) {
		t.Error("the Apps entry is still there after uninstalling")
	}
	if k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.QUERY_VALUE); err == nil {
		_, _, err := k.GetStringValue("Clanker")
		k.Close()
		if !errors.Is(err, registry.ErrNotExist) {
			t.Errorf("the Run value is still there after uninstalling (%v)", err)
		}
	}
	if keyExists(registry.CURRENT_USER, `Software\Classes\AppUserModelId\`+session.AppUserModelID) {
		t.Error("the toast registration is still there after uninstalling")
	}
	if b, err := os.ReadFile(db); err != nil || string(b) != "the user's conversations" {
		t.Errorf("uninstalling touched Clanker's data in %s (%q, %v); it must stay", dataDir, b, err)
	}
	for _, p := range []string{db, dataDir, filepath.Join(appData, "clanker.exe")} {
		_ = os.Remove(p)
	}
}
