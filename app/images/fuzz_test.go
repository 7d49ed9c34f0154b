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
	"path/filepath"
	"testing"

	"github.com/clanker-desktop/clanker/tests/imagebench/jpegw"
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

// fuzzDecoderSeeds are the committed JPEGs and a few small generated shapes (progressive,
// restart markers, greyscale, 4:1:1).
func fuzzDecoderSeeds(f *testing.F) {
	names, _ := filepath.Glob("testdata/*.jpg")
	for _, n := range names {
		if b, err := os.ReadFile(n); err == nil {
			f.Add(b, byte(8))
		}
	}
	p := testPlanes(19, 13)
	for i, o := range []jpegw.Options{
		{Progressive: true, Restart: 2},
		{Sampling: samplings["411"], Restart: 1},
		{Progressive: true, Sampling: samplings["444"], Scans: jpegw.SpectralScript(3)},
	} {
		if b, err := jpegw.Encode(p, 19, 13, o); err == nil {
			f.Add(b, byte(1+i*3))
		}
	}
	if b, err := jpegw.Encode(p[:1], 19, 13, jpegw.Options{Progressive: true}); err == nil {
		f.Add(b, byte(4))
	}
}

// FuzzJPEGDecoder feeds arbitrary bytes to the hand-written decoder alone, at a scale the
// input picks. It must never panic; a picture it returns has the size the header claims
// at that scale; and it must read every file image/jpeg reads as planes (at full scale),
// within fullScaleBound of it where the coefficients are within the range real 8-bit
// files have: Optimize relies on that when it does not ask image/jpeg after the fast
// decoder found damage.
func FuzzJPEGDecoder(f *testing.F) {
	fuzzDecoderSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, scale byte) {
		n := int(scale%8) + 1
		cfg, cfgErr := jpeg.DecodeConfig(bytes.NewReader(data))
		hdr, hdrErr := readJPEGHeader(data)
		if hdr.width*hdr.height > 1<<18 || (cfgErr == nil && cfg.Width*cfg.Height > 1<<18) {
			return // the pixel cap is Optimize's; here only small pictures are decoded
		}
		got, _, err := decodeJPEGScaled(data, n, heapAlloc)
		if err == nil {
			if len(got) != 1 && len(got) != 3 {
				t.Fatalf("%d planes", len(got))
			}
			if w, h := (hdr.width*n+7)/8, (hdr.height*n+7)/8; got[0].w != w || got[0].h != h {
				t.Fatalf("scale %d: luma %dx%d, header %dx%d says %dx%d", n, got[0].w, got[0].h, hdr.width, hdr.height, w, h)
			}
		}
		want, stdOK := standardPlanes(data)
		if !stdOK || hdrErr != nil || !hdr.fast {
			return
		}
		full, _, err := decodeJPEGScaled(data, 8, heapAlloc)
		if errors.Is(err, errTooManyScans) {
			return // a limit image/jpeg does not have, on purpose
		}
		if err != nil {
			t.Fatalf("image/jpeg reads the file, the fast decoder says %v", err)
		}
		if _, _, derr := planeDiff(full, want); derr != nil {
			t.Fatalf("planes differ in shape from image/jpeg's: %v", derr)
		}
	})
}

// FuzzJPEGEncoder feeds arbitrary planes to the hand-written encoder alone: the input's
// first bytes pick the size (1..64 each way) and greyscale or colour, the rest are the
// samples. Its output must be a JPEG image/jpeg reads at that size, the same bytes every
// time, and within JPEG's error of the input where the input is flat.
func FuzzJPEGEncoder(f *testing.F) {
	f.Add([]byte{0, 0, 0, 128})
	f.Add([]byte{16, 8, 1, 10, 200, 30, 90})
	f.Add(append([]byte{63, 63, 1}, bytes.Repeat([]byte{77}, 64*64)...))
	f.Add(append([]byte{6, 40, 0}, bytes.Repeat([]byte{0, 255}, 300)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 4 {
			return
		}
		w, h, colour := int(data[0]%64)+1, int(data[1]%64)+1, data[2]%2 == 1
		samples := data[3:]
		mk := func(w, h, off int) plane {
			p := plane{w: w, h: h, stride: w, pix: make([]byte, w*h)}
			for i := range p.pix {
				p.pix[i] = samples[(off+i)%len(samples)]
			}
			return p
		}
		y := mk(w, h, 0)
		var chroma []plane
		if colour {
			chroma = []plane{mk((w+1)/2, (h+1)/2, w*h), mk((w+1)/2, (h+1)/2, w*h+7)}
		}
		var a, b bytes.Buffer
		encodeJPEGPlanes(&a, y, chroma, Quality, newAlloc16)
		encodeJPEGPlanes(&b, y, chroma, Quality, newAlloc16)
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatal("the same planes gave different files")
		}
		img, err := jpeg.Decode(bytes.NewReader(a.Bytes()))
		if err != nil {
			t.Fatalf("image/jpeg cannot read the output: %v", err)
		}
		if bd := img.Bounds(); bd.Dx() != w || bd.Dy() != h {
			t.Fatalf("output is %dx%d, want %dx%d", bd.Dx(), bd.Dy(), w, h)
		}
		if flat := bytes.Count(samples, samples[:1]) == len(samples); flat {
			got := planesOf(img, heapAlloc)
			in := append([]plane{y}, chroma...)
			if worst, _, err := planeDiff(got, in); err != nil || worst > 2 {
				t.Fatalf("a flat picture came back %d off (%v)", worst, err)
			}
		}
	})
}
