package images

import (
	"bytes"
	"image/jpeg"
	"math"
	"os"
	"testing"
)

// stdPlanes decodes data with image/jpeg and returns its planes.
func stdPlanes(t *testing.T, data []byte) []plane {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("image/jpeg: %v", err)
	}
	return planesOf(img, func(n int) []byte { return make([]byte, n) })
}

// The fast decoder at full scale must give the standard decoder's samples, up to the
// rounding of a different inverse DCT, for every layout the fixtures cover: 4:2:0, 4:2:2,
// 4:4:0 and 4:4:4 chroma, greyscale, restart intervals of one block, three blocks and one
// MCU row, optimised Huffman tables and a size that is no multiple of the MCU.
func TestFastJPEGDecoderMatchesStandardLibrary(t *testing.T) {
	for _, name := range []string{"restart-420.jpg", "restart-422.jpg", "sampled-440.jpg", "optimized-444.jpg", "gray.jpg"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		hdr, err := readJPEGHeader(data)
		if err != nil || !hdr.fast || hdr.width != 203 || hdr.height != 149 {
			t.Fatalf("%s: header %+v, %v; want a 203x149 file the fast decoder takes", name, hdr, err)
		}
		got, _, err := decodeJPEGScaled(data, 8, func(n int) []byte { return make([]byte, n) })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := stdPlanes(t, data)
		if len(got) != len(want) {
			t.Fatalf("%s: %d planes, want %d", name, len(got), len(want))
		}
		for i := range want {
			g, w := got[i], want[i]
			if g.w != w.w || g.h != w.h {
				t.Fatalf("%s plane %d: %dx%d, want %dx%d", name, i, g.w, g.h, w.w, w.h)
			}
			worst, sum := 0, 0
			for y := range w.h {
				for x := range w.w {
					d := int(g.pix[y*g.stride+x]) - int(w.pix[y*w.stride+x])
					worst = max(worst, d, -d)
					sum += max(d, -d)
				}
			}
			if mean := float64(sum) / float64(w.w*w.h); worst > 2 || mean > 0.2 {
				t.Errorf("%s plane %d: differs from image/jpeg by up to %d (mean %.3f)", name, i, worst, mean)
			}
		}
	}
}

// At n/8 scale each block's n x n samples are the block's own cosine series sampled at
// the centres of n x n cells; at 1/8 that is exactly the block's mean. The scaled decodes
// must therefore stay close to the full decode averaged over the same cells.
func TestFastJPEGDecoderScalesInTheDCTDomain(t *testing.T) {
	data, err := os.ReadFile("testdata/optimized-444.jpg")
	if err != nil {
		t.Fatal(err)
	}
	full := stdPlanes(t, data)[0]
	for _, c := range []struct {
		n       int
		minPSNR float64
	}{{1, 55}, {2, 33}, {4, 30}} {
		got, _, err := decodeJPEGScaled(data, c.n, func(n int) []byte { return make([]byte, n) })
		if err != nil {
			t.Fatal(err)
		}
		y := got[0]
		if wantW := (203*c.n + 7) / 8; y.w != wantW {
			t.Fatalf("n=%d: width %d, want %d", c.n, y.w, wantW)
		}
		cell := 8 / c.n
		var se float64
		cnt := 0
		for by := range 149 / cell {
			for bx := range 203 / cell {
				var s float64
				for yy := range cell {
					for xx := range cell {
						s += float64(full.pix[(by*cell+yy)*full.stride+bx*cell+xx])
					}
				}
				d := float64(y.pix[by*y.stride+bx]) - s/float64(cell*cell)
				se += d * d
				cnt++
			}
		}
		psnr := 10 * math.Log10(255*255/(se/float64(cnt)+1e-9))
		if psnr < c.minPSNR {
			t.Errorf("n=%d: %.1f dB against the full decode averaged over %dx%d cells, want >= %.0f", c.n, psnr, cell, cell, c.minPSNR)
		}
		t.Logf("n=%d: %.1f dB", c.n, psnr)
	}
}

// A progressive file takes the fast decoder too, at a reduced scale when it is large.
func TestProgressiveJPEGTakesTheFastDecoder(t *testing.T) {
	data, err := os.ReadFile("testdata/progressive.jpg")
	if err != nil {
		t.Fatal(err)
	}
	hdr, err := readJPEGHeader(data)
	if err != nil || !hdr.fast || hdr.width != 203 || hdr.height != 149 {
		t.Fatalf("header %+v, %v: want a 203x149 file the fast decoder takes", hdr, err)
	}
	res, wk, err := Optimizer{}.optimize(data)
	if err != nil || res.Width != 203 || res.Height != 149 || wk.dctScale != 8 {
		t.Fatalf("got %dx%d, scale %d, %v; want 203x149 from the fast decoder at 8/8", res.Width, res.Height, wk.dctScale, err)
	}
}

