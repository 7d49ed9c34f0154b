package imagebench

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"sync"

	"github.com/clanker-desktop/clanker/tests/imagebench/jpegw"
)

// The benchmark photos are 4032x3024, a 12-megapixel phone camera's size, encoded at
// quality 90: baseline with 4:2:0 chroma as phone cameras write them, and the same scene
// with full-resolution chroma (4:4:4, what some cameras and editors write) and as a
// progressive file (what web pages and many apps re-save photos as). scene-1600x1200 is
// the scene drawn at 1600x1200, a photo already shrunk by a messaging app, which the
// decoder cannot reduce while decoding (1600 is less than 1.25 times 1344).
const photoW, photoH = 4032, 3024

// photo names one generated benchmark photo.
type photo string

const (
	// scene is photo-like: sky, clouds, sun, hills, a house, grass with texture at every
	// scale (amplitude falling with frequency, as in natural images) and sensor noise.
	// About 4 MB, like a phone's 12 MP JPEG.
	scene photo = "scene"
	// texture is the synthetic pattern the first image benchmarks used: sawtooth ramps
	// that wrap every 36 pixels and a modular pattern, full of detail near the sampling
	// limit. It is a worst case for decoding (6 MB) and for any scaler's aliasing; even
	// the reference itself encoded at quality 80 reaches only about 32 dB on it.
	texture photo = "texture"
	// scene444 is scene with full-resolution chroma, written by tests/imagebench/jpegw.
	scene444 photo = "scene-444"
	// sceneProgressive is scene (4:2:0) as a progressive JPEG with libjpeg's default
	// script (spectral selection and successive approximation), written by jpegw.
	sceneProgressive photo = "scene-progressive"
	// scene2MP is the scene drawn at 1600x1200, baseline 4:2:0 by image/jpeg.
	scene2MP photo = "scene-1600x1200"
)

// photos are the 12-megapixel benchmark photos; photos2MP the smaller ones.
var (
	photos    = []photo{scene, texture, scene444, sceneProgressive}
	photos2MP = []photo{scene2MP}
	// heapPhotos are the photos the heap benchmark alternates.
	heapPhotos = []photo{scene, texture}
)

// size is the photo's width and height.
func (p photo) size() (int, int) {
	if p == scene2MP {
		return 1600, 1200
	}
	return photoW, photoH
}

var (
	photoMu    sync.Mutex
	photoBytes = map[photo][]byte{}
)

// bytesOf returns the JPEG of p, generated once per process; every generator is
// deterministic, so the bytes are the same in every run.
func (p photo) bytes() []byte {
	photoMu.Lock()
	defer photoMu.Unlock()
	if b, ok := photoBytes[p]; ok {
		return b
	}
	var img *image.YCbCr
	var opts *jpegw.Options
	w, h := p.size()
	switch p {
	case scene, scene2MP:
		img, _ = makeScene(w, h, false)
	case texture:
		img = makeTexture(w, h)
	case scene444:
		opts = &jpegw.Options{Quality: 90, Sampling: [][2]int{{1, 1}, {1, 1}, {1, 1}}}
	case sceneProgressive:
		opts = &jpegw.Options{Quality: 90, Progressive: true}
	default:
		panic("unknown photo " + string(p))
	}
	if opts != nil {
		_, full := makeScene(w, h, true)
		b, err := jpegw.Encode(full, w, h, *opts)
		if err != nil {
			panic("encode benchmark photo: " + err.Error())
		}
		photoBytes[p] = b
		return b
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		panic("encode benchmark photo: " + err.Error())
	}
	photoBytes[p] = buf.Bytes()
	return buf.Bytes()
}

func makeTexture(w, h int) *image.YCbCr {
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
	return img
}

// lattice is smooth value noise: random values on a grid of the given period,
// interpolated bilinearly between grid points.
type lattice struct {
	period float64
	cols   int
	v      []float32
}

func newLattice(w, h int, period float64, rnd *xorshift) lattice {
	cols, rows := int(float64(w)/period)+2, int(float64(h)/period)+2
	l := lattice{period: period, cols: cols, v: make([]float32, cols*rows)}
	for i := range l.v {
		l.v[i] = float32(rnd.float()*2 - 1)
	}
	return l
}

func (l lattice) at(x, y int) float64 {
	fx, fy := float64(x)/l.period, float64(y)/l.period
	ix, iy := int(fx), int(fy)
	tx, ty := fx-float64(ix), fy-float64(iy)
	i := iy*l.cols + ix
	a := float64(l.v[i])*(1-tx) + float64(l.v[i+1])*tx
	b := float64(l.v[i+l.cols])*(1-tx) + float64(l.v[i+l.cols+1])*tx
	return a*(1-ty) + b*ty
}

