package images

import (
	"bytes"
	"image"
	"image/jpeg"
	"testing"

	xdraw "golang.org/x/image/draw"
)

// photo12MP builds a 4032x3024 JPEG with gradients and texture, roughly
// like a phone photo (flat colour would flatter the decoder).
func photo12MP(b *testing.B) []byte {
	b.Helper()
	const w, h = 4032, 3024
	img := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	for y := range h {
		for x := range w {
			img.Y[y*img.YStride+x] = uint8((x*7 + y*3 + (x*y)%29) & 0xff)
		}
	}
	for y := range h / 2 {
		for x := range w / 2 {
			img.Cb[y*img.CStride+x] = uint8(x % 256)
			img.Cr[y*img.CStride+x] = uint8(y % 256)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkOptimize12MP measures the production pipeline (header check,
// imaging decode with EXIF orientation, imaging Linear resize, JPEG 80).
func BenchmarkOptimize12MP(b *testing.B) {
	data := photo12MP(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := Optimize(data)
		if err != nil || res.Width != 1344 {
			b.Fatalf("Optimize: %v (%dx%d)", err, res.Width, res.Height)
		}
	}
}

// BenchmarkOptimize12MPXDraw is the baseline: standard-library decode,
// golang.org/x/image/draw BiLinear scaling, JPEG 80.
func BenchmarkOptimize12MPXDraw(b *testing.B) {
	data := photo12MP(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		src, _, err := image.Decode(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		w, h := TargetSize(src.Bounds().Dx(), src.Bounds().Dy())
		dst := image.NewRGBA(image.Rect(0, 0, w, h))
		xdraw.BiLinear.Scale(dst, dst.Bounds(), src, src.Bounds(), xdraw.Src, nil)
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, dst, &jpeg.Options{Quality: Quality}); err != nil {
			b.Fatal(err)
		}
	}
}
