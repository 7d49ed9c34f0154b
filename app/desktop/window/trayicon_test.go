package window

import (
	"bytes"
	"image/png"
	"testing"

	"github.com/clanker-desktop/clanker/build/icons"
)

// Windows' tray loads only ICO files (LoadImage with IMAGE_ICON): the tray icon there
// is an ICO in every state, badge included; elsewhere it stays the PNG.
func TestTheWindowsTrayIconIsAnICOInEveryState(t *testing.T) {
	for _, on := range []bool{false, true} {
		for _, badge := range []int{0, 1, 7, 42} {
			b := trayIcon(on, badge, true)
			entries, err := readICO(b)
			if err != nil {
				t.Fatalf("on=%v badge=%d: the icon is not an ICO file: %v", on, badge, err)
			}
			sizes := map[int]bool{}
			for _, e := range entries {
				img, err := png.Decode(bytes.NewReader(e.png))
				if err != nil {
					t.Fatalf("on=%v badge=%d: the %d px entry is not a PNG: %v", on, badge, e.size, err)
				}
				if img.Bounds().Dx() != e.size || img.Bounds().Dy() != e.size {
					t.Errorf("on=%v badge=%d: the %d px entry holds a %v picture", on, badge, e.size, img.Bounds())
				}
				sizes[e.size] = true
			}
			for _, want := range []int{16, 32} {
				if !sizes[want] {
					t.Errorf("on=%v badge=%d: no %d px entry (sizes %v); the notification area uses it", on, badge, want, sizes)
				}
			}
		}
	}
	if !bytes.Equal(trayIcon(true, 0, true), icons.TrayOnICO) || !bytes.Equal(trayIcon(false, 0, true), icons.TrayOffICO) {
		t.Error("without unread messages the Windows tray should show the committed ICO files unchanged")
	}
	if !bytes.Equal(trayIcon(true, 0, false), icons.TrayOn) || !bytes.Equal(trayIcon(false, 0, false), icons.TrayOff) {
		t.Error("outside Windows the tray should show the PNG icons")
	}
}

// The badge is drawn on every size of the ICO, so it shows whichever size Windows picks.
func TestTheUnreadBadgeIsOnEverySizeOfTheICO(t *testing.T) {
	plain, err := readICO(icons.TrayOnICO)
	if err != nil {
		t.Fatal(err)
	}
	badged, err := readICO(trayIcon(true, 3, true))
	if err != nil {
		t.Fatal(err)
	}
	if len(badged) != len(plain) {
		t.Fatalf("badged ICO has %d entries, the plain one %d", len(badged), len(plain))
	}
	for i := range plain {
		img := decodeIcon(t, badged[i].png)
		red := 0
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				if r>>8 == 0xd9 && g>>8 == 0x30 && bl>>8 == 0x25 {
					red++
				}
			}
		}
		if red == 0 || bytes.Equal(badged[i].png, plain[i].png) {
			t.Errorf("the %d px entry carries no badge (%d red pixels)", plain[i].size, red)
		}
	}
}

func TestReadICORefusesWhatIsNotAnIconOfPNGs(t *testing.T) {
	// One entry whose data would start past the end of the file.
	far := append([]byte{}, icons.TrayOnICO[:6+16]...)
	far[4] = 1
	for name, b := range map[string][]byte{
		"empty":            nil,
		"a PNG":            icons.TrayOn,
		"a cut directory":  icons.TrayOnICO[:10],
		"an entry too far": far,
	} {
		if _, err := readICO(b); err == nil {
			t.Errorf("%s: read as an ICO; want an error", name)
		}
	}
	if _, err := badgedICO(icons.TrayOn, 2); err == nil {
		t.Error("badging a PNG as an ICO succeeded; want an error (trayIcon then keeps the plain icon)")
	}
}
