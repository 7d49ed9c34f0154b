package images

import (
	"bytes"
	"image/jpeg"
	"testing"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/tests/simctl"
)

// The images the Messages simulator shows (the same bytes the bridge fetches from its blob
// URLs) go through the pipeline the way a requested image does in the app.

// simMedia starts a simulator and returns the bytes of its images as its page loads them.
func simMedia(t *testing.T, names ...string) map[string][]byte {
	t.Helper()
	s, err := simctl.Start(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out := map[string][]byte{}
	for _, n := range names {
		b, err := s.Control().Media(n)
		if err != nil {
			t.Fatal(err)
		}
		out[n] = b
	}
	return out
}

func TestSimulatorPhotoIsTurnedUprightAndScaledTo1344(t *testing.T) {
	res, err := Optimizer{}.Optimize(simMedia(t, sim.MediaPhoto)[sim.MediaPhoto])
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
	media := simMedia(t, sim.MediaChart, sim.MediaGIF)
	for _, c := range []struct {
		name, format string
		w, h         int
	}{
		{sim.MediaChart, "png", 300, 200},
		{sim.MediaGIF, "gif", 96, 64},
	} {
		res, err := Optimizer{}.Optimize(media[c.name])
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
