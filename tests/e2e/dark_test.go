//go:build linux

package e2e

import (
	"fmt"
	"image"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// Dark colours of Clanker's page UI (the prefers-color-scheme: dark block of
// inject/src/ui.css) as the screen shows them.
var (
	bannerWarningDark = color.RGBA{0x3b, 0x2a, 0x0c, 0xff}
	bannerBorderDark  = color.RGBA{0x8a, 0x64, 0x20, 0xff}
	pillGreyDark      = color.RGBA{0x3c, 0x40, 0x43, 0xff}
	menuDark          = color.RGBA{0x2d, 0x2e, 0x31, 0xff}
)

// desktopPortal stands in for xdg-desktop-portal's settings interface on the test bus:
// org.freedesktop.appearance color-scheme, read with Read (the value in two variants, as
// the real portal answers) or ReadOne, and SettingChanged when the test changes it.
type desktopPortal struct {
	conn   *dbus.Conn
	mu     sync.Mutex
	scheme uint32
}

const (
	portalPath  = "/org/freedesktop/portal/desktop"
	portalIface = "org.freedesktop.portal.Settings"
)

func (p *desktopPortal) value(namespace, key string) (uint32, *dbus.Error) {
	if namespace != "org.freedesktop.appearance" || key != "color-scheme" {
		return 0, dbus.NewError("org.freedesktop.portal.Error.NotFound", []any{"Requested setting not found"})
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.scheme, nil
}

// Read is the portal's (version 1) method.
func (p *desktopPortal) Read(namespace, key string) (dbus.Variant, *dbus.Error) {
	v, err := p.value(namespace, key)
	if err != nil {
		return dbus.Variant{}, err
	}
	return dbus.MakeVariant(dbus.MakeVariant(v)), nil
}

// ReadOne is the version 2 method.
func (p *desktopPortal) ReadOne(namespace, key string) (dbus.Variant, *dbus.Error) {
	v, err := p.value(namespace, key)
	if err != nil {
		return dbus.Variant{}, err
	}
	return dbus.MakeVariant(v), nil
}

// set changes the colour scheme (1 dark, 2 light) and tells the bus, as the portal does
// when the user flips the desktop's switch.
func (p *desktopPortal) set(t testing.TB, scheme uint32) {
	t.Helper()
	p.mu.Lock()
	p.scheme = scheme
	p.mu.Unlock()
	if err := p.conn.Emit(portalPath, portalIface+".SettingChanged", "org.freedesktop.appearance", "color-scheme", dbus.MakeVariant(scheme)); err != nil {
		t.Fatalf("emit SettingChanged: %v", err)
	}
}

// startDesktopPortal owns org.freedesktop.portal.Desktop on the test bus until the test
// ends (apps the test starts later are stopped first: cleanups run last-in first-out).
func startDesktopPortal(t *testing.T, scheme uint32) *desktopPortal {
	t.Helper()
	conn, err := dbus.Connect(display.BusAddr)
	if err != nil {
		t.Fatalf("connect to the private bus: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	p := &desktopPortal{conn: conn, scheme: scheme}
	if err := conn.Export(p, portalPath, portalIface); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("org.freedesktop.portal.Desktop", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.freedesktop.portal.Desktop on the private bus: reply %v, err %v", reply, err)
	}
	return p
}

// commonest is the colour most pixels in area have: a window's background.
func commonest(img image.Image, area image.Rectangle) color.RGBA {
	count := map[color.RGBA]int{}
	area = area.Intersect(img.Bounds())
	for y := area.Min.Y; y < area.Max.Y; y += 2 {
		for x := area.Min.X; x < area.Max.X; x += 2 {
			count[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	var best color.RGBA
	for c, n := range count {
		if n > count[best] {
			best = c
		}
	}
	return best
}

// lightness is a colour's relative luminance, 0 (black) to 1 (white), near enough.
func lightness(c color.RGBA) float64 {
	return (0.2126*float64(c.R) + 0.7152*float64(c.G) + 0.0722*float64(c.B)) / 255
}

// settingsArea is the settings window's box on the screen.
func settingsArea(t testing.TB) image.Rectangle {
	x, y, w, h := windowGeometry(t, "Clanker settings")
	return image.Rect(x, y, x+w, y+h)
}

// visibleWindows counts the X windows that are mapped now.
func visibleWindows(t testing.TB) int {
	t.Helper()
	cmd := exec.Command("xdotool", "search", "--onlyvisible", "--name", ".*")
	cmd.Env = []string{"DISPLAY=" + display.Name}
	out, _ := cmd.Output() // exit status 1 when none
	return len(strings.Fields(string(out)))
}

// presetsShot takes the README's picture of the settings window (area on the screen) with
// the provider list open, when the run takes screenshots. The list is the page's Provider
// select, near the top of the window; its popup is a window of its own, drawn by GTK in
// the same light or dark variant. Escape closes it again.
func presetsShot(t testing.TB, win image.Rectangle, name string) {
	t.Helper()
	if os.Getenv(ScreenshotsEnv) == "" {
		return
	}
	before := visibleWindows(t)
	click(t, win.Min.X+300, win.Min.Y+153)
	testkit.WaitFor(t, 10*time.Second, "the provider list to open", func() (bool, string) {
		return visibleWindows(t) > before, "no popup window: has the settings page's layout moved the Provider list away from the click?"
	})
	time.Sleep(300 * time.Millisecond) // the popup's first paint; only the picture depends on it
	saveShot(t, grab(t), win, 640, name)
	key := exec.Command("xdotool", "key", "Escape")
	key.Env = []string{"DISPLAY=" + display.Name}
	if out, err := key.CombinedOutput(); err != nil {
		t.Fatalf("xdotool key Escape: %v: %s", err, out)
	}
	testkit.WaitFor(t, 10*time.Second, "the provider list to close", func() (bool, string) {
		return visibleWindows(t) == before, "the popup is still open"
	})
}

// raise puts the visible window titled title above the others (no window manager runs).
func raise(t testing.TB, title string) {
	t.Helper()
	cmd := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^"+title+"$", "windowraise")
	cmd.Env = []string{"DISPLAY=" + display.Name}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xdotool windowraise %q: %v: %s", title, err, out)
	}
}

// artifact saves the whole screen into the artifacts folder (every run: what each scheme
// looked like).
func artifact(t testing.TB, name string) {
	t.Helper()
	path := filepath.Join(ArtifactsDir(), name)
	if err := display.Screenshot(path); err != nil {
		t.Errorf("save %s: %v", name, err)
		return
	}
	t.Logf("screenshot: %s", path)
}

// TestDarkModeFollowsTheDesktop runs the real app on a desktop whose settings portal says
// "prefer dark": the settings window (its own process) and the bridge's banner, pill and
// menu in the Messages window are drawn dark; when the desktop switches to light
// (SettingChanged) both windows turn light while they run, and back to dark again. With
// CLANKER_SCREENSHOTS set it takes the README's dark and light screenshots; every run
// leaves full-screen shots of both schemes in the artifacts folder.
func TestDarkModeFollowsTheDesktop(t *testing.T) {
	needDisplay(t)
	portal := startDesktopPortal(t, 1)
	f := newFullApp(t)
	f.launch()
	testkit.WaitFor(t, 60*time.Second, "the not-configured banner", func() (bool, string) {
		st := f.status()
		return strings.Contains(st.Banner, "Clanker needs"), fmt.Sprintf("%+v", st)
	})
	testkit.WaitFor(t, 60*time.Second, "the settings window to open by itself", func() (bool, string) {
		return windowVisible("Clanker settings"), "no visible window titled Clanker settings"
	})

	// The settings window's background is dark, and it is a painted page, not an empty
	// dark window: the page has drawn text over it.
	var img image.Image
	var win image.Rectangle
	testkit.WaitFor(t, 30*time.Second, "the settings window drawn dark", func() (bool, string) {
		win = settingsArea(t)
		img = grab(t)
		bg := commonest(img, win)
		if lightness(bg) > 0.2 {
			return false, fmt.Sprintf("its commonest colour is %v", bg)
		}
		bright := 0
		for y := win.Min.Y; y < win.Max.Y; y++ {
			for x := win.Min.X; x < win.Max.X; x++ {
				if lightness(color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)) > 0.7 {
					bright++
				}
			}
		}
		return bright > 500, fmt.Sprintf("background %v, %d bright (text) pixels", bg, bright)
	})
	artifact(t, "dark-mode-settings-dark.png")
	presetsShot(t, win, "settings-dark.png")

	// The Messages window, in front, with a conversation open: the banner strip and the
	// "Not set up" pill in their dark colours.
	f.front()
	f.open(f.conversation(sim.DemoBob))
	f.waitMode("uninitialized")
	title := f.rect("[data-e2e-header-title]")
	ox, oy := viewportOrigin(t, title)
	iw, ih := int(title.InnerWidth), int(title.InnerHeight)
	view := image.Rect(ox, oy, ox+iw, oy+ih)
	// The window's GTK menu bar sits between the window's top and the page.
	wx, wy, ww, _ := windowGeometry(t, "Clanker")
	menuBar := image.Rect(wx, wy, wx+ww, oy)
	pagePainted := func(banner, border, pill color.RGBA) func() (bool, string) {
		dark := lightness(pill) < 0.5
		return func() (bool, string) {
			img = grab(t)
			if bar := commonest(img, menuBar); dark != (lightness(bar) < 0.5) {
				return false, fmt.Sprintf("the menu bar %v is %v", menuBar, bar)
			}
			if !is(img, ox+20, oy+ih-29, pill) {
				return false, fmt.Sprintf("the pill's pixel is %v, want %v", img.At(ox+20, oy+ih-29), pill)
			}
			x := ox + iw - 3
			if !is(img, x, oy+1, banner) {
				return false, fmt.Sprintf("the banner's pixel is %v, want %v", img.At(x, oy+1), banner)
			}
			for y := oy + 1; y < oy+ih/2; y++ {
				if is(img, x, y, border) {
					return y-oy > 20, fmt.Sprintf("the banner ends at %d", y)
				}
			}
			return false, "no banner border in the top half"
		}
	}
	testkit.WaitFor(t, 20*time.Second, "the banner and the pill drawn dark", pagePainted(bannerWarningDark, bannerBorderDark, pillGreyDark))
	artifact(t, "dark-mode-main-dark.png")
	saveShot(t, img, view, 800, "banner-dark.png")

	// The desktop switches to light: both windows follow while they run.
	portal.set(t, 2)
	testkit.WaitFor(t, 20*time.Second, "the banner and the pill back in their light colours", pagePainted(bannerWarning, bannerBorder, pillGrey))
	artifact(t, "dark-mode-main-light.png")
	raise(t, "Clanker settings")
	testkit.WaitFor(t, 20*time.Second, "the settings window drawn light", func() (bool, string) {
		win = settingsArea(t)
		img = grab(t)
		bg := commonest(img, win)
		return lightness(bg) > 0.85, fmt.Sprintf("its commonest colour is %v", bg)
	})
	artifact(t, "dark-mode-settings-light.png")
	presetsShot(t, win, "settings-light.png")

	// Back to dark, configured: the pill's menu opens dark over the hint.
	f.front()
	f.configure()
	testkit.WaitFor(t, 20*time.Second, "the configured app's Deactivated pill", func() (bool, string) {
		st := f.status()
		return st.Configured && st.Mode == "deactivated", fmt.Sprintf("%+v", st)
	})
	portal.set(t, 1)
	corner := image.Rect(ox, oy+ih-270, ox+480, oy+ih)
	testkit.WaitFor(t, 20*time.Second, "the Deactivated pill drawn dark", func() (bool, string) {
		img = grab(t)
		return is(img, ox+20, oy+ih-29, pillGreyDark), fmt.Sprintf("the pill's pixel is %v", img.At(ox+20, oy+ih-29))
	})
	click(t, ox+40, oy+ih-28)
	testkit.WaitFor(t, 10*time.Second, "the pill's menu open in its dark colour", func() (bool, string) {
		img = grab(t)
		m := colourBox(img, corner, menuDark)
		return m.Dx() > 100 && m.Dy() > 100, fmt.Sprintf("dark menu box %v", m)
	})
	artifact(t, "dark-mode-menu-dark.png")
	saveShot(t, img, corner, 480, "pill-menu-dark.png")
}
