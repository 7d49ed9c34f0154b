package images

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"testing"
)

// fuzzCap is the pixel cap under fuzzing: small, so a crafted header can cross it cheaply and
// every accepted input decodes fast.
const fuzzCap = 1 << 20

// FuzzOptimize feeds arbitrary bytes to the optimiser, which reads whatever a conversation's image
// element pointed to. It must never panic; an image whose header claims more pixels than the cap
// must be refused as too large before decoding; no decode may produce more pixels than the header
// claimed (the bound on the work: time is for benchmarks, not tests); anything accepted must come
// out as a decodable JPEG within MaxEdge that never grew; every refusal must map to a reason the
// model can be told.
func FuzzOptimize(f *testing.F) {
	small := image.NewNRGBA(image.Rect(0, 0, 40, 30))
	for y := range 30 {
		for x := range 40 {
			small.Set(x, y, color.NRGBA{uint8(x * 6), uint8(y * 8), 90, uint8(x * y)})
		}
	}
	var p, j, g bytes.Buffer
	_ = png.Encode(&p, small)
	_ = jpeg.Encode(&j, small, nil)
	_ = gif.Encode(&g, small, nil)
	f.Add(p.Bytes())
	f.Add(j.Bytes())
	f.Add(g.Bytes())
	f.Add(p.Bytes()[:len(p.Bytes())/2])
	f.Add(j.Bytes()[:len(j.Bytes())-20])
	f.Add(pngClaiming(p.Bytes(), 100000, 100000))
	f.Add(pngClaiming(p.Bytes(), 1025, 1024))
	f.Add(pngClaiming(p.Bytes(), 0, 5))
	f.Add(append([]byte("\x00\x00\x00\x18ftypheic"), make([]byte, 32)...))
	f.Add([]byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`))
	f.Add([]byte("BM"))
	f.Add([]byte("II*\x00"))
	// The WebP files are seeds 12 and 13 and stay there; the JPEGs after them exercise the
	// scaled JPEG decoder (restart intervals, every chroma layout, greyscale, progressive).
	for _, name := range []string{"testdata/lossless-300x200.webp", "testdata/lossy-1000x500.webp",
		"testdata/restart-420.jpg", "testdata/restart-422.jpg", "testdata/sampled-440.jpg",
		"testdata/optimized-444.jpg", "testdata/gray.jpg", "testdata/progressive.jpg"} {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	o := Optimizer{MaxPixels: fuzzCap, MaxInputBytes: 4 << 20}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, _, cfgErr := image.DecodeConfig(bytes.NewReader(data))
		res, wk, err := o.optimize(data)
		// The work is bounded by what the header claims, which the cap bounds: a small
		// file must not make the decoder produce more pixels than it admitted to.
		if wk.decodedPixels > fuzzCap {
			t.Fatalf("decoded %d pixels, over the %d pixel cap", wk.decodedPixels, fuzzCap)
		}
		if cfgErr == nil && wk.decodedPixels > int64(cfg.Width)*int64(cfg.Height) {
			t.Fatalf("decoded %d pixels from a header claiming %dx%d", wk.decodedPixels, cfg.Width, cfg.Height)
		}
		if cfgErr == nil && int64(cfg.Width)*int64(cfg.Height) > fuzzCap {
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("header claims %dx%d (over the %d pixel cap), want ErrTooLarge, got result %dx%d err %v",
					cfg.Width, cfg.Height, fuzzCap, res.Width, res.Height, err)
			}
			return
		}
		if err != nil {
			if !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupportedFormat) {
				t.Fatalf("refusal %v is none of the documented errors", err)
			}
			return
		}
		if res.Width < 1 || res.Height < 1 || res.Width > MaxEdge || res.Height > MaxEdge {
			t.Fatalf("result is %dx%d, want each edge within 1..%d", res.Width, res.Height, MaxEdge)
		}
		if cfgErr == nil && (res.Width > max(cfg.Width, cfg.Height) || res.Height > max(cfg.Width, cfg.Height)) {
			t.Fatalf("a %dx%d image grew to %dx%d", cfg.Width, cfg.Height, res.Width, res.Height)
		}
		out, err := jpeg.DecodeConfig(bytes.NewReader(res.JPEG))
		if err != nil || out.Width != res.Width || out.Height != res.Height {
			t.Fatalf("output is not a %dx%d JPEG: %dx%d, %v", res.Width, res.Height, out.Width, out.Height, err)
		}
	})
}

// pngClaiming rewrites a PNG's IHDR to claim w x h pixels, with a correct checksum, so only the
// size is a lie.
func pngClaiming(src []byte, w, h uint32) []byte {
	b := bytes.Clone(src)
	// Signature (8), IHDR length (4), "IHDR" (4), then width and height.
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}
