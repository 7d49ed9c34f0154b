package images

import (
	"bytes"
	"image/jpeg"
	"testing"

	"github.com/clanker-desktop/clanker/app/demo/sim"
)

// The images the Messages simulator shows (the same bytes the bridge fetches from its blob
// URLs) go through the pipeline the way a requested image does in the app.

func TestSimulatorPhotoIsTurnedUprightAndScaledTo1344(t *testing.T) {
	res, err := Optimizer{}.Optimize(sim.MediaBytes(sim.MediaPhoto))
	if err != nil {
		t.Fatal(err)
	}
	// Stored 4032x3024 with EXIF orientation 6: shown upright as portrait 3024x4032, so the
	// long edge (4032) becomes 1344 and the short edge 3024*1344/4032 = 1008.
	if res.Width != 1008 || res.Height != 1344 || res.SourceFormat != "jpeg" {
		t.Fatalf("got %dx%d from %s, want 1008x1344 from jpeg", res.Width, res.Height, res.SourceFormat)
	}
	img, err := jpeg.Decode(bytes.NewReader(res.JPEG))
	if err != nil {
		t.Fatalf("output is not a JPEG: %v", err)
	}
	// The simulator draws a yellow sun in the upper third, left of centre: it is only there
	// when the orientation was applied.
	r, g, b, _ := img.At(302, 296).RGBA()
	if r>>8 < 200 || g>>8 < 170 || b>>8 > 140 {
		t.Fatalf("pixel where the sun should be is (%d,%d,%d): the photo was not turned upright", r>>8, g>>8, b>>8)
	}
}

func TestSimulatorPNGAndGIFAreNeverEnlarged(t *testing.T) {
	for _, c := range []struct {
		name, format string
		w, h         int
	}{
		{sim.MediaChart, "png", 300, 200},
		{sim.MediaGIF, "gif", 96, 64},
	} {
		res, err := Optimizer{}.Optimize(sim.MediaBytes(c.name))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.Width != c.w || res.Height != c.h || res.SourceFormat != c.format {
			t.Errorf("%s: got %dx%d from %s, want %dx%d from %s (small images keep their size)", c.name, res.Width, res.Height, res.SourceFormat, c.w, c.h, c.format)
		}
		if _, err := jpeg.Decode(bytes.NewReader(res.JPEG)); err != nil {
			t.Errorf("%s: output is not a JPEG: %v", c.name, err)
		}
	}
}
