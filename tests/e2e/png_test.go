//go:build linux

package e2e

import (
	"image/png"
	"os"
	"testing"
)

// assertBusyPNG fails unless path is a PNG with real content (a blank or single-colour
// screen means the window never painted).
func assertBusyPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s is not a PNG: %v", path, err)
	}
	colours := map[[3]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 4 {
		for x := b.Min.X; x < b.Max.X; x += 4 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
		}
	}
	if len(colours) < 8 {
		t.Fatalf("screenshot %s (%v) has %d colours; want a painted window", path, b.Size(), len(colours))
	}
}
