//go:build linux

package e2e

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/disintegration/imaging"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// ScreenshotsEnv names the folder the guide test writes the README's screenshots into
// (`make screenshots` sets it to docs/screenshots). Unset, the test only checks.
const ScreenshotsEnv = "CLANKER_SCREENSHOTS"

// Colours of Clanker's page UI (inject/src/ui.css) as the screen shows them.
var (
	bannerWarning = color.RGBA{0xff, 0xf4, 0xe5, 0xff} // warning banner background
	bannerBorder  = color.RGBA{0xe0, 0xb0, 0x60, 0xff} // its bottom border
	hintPurple    = color.RGBA{0x45, 0x27, 0xa0, 0xff} // the hint bubble and its arrow
	pillGrey      = color.RGBA{0xe8, 0xea, 0xed, 0xff} // the Deactivated pill
)

// grab is the whole X screen now.
func grab(t testing.TB) image.Image {
	t.Helper()
	path := filepath.Join(t.TempDir(), "screen.png")
	if err := display.Screenshot(path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decode the screenshot: %v", err)
	}
	return img
}

func is(img image.Image, x, y int, c color.RGBA) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	return uint8(r>>8) == c.R && uint8(g>>8) == c.G && uint8(b>>8) == c.B
}

// colourBox is the bounding box of the pixels of colour c inside area (empty when none).
func colourBox(img image.Image, area image.Rectangle, c color.RGBA) image.Rectangle {
	var out image.Rectangle
	for y := area.Min.Y; y < area.Max.Y; y++ {
		for x := area.Min.X; x < area.Max.X; x++ {
			if is(img, x, y, c) {
				out = out.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return out
}

// screenRect is a page element's box on the X screen.
func screenRect(r pageRect, ox, oy int) image.Rectangle {
	return image.Rect(ox+int(r.X), oy+int(r.Y), ox+int(r.X+r.Width), oy+int(r.Y+r.Height))
}

// saveShot writes area of img, scaled to at most width pixels wide, into the screenshots
// folder as name, when the run asks for screenshots. The PNGs go into git: best
// compression, and scaled only where the whole window is shown.
func saveShot(t testing.TB, img image.Image, area image.Rectangle, width int, name string) {
	t.Helper()
	dir := os.Getenv(ScreenshotsEnv)
	if dir == "" {
		return
	}
	out := imaging.Crop(img, area)
	if out.Bounds().Dx() > width {
		out = imaging.Resize(out, width, 0, imaging.Lanczos)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	file, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(file, paletted(out)); err != nil {
		t.Fatalf("save %s: %v", path, err)
	}
	t.Logf("wrote %s (%v)", path, out.Bounds().Size())
}

// paletted maps img onto its 256 most frequent colours (nearest colour, no dithering):
// flat UI pictures keep their look and their PNG shrinks to about a third.
func paletted(img image.Image) *image.Paletted {
	count := map[color.RGBA]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			count[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	cols := make([]color.RGBA, 0, len(count))
	for c := range count {
		cols = append(cols, c)
	}
	sort.Slice(cols, func(i, j int) bool {
		if count[cols[i]] != count[cols[j]] {
			return count[cols[i]] > count[cols[j]]
		}
		ci, cj := cols[i], cols[j]
		return uint32(ci.R)<<16|uint32(ci.G)<<8|uint32(ci.B) < uint32(cj.R)<<16|uint32(cj.G)<<8|uint32(cj.B)
	})
	pal := make(color.Palette, 0, 256)
	for _, c := range cols {
		if len(pal) == 256 {
			break
		}
		pal = append(pal, c)
	}
	out := image.NewPaletted(image.Rect(0, 0, b.Dx(), b.Dy()), pal)
	draw.Draw(out, out.Bounds(), img, b.Min, draw.Src)
	return out
}

// TestGuideBannerAndPillHintInTheRealApp checks on the real app what the README's "Using
// Clanker" screenshots show, and takes them when CLANKER_SCREENSHOTS names a folder:
//   - a banner is a strip that pushes the page down: the conversation's name lies wholly
//     below it on the screen;
//   - the first conversation with a pill whose mode can be changed shows the one-time
//     hint, a bubble just above the pill pointing at it, clear of the conversation's name
//     and the compose box;
//   - once dismissed the hint is gone for good: not in another conversation, not after
//     a restart.
func TestGuideBannerAndPillHintInTheRealApp(t *testing.T) {
	needDisplay(t)
	f := newFullApp(t)
	f.launch()
	testkit.WaitFor(t, 60*time.Second, "the not-configured banner", func() (bool, string) {
		st := f.status()
		return strings.Contains(st.Banner, "Clanker needs"), fmt.Sprintf("%+v", st)
	})
	// On first run the settings window opens by itself; it is not what this test is about.
	testkit.WaitFor(t, 60*time.Second, "the settings window to open by itself", func() (bool, string) {
		return windowVisible("Clanker settings"), "no visible window titled Clanker settings"
	})
	f.closeSettingsWindows()
	bob, jane := f.conversation(sim.DemoBob), f.conversation(sim.DemoJane)
	f.open(bob)
	f.waitMode("uninitialized")
	if f.status().Hint {
		t.Error("the hint shows beside a pill that cannot change the mode (settings unfinished)")
	}

	t.Run("BannerIsAStripAboveTheConversationName", func(t *testing.T) {
		f.t = t
		title := f.rect("[data-e2e-header-title]")
		ox, oy := viewportOrigin(t, title)
		iw, ih := int(title.InnerWidth), int(title.InnerHeight)
		var img image.Image
		bottom := -1
		// The page may still be settling under the strip: look again until it has.
		testkit.WaitFor(t, 20*time.Second, "the banner strip at the top of the page", func() (bool, string) {
			img = grab(t)
			// The "Not set up" pill, at the bottom left, is not pushed anywhere.
			if !is(img, ox+20, oy+ih-29, pillGrey) {
				return false, fmt.Sprintf("no pill at the bottom left (pixel %v)", img.At(ox+20, oy+ih-29))
			}
			// Right of the text and of the dismiss button, the strip is its plain
			// background down to its one-pixel border.
			x := ox + iw - 3
			if !is(img, x, oy+1, bannerWarning) {
				return false, fmt.Sprintf("pixel %d,%d is %v, not the banner's colour", x, oy+1, img.At(x, oy+1))
			}
			for y := oy + 1; y < oy+ih/2; y++ {
				if is(img, x, y, bannerBorder) {
					bottom = y + 1
					return true, ""
				}
				if !is(img, x, y, bannerWarning) {
					return false, fmt.Sprintf("pixel %d,%d is %v inside the banner", x, y, img.At(x, y))
				}
			}
			return false, "no banner border in the top half"
		})
		title = f.rect("[data-e2e-header-title]")
		tr := screenRect(title, ox, oy)
		if tr.Min.Y < bottom {
			t.Fatalf("the conversation's name (screen %v) starts above the banner's bottom edge (y=%d): the banner covers it", tr, bottom)
		}
		if c := colourBox(img, tr, bannerWarning); !c.Empty() {
			t.Errorf("the banner's colour shows inside the conversation name's box %v at %v", tr, c)
		}
		if bottom-oy < 20 {
			t.Errorf("the banner strip is %d px high; want a readable strip", bottom-oy)
		}
		saveShot(t, img, image.Rect(ox, oy, ox+iw, oy+ih), 800, "banner.png")
	})

	f.t = t
	f.configure()
	testkit.WaitFor(t, 20*time.Second, "the configured app to show the hint beside the Deactivated pill", func() (bool, string) {
		st := f.status()
		return st.Configured && st.Mode == "deactivated" && st.Hint && !strings.Contains(st.Banner, "Clanker needs") && !strings.Contains(st.Banner, "not set up"), fmt.Sprintf("%+v", st)
	})

	var bubble image.Rectangle
	t.Run("HintPointsAtThePillAndCoversNothing", func(t *testing.T) {
		f.t = t
		title := f.rect("[data-e2e-header-title]")
		compose := f.rect("[data-e2e-message-input]")
		ox, oy := viewportOrigin(t, title)
		iw, ih := int(title.InnerWidth), int(title.InnerHeight)
		view := image.Rect(ox, oy, ox+iw, oy+ih)
		var img image.Image
		testkit.WaitFor(t, 20*time.Second, "the hint bubble on the screen", func() (bool, string) {
			img = grab(t)
			bubble = colourBox(img, view, hintPurple)
			return bubble.Dx() > 150 && bubble.Dy() > 40, fmt.Sprintf("purple box %v", bubble)
		})
		if tr, cr := screenRect(title, ox, oy), screenRect(compose, ox, oy); bubble.Overlaps(tr) || bubble.Overlaps(cr) {
			t.Errorf("the hint %v covers the conversation's name %v or the compose box %v", bubble, tr, cr)
		}
		if bubble.Min.X-ox > 40 || oy+ih-bubble.Max.Y > 80 {
			t.Errorf("the hint %v is not in the bottom-left corner of the page %v, where the pill is", bubble, view)
		}
		// The arrow is the bubble's lowest row; straight under its tip is the pill.
		tipY := bubble.Max.Y - 1
		tipX := -1
		for x := bubble.Min.X; x < bubble.Max.X; x++ {
			if is(img, x, tipY, hintPurple) {
				tipX = x
				break
			}
		}
		pill := false
		for y := tipY + 1; y < tipY+20 && !pill; y++ {
			pill = is(img, tipX, y, pillGrey)
		}
		if tipX < 0 || !pill {
			t.Errorf("under the hint's arrow tip (%d,%d) there is no Deactivated pill within 20 px", tipX, tipY)
		}
		corner := image.Rect(ox, oy+ih-270, ox+480, oy+ih)
		saveShot(t, img, corner, 480, "hint.png")

		// The pill's menu opens where the hint is; the hint steps aside meanwhile.
		click(t, ox+40, oy+ih-28)
		testkit.WaitFor(t, 10*time.Second, "the pill's menu to open over the hint", func() (bool, string) {
			img = grab(t)
			b := colourBox(img, view, hintPurple)
			return b.Empty(), fmt.Sprintf("purple still at %v", b)
		})
		saveShot(t, img, corner, 480, "pill-menu.png")
		click(t, ox+40, oy+ih-28)
		testkit.WaitFor(t, 10*time.Second, "the hint back after the menu closed", func() (bool, string) {
			b := colourBox(grab(t), view, hintPurple)
			return !b.Empty(), "no purple"
		})
	})

	t.Run("GotItEndsTheHintForGood", func(t *testing.T) {
		f.t = t
		if bubble.Empty() {
			t.Fatal("no hint bubble was found")
		}
		// "Got it" is the white button in the bubble's bottom-right corner, inside its
		// 14 px right and 12 px bottom padding (above the 8 px arrow).
		img := grab(t)
		btn := colourBox(img, image.Rect(bubble.Max.X-110, bubble.Max.Y-8-40, bubble.Max.X-10, bubble.Max.Y-8-10), color.RGBA{0xff, 0xff, 0xff, 0xff})
		if btn.Dx() < 20 || btn.Dy() < 10 {
			t.Fatalf("no Got it button in the hint %v (white box %v)", bubble, btn)
		}
		clickSync(t, (btn.Min.X+btn.Max.X)/2, (btn.Min.Y+btn.Max.Y)/2)
		testkit.WaitFor(t, 10*time.Second, "the hint to go", func() (bool, string) {
			st := f.status()
			return !st.Hint, fmt.Sprintf("%+v", st)
		})
		f.open(jane)
		f.waitMode("deactivated")
		if f.status().Hint {
			t.Fatal("the hint came back in another conversation after Got it")
		}

		f.app.Stop()
		testkit.WaitFor(t, 30*time.Second, "the stopped app's page to leave the simulator", func() (bool, string) {
			st, err := f.ctl.Status()
			return err == nil && st.Pages == 0, fmt.Sprintf("%+v %v", st, err)
		})
		f.launch()
		f.open(bob)
		f.waitMode("deactivated")
		// The Link holds the hint from the start, so a store that forgot would show it
		// with this very pill.
		if st := f.status(); st.Hint {
			t.Fatalf("after a restart the hint shows again: %+v", st)
		}
		title := f.rect("[data-e2e-header-title]")
		ox, oy := viewportOrigin(t, title)
		view := image.Rect(ox, oy, ox+int(title.InnerWidth), oy+int(title.InnerHeight))
		if b := colourBox(grab(t), view, hintPurple); !b.Empty() {
			t.Fatalf("after a restart the screen shows the hint's purple at %v", b)
		}
	})
}
