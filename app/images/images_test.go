package images

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"strings"
	"testing"
)

// twoTone draws the left half red and the right half blue, so a test can
// tell which way the image was turned.
func twoTone(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{220, 20, 20, 255}
			if x >= w/2 {
				c = color.RGBA{20, 20, 220, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

func encodeJPEG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// withOrientation inserts an APP1 EXIF segment holding only the
// orientation tag (0x0112) right after the JPEG SOI marker.
func withOrientation(t testing.TB, jpg []byte, orientation uint16) []byte {
	t.Helper()
	var tiff bytes.Buffer
	le := binary.LittleEndian
	tiff.WriteString("II")
	_ = binary.Write(&tiff, le, uint16(42))
	_ = binary.Write(&tiff, le, uint32(8)) // IFD0 offset
	_ = binary.Write(&tiff, le, uint16(1)) // one entry
	_ = binary.Write(&tiff, le, uint16(0x0112))
	_ = binary.Write(&tiff, le, uint16(3)) // SHORT
	_ = binary.Write(&tiff, le, uint32(1))
	_ = binary.Write(&tiff, le, orientation)
	_ = binary.Write(&tiff, le, uint16(0)) // padding of the 4-byte value
	_ = binary.Write(&tiff, le, uint32(0)) // no next IFD
	payload := append([]byte("Exif\x00\x00"), tiff.Bytes()...)
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	seg = append(seg, payload...)
	if jpg[0] != 0xFF || jpg[1] != 0xD8 {
		t.Fatal("not a JPEG")
	}
	out := append([]byte{0xFF, 0xD8}, seg...)
	return append(out, jpg[2:]...)
}

func decodeResult(t *testing.T, r Result) image.Image {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(r.JPEG))
	if err != nil {
		t.Fatalf("optimised output is not a JPEG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != r.Width || b.Dy() != r.Height {
		t.Fatalf("reported %dx%d but the JPEG is %dx%d", r.Width, r.Height, b.Dx(), b.Dy())
	}
	return img
}

func isRed(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r>>8 > 150 && g>>8 < 90 && b>>8 < 90
}

func isBlue(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return b>>8 > 150 && r>>8 < 90 && g>>8 < 90
}

func TestTargetSizeRoundsLongEdgeDownToTilesAndNeverUpscales(t *testing.T) {
	cases := []struct{ w, h, ww, wh int }{
		{300, 200, 300, 200},     // small: untouched, never enlarged to 448
		{448, 100, 448, 100},     // exactly one tile
		{449, 300, 448, 299},     // just over one tile rounds down
		{1000, 500, 896, 448},    // two tiles
		{4032, 3024, 1344, 1008}, // 12 MP phone photo: capped at three tiles
		{3024, 4032, 1008, 1344}, // portrait
		{1344, 1344, 1344, 1344}, // exactly the cap
		{3000, 10, 1344, 4},      // panorama strip
		{200, 5000, 54, 1344},    // tall strip
		{20000, 1, 1344, 1},      // short edge never reaches zero
		// The README's table.
		{1600, 1200, 1344, 1008},
		{1000, 750, 896, 672},
		{600, 450, 448, 336},
		{500, 375, 448, 336},
		{890, 600, 448, 302},
	}
	for _, c := range cases {
		w, h := TargetSize(c.w, c.h)
		if w != c.ww || h != c.wh {
			t.Errorf("TargetSize(%d, %d): want %dx%d, got %dx%d", c.w, c.h, c.ww, c.wh, w, h)
		}
	}
	for w := 1; w <= 3000; w += 37 {
		for h := 1; h <= 3000; h += 41 {
			tw, th := TargetSize(w, h)
			if tw > w || th > h {
				t.Fatalf("TargetSize(%d, %d) = %dx%d enlarges the image", w, h, tw, th)
			}
			if long := max(tw, th); max(w, h) > Tile && (long%Tile != 0 || long > MaxEdge) {
				t.Fatalf("TargetSize(%d, %d) = %dx%d: long edge not a multiple of %d within %d", w, h, tw, th, Tile, MaxEdge)
			}
		}
	}
}

func TestOptimizeScalesJPEGAndReturnsDataURL(t *testing.T) {
	res, err := Optimizer{}.Optimize(encodeJPEG(t, twoTone(1000, 500)))
	if err != nil {
		t.Fatalf("Optimize: %v", err)
	}
	if res.Width != 896 || res.Height != 448 || res.SourceFormat != "jpeg" {
		t.Fatalf("want 896x448 from jpeg, got %dx%d from %s", res.Width, res.Height, res.SourceFormat)
	}
	decodeResult(t, res)
	url := res.DataURL()
	const prefix = "data:image/jpeg;base64,"
	if !strings.HasPrefix(url, prefix) {
		t.Fatalf("data URL starts %q", url[:30])
	}
	raw, err := base64.StdEncoding.DecodeString(url[len(prefix):])
	if err != nil || !bytes.Equal(raw, res.JPEG) {
		t.Fatalf("data URL does not carry the JPEG bytes (err %v)", err)
	}
}

func TestOptimizeKeepsSmallImageSize(t *testing.T) {
	res, err := Optimizer{}.Optimize(encodePNG(t, twoTone(320, 240)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Width != 320 || res.Height != 240 {
		t.Fatalf("a 320x240 image must not be enlarged, got %dx%d", res.Width, res.Height)
	}
}

func TestOptimizeAppliesEXIFOrientation(t *testing.T) {
	src := encodeJPEG(t, twoTone(600, 300)) // red left, blue right
	cases := []struct {
		orientation uint16
		w, h        int
		redAt       image.Point // a point that must be red after orienting
		blueAt      image.Point
	}{
		{1, 448, 224, image.Pt(50, 112), image.Pt(400, 112)},
		{3, 448, 224, image.Pt(400, 112), image.Pt(50, 112)}, // 180°: red on the right
		{6, 224, 448, image.Pt(112, 50), image.Pt(112, 400)}, // 90° clockwise: red on top
		{8, 224, 448, image.Pt(112, 400), image.Pt(112, 50)}, // 90° counter-clockwise: red at the bottom
	}
	for _, c := range cases {
		res, err := Optimizer{}.Optimize(withOrientation(t, src, c.orientation))
		if err != nil {
			t.Fatalf("orientation %d: %v", c.orientation, err)
		}
		if res.Width != c.w || res.Height != c.h {
			t.Fatalf("orientation %d: want %dx%d, got %dx%d", c.orientation, c.w, c.h, res.Width, res.Height)
		}
		img := decodeResult(t, res)
		if !isRed(img.At(c.redAt.X, c.redAt.Y)) || !isBlue(img.At(c.blueAt.X, c.blueAt.Y)) {
			t.Errorf("orientation %d: want red at %v and blue at %v, got %v and %v", c.orientation,
				c.redAt, c.blueAt, img.At(c.redAt.X, c.redAt.Y), img.At(c.blueAt.X, c.blueAt.Y))
		}
	}
}

func TestOptimizeFlattensTransparentPNGOntoWhite(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 500, 500)) // fully transparent
	res, err := Optimizer{}.Optimize(encodePNG(t, img))
	if err != nil {
		t.Fatal(err)
	}
	if res.Width != 448 || res.Height != 448 {
		t.Fatalf("want 448x448, got %dx%d", res.Width, res.Height)
	}
	r, g, b, _ := decodeResult(t, res).At(200, 200).RGBA()
	if r>>8 < 240 || g>>8 < 240 || b>>8 < 240 {
		t.Fatalf("transparent pixels must become white, got rgb(%d,%d,%d)", r>>8, g>>8, b>>8)
	}
}

func TestOptimizeReadsGIFFirstFrame(t *testing.T) {
	pal := color.Palette{color.RGBA{220, 20, 20, 255}, color.RGBA{20, 20, 220, 255}}
	frame := image.NewPaletted(image.Rect(0, 0, 900, 300), pal)
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, &gif.GIF{Image: []*image.Paletted{frame}, Delay: []int{0}}); err != nil {
		t.Fatal(err)
	}
	res, err := Optimizer{}.Optimize(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if res.Width != 896 || res.Height != 299 || res.SourceFormat != "gif" {
		t.Fatalf("want 896x299 from gif, got %dx%d from %s", res.Width, res.Height, res.SourceFormat)
	}
	if !isRed(decodeResult(t, res).At(10, 10)) {
		t.Fatal("want the first frame's red")
	}
}

func TestOptimizeReadsWebP(t *testing.T) {
	cases := []struct {
		file string
		w, h int
	}{
		{"testdata/lossy-1000x500.webp", 896, 448},
		{"testdata/lossless-300x200.webp", 300, 200},
	}
	for _, c := range cases {
		data, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Optimizer{}.Optimize(data)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if res.Width != c.w || res.Height != c.h || res.SourceFormat != "webp" {
			t.Fatalf("%s: want %dx%d webp, got %dx%d %s", c.file, c.w, c.h, res.Width, res.Height, res.SourceFormat)
		}
		decodeResult(t, res)
	}
}

// pngHeaderClaiming builds a PNG whose IHDR claims w x h and which has no
// pixel data: a decompression bomb stand-in.
func pngHeaderClaiming(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	_ = binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	chunk := append([]byte("IHDR"), ihdr...)
	b.Write(chunk)
	_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

func TestOptimizeRejectsDecompressionBombFromHeader(t *testing.T) {
	_, err := Optimizer{}.Optimize(pngHeaderClaiming(100000, 100000))
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("want ErrTooLarge for a 10-gigapixel header, got %v", err)
	}
	small := Optimizer{MaxPixels: 1000}
	if _, err := small.Optimize(encodePNG(t, twoTone(40, 40))); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("want ErrTooLarge above a custom pixel cap, got %v", err)
	}
	if _, err := (Optimizer{MaxInputBytes: 10}).Optimize(encodePNG(t, twoTone(40, 40))); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("want ErrTooLarge above the input byte cap, got %v", err)
	}
}

func TestOptimizeReportsUnsupportedFormatsByName(t *testing.T) {
	cases := map[string][]byte{
		"HEIC": append([]byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic"), make([]byte, 64)...),
		"AVIF": append([]byte("\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1"), make([]byte, 64)...),
		"SVG":  []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>`),
	}
	for name, data := range cases {
		_, err := Optimizer{}.Optimize(data)
		if !errors.Is(err, ErrUnsupportedFormat) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: want ErrUnsupportedFormat naming %s, got %v", name, name, err)
		}
		if Reason(err) != "its file format is not supported" {
			t.Errorf("%s: unexpected reason %q", name, Reason(err))
		}
	}
}

func TestOptimizeReportsDamagedData(t *testing.T) {
	full := encodeJPEG(t, twoTone(800, 600))
	for name, data := range map[string][]byte{"empty": nil, "truncated jpeg": full[:len(full)/3]} {
		if _, err := (Optimizer{}).Optimize(data); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: want ErrCorrupt, got %v", name, err)
		}
	}
}

func TestDCTScaleLeavesAQuarterMoreThanTheTarget(t *testing.T) {
	cases := []struct{ w, h, n int }{
		{4032, 3024, 4}, // 2016x1512 >= 1.25 x 1344x1008; 3/8 (1512x1134) would not be
		{3024, 4032, 4},
		{2016, 1512, 7}, // 1764x1323; 6/8 gives 1512
		{1400, 1000, 8}, // decoded in full
		{600, 300, 8},   // to 448x224: 7/8 (525) is under 560
		{300, 200, 8},   // kept as is
		{20000, 1, 1},   // 2500x1 still covers 1.25 x 1344x1
	}
	for _, c := range cases {
		tw, th := TargetSize(c.w, c.h)
		if n := dctScale(c.w, c.h, tw, th); n != c.n {
			t.Errorf("dctScale(%dx%d to %dx%d) = %d, want %d", c.w, c.h, tw, th, n, c.n)
		}
	}
}

// A large baseline JPEG takes the scaled decoder, which produces only the reduced planes:
// the work is bounded by the target, not the camera's resolution. (A strip keeps the test
// quick: 2016x96 goes to 1344x64, which 7/8 covers with the margin.)
func TestLargeJPEGIsDecodedAtReducedScale(t *testing.T) {
	res, wk, err := Optimizer{}.optimize(encodeJPEG(t, twoTone(2016, 96)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Width != 1344 || res.Height != 64 {
		t.Fatalf("got %dx%d, want 1344x64", res.Width, res.Height)
	}
	if wk.dctScale != 7 || wk.decodedPixels != 1764*84 {
		t.Fatalf("decoded %d pixels at scale %d/8, want 1764x84 at 7/8", wk.decodedPixels, wk.dctScale)
	}
	img := decodeResult(t, res)
	if !isRed(img.At(300, 32)) || !isBlue(img.At(1000, 32)) {
		t.Fatalf("colours lost: %v and %v", img.At(300, 32), img.At(1000, 32))
	}
}

// Optimize runs on several goroutines at once (one per requested image) and shares its
// pooled buffers between calls: every result must be the one a lone call gives.
func TestConcurrentOptimizeCallsGiveTheSameBytes(t *testing.T) {
	inputs := [][]byte{
		encodeJPEG(t, twoTone(1000, 500)),
		encodePNG(t, twoTone(640, 480)),
		withOrientation(t, encodeJPEG(t, twoTone(900, 600)), 6),
	}
	want := make([][]byte, len(inputs))
	for i, in := range inputs {
		res, err := Optimizer{}.Optimize(in)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = res.JPEG
	}
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			for k := range 6 {
				i := (g + k) % len(inputs)
				res, err := Optimizer{}.Optimize(inputs[i])
				if err == nil && !bytes.Equal(res.JPEG, want[i]) {
					err = errors.New("a concurrent call gave different bytes")
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