type xorshift uint64

func (s *xorshift) next() uint64 {
	x := uint64(*s)
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	*s = xorshift(x)
	return x
}

func (s *xorshift) float() float64 { return float64(s.next()>>11) / (1 << 53) }

// makeScene draws the scene at w x h; both must be even (chroma is made per 2x2 block).
// With full it also returns the Y, Cb and Cr planes at full resolution (chroma of each
// pixel, not of its 2x2 block).
func makeScene(w, h int, full bool) (*image.YCbCr, [][]byte) {
	var planes [][]byte
	if full {
		planes = [][]byte{make([]byte, w*h), make([]byte, w*h), make([]byte, w*h)}
	}
	rnd := xorshift(0x9E3779B97F4A7C15)
	// Octaves of texture from 192 down to 1.5 pixels, amplitude proportional to
	// period^0.3: natural images keep roughly equal energy per octave.
	var octaves []lattice
	var amps []float64
	for p := 192.0; p >= 1.5; p /= 2 {
		octaves = append(octaves, newLattice(w, h, p, &rnd))
		amps = append(amps, math.Pow(p/192, 0.3))
	}
	clouds := newLattice(w, h, 700, &rnd)
	img := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	clamp := func(v float64) uint8 { return uint8(min(max(math.Round(v), 0), 255)) }
	// Two rows at a time: each 2x2 block's mean colour gives its chroma, as a camera's
	// 4:2:0 conversion does.
	rgb := make([]float64, 2*w*3)
	for y0 := 0; y0 < h; y0 += 2 {
		for y := y0; y < y0+2; y++ {
			fy := float64(y) / float64(h)
			for x := range w {
				fx := float64(x) / float64(w)
				var tex float64
				for i, o := range octaves {
					tex += amps[i] * o.at(x, y)
				}
				noise := (rnd.float() - 0.5) * 6
				horizon := 0.58 + 0.06*math.Sin(fx*math.Pi*2.3) + 0.02*math.Sin(fx*math.Pi*9.1)
				var r, g, b float64
				switch {
				case fy > horizon: // grass: strong texture at every scale
					shade := 1 - 0.5*(fy-horizon)/(1-horizon)
					r, g, b = 60+50*tex, 120*shade+80*tex, 45+30*tex
				default: // sky with clouds and faint texture
					t := fy / horizon
					c := max(clouds.at(x, y)+0.2*tex, 0) * 160
					r, g, b = 50+150*t+c, 100+120*t+c, 205+40*t+c*0.6
					r, g, b = r+6*tex, g+6*tex, b+6*tex
				}
				// Sun, anti-aliased over a pixel.
				if d := math.Hypot(float64(x)-0.72*float64(w), float64(y)-0.2*float64(h)) - 0.05*float64(w); d < 1 {
					a := min(1, 1-d) // coverage
					r, g, b = r*(1-a)+255*a, g*(1-a)+220*a, b*(1-a)+120*a
				}
				// A house: a wall with windows and a dark roof line, hard edges.
				if x > w*30/100 && x < w*46/100 && y > h*52/100 && y < h*78/100 {
					r, g, b = 190+15*tex, 170+15*tex, 150+15*tex
					wx, wy := (x-w*30/100)%(w*4/100), (y-h*52/100)%(h*8/100)
					if wx > w*1/100 && wx < w*3/100 && wy > h*2/100 && wy < h*6/100 {
						r, g, b = 40, 55, 80
					}
				}
				if x > w*29/100 && x < w*47/100 && y > h*47/100 && y <= h*52/100 && (y-h*47/100) > (x-w*29/100)/12 {
					r, g, b = 110+10*tex, 40, 35
				}
				i := ((y-y0)*w + x) * 3
				rgb[i], rgb[i+1], rgb[i+2] = r+noise, g+noise, b+noise
				yy, cb, cr := color.RGBToYCbCr(clamp(rgb[i]), clamp(rgb[i+1]), clamp(rgb[i+2]))
				img.Y[y*img.YStride+x] = yy
				if full {
					planes[0][y*w+x], planes[1][y*w+x], planes[2][y*w+x] = yy, cb, cr
				}
			}
		}
		for x := 0; x < w; x += 2 {
			var r, g, b float64
			for _, o := range [4]int{0, 3, w * 3, w*3 + 3} {
				i := x*3 + o
				r, g, b = r+rgb[i], g+rgb[i+1], b+rgb[i+2]
			}
			_, cb, cr := color.RGBToYCbCr(clamp(r/4), clamp(g/4), clamp(b/4))
			o := img.COffset(x, y0)
			img.Cb[o], img.Cr[o] = cb, cr
		}
	}
	return img, planes
}
