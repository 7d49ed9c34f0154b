//go:build linux

package e2e

import (
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/tests/testkit"
)

func TestSettingsProcessStartsAndRendersItsPage(t *testing.T) {
	needDisplay(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin, err := Build(ctx, "./tests/e2e/settingsapp", binDir)
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	app := StartApp(t, display, bin, 60*time.Second, "-data", data, "-ready-file", "{ready}")
	testkit.WaitFor(t, 30*time.Second, "the settings window to be visible", func() (bool, string) {
		return windowVisible("Clanker settings"), "no visible window titled Clanker settings"
	})
	// The page reached Go through the Wails binding when the service logs its Load.
	testkit.WaitFor(t, 30*time.Second, "the page to call the bound SettingsService.Load", func() (bool, string) {
		return strings.Contains(app.Output(), "settings page loaded its values"), "no Load call logged yet"
	})
	// Then wait for the paint: the screenshot must show text (dark pixels) in the window.
	shot := filepath.Join(ArtifactsDir(), "settings-window.png")
	testkit.WaitFor(t, 30*time.Second, "the settings page to be painted", func() (bool, string) {
		if err := display.Screenshot(shot); err != nil {
			return false, err.Error()
		}
		n := darkPixelsInCentre(t, shot)
		return n > 2000, fmt.Sprintf("%d drawn (non-white) pixels in the window area", n)
	})
	t.Logf("screenshot: %s", shot)
	if app.Exited() {
		t.Fatalf("the settings process exited early:\n%s", app.Output())
	}
}

// darkPixelsInCentre counts pixels in the middle of the screen, where the settings
// window sits, that are neither the blank window's white nor the empty screen's black:
// text, borders and the banner drawn by the page.
func darkPixelsInCentre(t *testing.T, path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return 0
	}
	b := img.Bounds()
	n := 0
	for y := b.Min.Y + b.Dy()/8; y < b.Max.Y-b.Dy()/8; y++ {
		for x := b.Min.X + b.Dx()/3; x < b.Max.X-b.Dx()/3; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			white := r > 0xf800 && g > 0xf800 && bl > 0xf800
			black := r < 0x0800 && g < 0x0800 && bl < 0x0800
			if !white && !black {
				n++
			}
		}
	}
	return n
}

func TestSecondLaunchExitsAndFocusesTheFirst(t *testing.T) {
	data := t.TempDir()
	first, tray := startTrayApp(t, "-data", data, "-hidden")
	const title = "Clanker tray test"
	if windowVisible(title) {
		t.Fatal("started with -hidden, but the window is visible")
	}
	bin := first.Cmd.Path
	second := exec.Command(bin, "-target", "http://127.0.0.1:1/", "-data", data)
	second.Env = display.Env(t.TempDir())
	out, err := second.CombinedOutput()
	if err != nil {
		t.Fatalf("second launch: want a clean exit, got %v:\n%s", err, out)
	}
	if !strings.Contains(string(out), "already running") {
		t.Fatalf("second launch: want it to report the first instance, got:\n%s", out)
	}
	testkit.WaitFor(t, 15*time.Second, "the first instance's window to come forward", func() (bool, string) {
		return windowVisible(title), "still hidden"
	})
	if st := trayAppState(t, first); !hasCall(st, "ShowWindow") {
		t.Fatalf("the first instance should have shown its window via ShowWindow; calls %q", st.Calls)
	}
	_ = tray
}
