package window

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"

	"github.com/clanker-desktop/clanker/build/icons"
)

func decodeIcon(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("badged icon is not a PNG: %v", err)
	}
	return img
}

// The unread count is drawn on the icon: a red disc top right with white digits, the
// rest of the icon untouched; no badge without unread messages.
func TestUnreadBadgeIsDrawnOnTheTrayIcon(t *testing.T) {
	if got := badgedIcon(icons.TrayOff, 0); !bytes.Equal(got, icons.TrayOff) {
		t.Fatal("no unread messages, yet the icon changed")
	}
	base := decodeIcon(t, icons.TrayOff)
	one := decodeIcon(t, badgedIcon(icons.TrayOff, 1))
	many := decodeIcon(t, badgedIcon(icons.TrayOff, 42))
	if one.Bounds() != base.Bounds() {
		t.Fatalf("badged icon is %v, want the icon's own size %v", one.Bounds(), base.Bounds())
	}
	b := base.Bounds()
	red, white := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := one.At(x, y).RGBA()
			switch {
			case r>>8 == 0xd9 && g>>8 == 0x30 && bl>>8 == 0x25:
				red++
			case r>>8 == 0xff && g>>8 == 0xff && bl>>8 == 0xff && x > b.Dx()/3 && y < b.Dy()*2/3:
				white++
			}
			if x < b.Dx()/3 && y > b.Dy()*2/3 && !near(one.At(x, y), base.At(x, y)) {
				t.Fatalf("the badge changed the bottom-left of the icon at %d,%d", x, y)
			}
		}
	}
	if red < b.Dx()*b.Dy()/10 || white == 0 {
		t.Fatalf("badge for 1 unread: %d red and %d white pixels in a %v icon; want a red disc with a white digit", red, white, b)
	}
	same := true
	for y := b.Min.Y; y < b.Max.Y && same; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if one.At(x, y) != many.At(x, y) {
				same = false
				break
			}
		}
	}
	if same {
		t.Fatal("the badges for 1 and for 42 unread look the same; want the count drawn")
	}
	if badgeText(42) != "9+" || badgeText(7) != "7" {
		t.Fatalf("badge text: 42 -> %q, 7 -> %q; want 9+ and 7", badgeText(42), badgeText(7))
	}
}

// near compares two colours to within one step of 8 bits per channel (converting the
// icon to RGBA rounds semi-transparent pixels).
func near(a, b color.Color) bool {
	r0, g0, b0, a0 := a.RGBA()
	r1, g1, b1, a1 := b.RGBA()
	for _, p := range [][2]uint32{{r0, r1}, {g0, g1}, {b0, b1}, {a0, a1}} {
		d := int(p[0]>>8) - int(p[1]>>8)
		if d < -1 || d > 1 {
			return false
		}
	}
	return true
}
