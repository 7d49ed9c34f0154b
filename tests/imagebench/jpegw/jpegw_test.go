package jpegw

import (
	"bytes"
	"image"
	"image/jpeg"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// scene is a small picture with gradients, edges and texture in every plane.
func scene(w, h int) [][]byte {
	p := [][]byte{make([]byte, w*h), make([]byte, w*h), make([]byte, w*h)}
	for y := range h {
		for x := range w {
			i := y*w + x
			p[0][i] = byte((x*5 + y*3 + (x*y)%17*4) & 0xFF)
			if (x/9+y/7)%2 == 0 {
				p[0][i] = byte(40 + x%50)
			}
			p[1][i] = byte(128 + 60*math.Sin(float64(x)/11))
			p[2][i] = byte(128 + 60*math.Cos(float64(y)/7+float64(x)/23))
		}
	}
	return p
}

// psnr of a decoded image's planes (upsampled by nearest neighbour) against the source.
func psnr(t *testing.T, data []byte, src [][]byte, w, h int) float64 {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("image/jpeg: %v", err)
	}
	var se float64
	n := 0
	switch m := img.(type) {
	case *image.Gray:
		for y := range h {
			for x := range w {
				d := float64(m.Pix[y*m.Stride+x]) - float64(src[0][y*w+x])
				se += d * d
				n++
			}
		}
	case *image.YCbCr:
		for y := range h {
			for x := range w {
				d := float64(m.Y[m.YOffset(x, y)]) - float64(src[0][y*w+x])
				se += d * d
				n++
			}
		}
	default:
		t.Fatalf("decoded as %T", img)
	}
	return 10 * math.Log10(255*255*float64(n)/se)
}

// Every shape the writer makes must decode with the standard library (and with libjpeg's
// djpeg where it is installed) to the picture it was given.
func TestWrittenFilesDecode(t *testing.T) {
	const w, h = 61, 47
	src := scene(w, h)
	cases := map[string]Options{
		"420":              {},
		"444":              {Sampling: [][2]int{{1, 1}, {1, 1}, {1, 1}}},
		"422-restart":      {Sampling: [][2]int{{2, 1}, {1, 1}, {1, 1}}, Restart: 3},
		"440":              {Sampling: [][2]int{{1, 2}, {1, 1}, {1, 1}}},
		"411":              {Sampling: [][2]int{{4, 1}, {1, 1}, {1, 1}}},
		"progressive-420":  {Progressive: true},
		"progressive-444r": {Progressive: true, Sampling: [][2]int{{1, 1}, {1, 1}, {1, 1}}, Restart: 5},
		"spectral-422":     {Progressive: true, Sampling: [][2]int{{2, 1}, {1, 1}, {1, 1}}, Scans: SpectralScript(3)},
		"multiscan-420":    {Scans: []Scan{{Comps: []int{0}, Se: 63}, {Comps: []int{1}, Se: 63}, {Comps: []int{2}, Se: 63}}},
	}
	djpeg, _ := exec.LookPath("djpeg")
	for name, o := range cases {
		data, err := Encode(src, w, h, o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p := psnr(t, data, src, w, h)
		t.Logf("%s: %d bytes, %.1f dB", name, len(data), p)
		if p < 30 {
			t.Errorf("%s: luma %.1f dB", name, p)
		}
		if djpeg != "" {
			f := filepath.Join(t.TempDir(), name+".jpg")
			os.WriteFile(f, data, 0o644)
			if out, err := exec.Command(djpeg, "-outfile", os.DevNull, f).CombinedOutput(); err != nil || len(out) > 0 {
				t.Errorf("%s: djpeg: %v %s", name, err, out)
			}
		}
	}
	// The same coefficients in other scans must decode to the same samples.
	for _, pair := range [][2]string{{"progressive-420", "420"}, {"multiscan-420", "420"}, {"progressive-444r", "444"}, {"spectral-422", "422-restart"}} {
		a, _ := Encode(src, w, h, cases[pair[0]])
		b, _ := Encode(src, w, h, cases[pair[1]])
		ia, err1 := jpeg.Decode(bytes.NewReader(a))
		ib, err2 := jpeg.Decode(bytes.NewReader(b))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		ya, yb := ia.(*image.YCbCr), ib.(*image.YCbCr)
		if !bytes.Equal(ya.Y, yb.Y) || !bytes.Equal(ya.Cb, yb.Cb) || !bytes.Equal(ya.Cr, yb.Cr) {
			t.Errorf("%s and %s decode to different samples", pair[0], pair[1])
		}
	}
	grey, err := Encode(src[:1], w, h, Options{Progressive: true})
	if err != nil {
		t.Fatal(err)
	}
	if p := psnr(t, grey, src, w, h); p < 30 {
		t.Errorf("grey progressive: %.1f dB", p)
	}
}
