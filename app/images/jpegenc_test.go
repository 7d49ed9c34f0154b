package images

import (
	"bytes"
	"image"
	"image/jpeg"
	"math"
	"os"
	"testing"
)

// psnrPlanes compares a decoded image's planes with the planes that were encoded.
func psnrPlanes(t *testing.T, want []plane, got []plane) float64 {
	t.Helper()
	var se float64
	n := 0
	for i := range want {
		w, g := want[i], got[i]
		if w.w != g.w || w.h != g.h {
			t.Fatalf("plane %d is %dx%d, want %dx%d", i, g.w, g.h, w.w, w.h)
		}
		for y := range w.h {
			for x := range w.w {
				d := float64(w.pix[y*w.stride+x]) - float64(g.pix[y*g.stride+x])
				se += d * d
				n++
			}
		}
	}
	if se == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255*float64(n)/se)
}

func newAlloc16(n int) []int16 { return make([]int16, n) }

// The encoder's output must decode with the standard library to the planes it was given,
// about as faithfully as image/jpeg's own encoder at the same quality (same quantisation),
// and be no larger, its Huffman tables being made for the image.
func TestPlaneEncoderMatchesStandardEncoderQualityAndIsSmaller(t *testing.T) {
	for _, name := range []string{"restart-420.jpg", "optimized-444.jpg", "gray.jpg"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		src := stdPlanes(t, data)
		// Output layout: luma as is, chroma at half size each way.
		in := []plane{src[0]}
		if len(src) == 3 {
			for _, c := range src[1:] {
				half := plane{w: (src[0].w + 1) / 2, h: (src[0].h + 1) / 2}
				half.stride, half.pix = half.w, make([]byte, half.w*half.h)
				resize(half, c, catmullRom, func(n int) []byte { return make([]byte, n) })
				in = append(in, half)
			}
		}
		var ours bytes.Buffer
		encodeJPEGPlanes(&ours, in[0], in[1:], Quality, newAlloc16)
		rect := image.Rect(0, 0, in[0].w, in[0].h)
		var ref image.Image = &image.Gray{Pix: in[0].pix, Stride: in[0].stride, Rect: rect}
		if len(in) == 3 {
			ref = &image.YCbCr{Y: in[0].pix, Cb: in[1].pix, Cr: in[2].pix, YStride: in[0].stride, CStride: in[1].stride,
				SubsampleRatio: image.YCbCrSubsampleRatio420, Rect: rect}
		}
		var std bytes.Buffer
		if err := jpeg.Encode(&std, ref, &jpeg.Options{Quality: Quality}); err != nil {
			t.Fatal(err)
		}
		pOurs := psnrPlanes(t, in, stdPlanes(t, ours.Bytes()))
		pStd := psnrPlanes(t, in, stdPlanes(t, std.Bytes()))
		if pOurs < pStd-0.1 {
			t.Errorf("%s: %.2f dB, image/jpeg %.2f dB at the same quality", name, pOurs, pStd)
		}
		if ours.Len() > std.Len() {
			t.Errorf("%s: %d bytes, image/jpeg %d", name, ours.Len(), std.Len())
		}
		t.Logf("%s: %.2f dB in %d bytes; image/jpeg %.2f dB in %d bytes", name, pOurs, ours.Len(), pStd, std.Len())
	}
}

// Degenerate inputs: one flat colour gives one-symbol Huffman tables, and sizes below one
// block or MCU leave most of the block to edge padding.
func TestPlaneEncoderHandlesFlatAndTinyPlanes(t *testing.T) {
	for _, c := range []struct{ w, h int }{{1, 1}, {7, 3}, {17, 9}, {64, 64}} {
		mk := func(w, h int, v byte) plane {
			p := plane{w: w, h: h, stride: w, pix: make([]byte, w*h)}
			for i := range p.pix {
				p.pix[i] = v
			}
			return p
		}
		in := []plane{mk(c.w, c.h, 90), mk((c.w+1)/2, (c.h+1)/2, 100), mk((c.w+1)/2, (c.h+1)/2, 160)}
		var out bytes.Buffer
		encodeJPEGPlanes(&out, in[0], in[1:], Quality, newAlloc16)
		if p := psnrPlanes(t, in, stdPlanes(t, out.Bytes())); p < 45 {
			t.Errorf("%dx%d flat: %.1f dB", c.w, c.h, p)
		}
		out.Reset()
		encodeJPEGPlanes(&out, in[0], nil, Quality, newAlloc16)
		if p := psnrPlanes(t, in[:1], stdPlanes(t, out.Bytes())); p < 45 {
			t.Errorf("%dx%d flat grey: %.1f dB", c.w, c.h, p)
		}
	}
}

// A picture of splitMCUs MCUs or more is coded as two restart intervals on two goroutines:
// the file says so (DRI, one RST0), and both decoders read it to the same samples as a
// file coded in one piece would give.
func TestLargePictureIsCodedInTwoRestartIntervals(t *testing.T) {
	const w, h = 257, 251 // 17 x 16 MCUs of 16x16: 272, odd, so the halves differ in size
	src := testPlanes(w, h)
	y := plane{w: w, h: h, stride: w, pix: src[0]}
	var chroma []plane
	for _, p := range src[1:] {
		c := plane{w: (w + 1) / 2, h: (h + 1) / 2, stride: (w + 1) / 2}
		c.pix = make([]byte, c.w*c.h)
		resize(c, plane{w: w, h: h, stride: w, pix: p}, catmullRom, heapAlloc)
		chroma = append(chroma, c)
	}
	var split bytes.Buffer
	encodeJPEGPlanes(&split, y, chroma, Quality, newAlloc16)
	data := split.Bytes()
	if !bytes.Contains(data, []byte{0xFF, 0xDD, 0, 4, 0, 136}) || bytes.Count(data, []byte{0xFF, 0xD0}) != 1 {
		t.Fatal("want a restart interval of 136 MCUs and one RST0 marker")
	}
	want := stdPlanes(t, data)
	got, _, err := decodeJPEGScaled(data, 8, heapAlloc)
	if err != nil {
		t.Fatal(err)
	}
	if worst, _, err := planeDiff(got, want); err != nil || worst > fullScaleBound {
		t.Fatalf("the decoders differ by %d (%v)", worst, err)
	}
	if p := psnrPlanes(t, append([]plane{y}, chroma...), want); p < 30 {
		t.Fatalf("%.1f dB against the planes encoded", p)
	}
}