// Files the fast decoder does not take go to image/jpeg, which still decodes them: an RGB
// JPEG (cjpeg -rgb) is one.
func TestRGBJPEGFallsBackToStandardDecoder(t *testing.T) {
	data, err := os.ReadFile("testdata/rgb.jpg")
	if err != nil {
		t.Fatal(err)
	}
	hdr, err := readJPEGHeader(data)
	if err != nil || hdr.fast || hdr.width != 203 || hdr.height != 149 {
		t.Fatalf("header %+v, %v: want a 203x149 file left to image/jpeg", hdr, err)
	}
	res, wk, err := Optimizer{}.optimize(data)
	if err != nil || res.Width != 203 || res.Height != 149 || wk.dctScale != 0 {
		t.Fatalf("got %dx%d, scale %d, %v; want 203x149 from the standard decoder", res.Width, res.Height, wk.dctScale, err)
	}
}

// A damaged entropy-coded segment must not come out as a picture from the fast decoder
// when the standard decoder refuses it.
func TestTruncatedJPEGIsCorruptOnBothDecoders(t *testing.T) {
	data, err := os.ReadFile("testdata/restart-420.jpg")
	if err != nil {
		t.Fatal(err)
	}
	cut := data[:len(data)*2/3]
	if _, _, err := decodeJPEGScaled(cut, 8, func(n int) []byte { return make([]byte, n) }); err == nil {
		t.Fatal("fast decoder accepted a file cut at two thirds")
	}
}

// idct4 must give exactly the generic transform's samples.
func TestIDCT4MatchesGenericTransform(t *testing.T) {
	rnd := uint32(12345)
	next := func() int32 { rnd = rnd*1664525 + 1013904223; return int32(rnd>>20) - 2048 }
	for i := range 2000 {
		var blk [64]int32
		for k := range 16 {
			blk[k] = next() >> (k / 4) // larger low frequencies, as in real blocks
		}
		got := make([]byte, 4*7)
		want := make([]byte, 4*7)
		idct4(&blk, got, 7)
		m := &idctTables[4]
		// The generic path, written out: rows to Q4, then columns to Q15.
		var tmp [16]int32
		for v := range 4 {
			for x := range 4 {
				var s int32
				for u := range 4 {
					s += blk[v*4+u] * m[x][u]
				}
				tmp[v*4+x] = (s + 64) >> 7
			}
		}
		for y := range 4 {
			for x := range 4 {
				var s int32
				for v := range 4 {
					s += tmp[v*4+x] * m[y][v]
				}
				want[y*7+x] = clampByte((s+1<<14)>>15 + 128)
			}
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("block %d: idct4 %v, generic %v", i, got, want)
		}
	}
}

// A JPEG the fast decoder leaves (RGB) with an EXIF orientation is turned upright on the
// general path too: the orientation read from its header is applied after imaging has
// scaled it.
func TestJPEGOnTheGeneralPathIsTurnedUpright(t *testing.T) {
	data, err := os.ReadFile("testdata/rgb.jpg")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Optimizer{}.Optimize(data)
	if err != nil {
		t.Fatal(err)
	}
	turned, wk, err := Optimizer{}.optimize(withOrientation(t, data, 6))
	if err != nil || wk.dctScale != 0 {
		t.Fatalf("scale %d, %v: want the general path", wk.dctScale, err)
	}
	if turned.Width != plain.Height || turned.Height != plain.Width {
		t.Fatalf("orientation 6 gave %dx%d, want %dx%d", turned.Width, turned.Height, plain.Height, plain.Width)
	}
	// Turned 90 degrees clockwise, the plain result's bottom-left corner is now top-left.
	a, b := decodeResult(t, plain), decodeResult(t, turned)
	for _, c := range []struct{ ax, ay, bx, by int }{
		{4, plain.Height - 5, 4, 4},
		{plain.Width - 5, 4, turned.Width - 5, turned.Height - 5},
	} {
		ar, ag, ab, _ := a.At(c.ax, c.ay).RGBA()
		br, bg, bb, _ := b.At(c.bx, c.by).RGBA()
		if d := max(absDiff(ar, br), absDiff(ag, bg), absDiff(ab, bb)) >> 8; d > 24 {
			t.Errorf("plain (%d,%d) and turned (%d,%d) differ by %d", c.ax, c.ay, c.bx, c.by, d)
		}
	}
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}
