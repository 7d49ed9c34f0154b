//go:build windows

package wintest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/app/sqlite"
)

// Where the README says Clanker keeps its data on Windows: %AppData%\Clanker, the
// user's roaming application data. (The WebView2 profile, %AppData%\clanker.exe, is
// go-webview2's default; the installer test checks that uninstalling removes it and
// keeps this folder.)
func TestClankerKeepsItsDataInAppDataClanker(t *testing.T) {
	appData := os.Getenv("APPDATA")
	if appData == "" {
		t.Fatal("APPDATA is not set: not a Windows user environment")
	}
	dir, err := sqlite.DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(appData, "Clanker"); !strings.EqualFold(dir, want) {
		t.Fatalf("data directory %q; want %q", dir, want)
	}
}
