package images

import (
	"bytes"
	"image"
	"image/color"
	"testing"
)

// Every output sample's weights must sum to exactly one (flat areas stay flat) and read
// only samples inside the source, for reductions, enlargements and tiny edges alike.
func TestResampleWeightsHaveUnitGainAndStayInside(t *testing.T) {
	for _, c := range [][2]int{{2016, 1344}, {1512, 1344}, {1764, 1344}, {4032, 1344}, {756, 672}, {3, 1}, {1, 1}, {5, 4}, {100, 448}, {2, 7}} {
		src, dst := c[0], c[1]
		ws := makeWeights(src, dst, catmullRom)
		for d := range dst {
			if ws.start[d] < 0 || ws.start[d]+ws.taps > src {
				t.Fatalf("%d->%d: output %d reads %d..%d", src, dst, d, ws.start[d], ws.start[d]+ws.taps-1)
			}
			var sum int32
			for _, w := range ws.w[d*ws.taps : (d+1)*ws.taps] {
				sum += w
			}
			if sum != 1<<weightBits {
				t.Fatalf("%d->%d: output %d weights sum to %d", src, dst, d, sum)
			}
		}
	}
}

// Orientation moves each corner where EXIF says it goes.
func TestOrientMovesCorners(t *testing.T) {
	// 3x2 plane: top-left 1, top-right 2, bottom-left 3, bottom-right 4.
	p := plane{w: 3, h: 2, stride: 3, pix: []byte{1, 0, 2, 3, 0, 4}}
	alloc := func(n int) []byte { return make([]byte, n) }
	want := map[int][4]byte{ // top-left, top-right, bottom-left, bottom-right after orienting
		1: {1, 2, 3, 4}, 2: {2, 1, 4, 3}, 3: {4, 3, 2, 1}, 4: {3, 4, 1, 2},
		5: {1, 3, 2, 4}, 6: {3, 1, 4, 2}, 7: {4, 2, 3, 1}, 8: {2, 4, 1, 3},
	}
	for o, w := range want {
		q := orient(p, o, alloc)
		got := [4]byte{q.pix[0], q.pix[q.w-1], q.pix[(q.h-1)*q.stride], q.pix[(q.h-1)*q.stride+q.w-1]}
		if got != w {
			t.Errorf("orientation %d: corners %v, want %v", o, got, w)
		}
		if ww, hh := orientedSize(3, 2, o); q.w != ww || q.h != hh {
			t.Errorf("orientation %d: %dx%d, want %dx%d", o, q.w, q.h, ww, hh)
		}
	}
}

// The general path turns images with imaging; each orientation must put the corners where
// the planar path's orient does.
func TestOrientImageMovesCornersLikeOrient(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 3, 2))
	copy(img.Pix, []byte{1, 0, 2, 3, 0, 4})
	p := plane{w: 3, h: 2, stride: 3, pix: img.Pix}
	alloc := func(n int) []byte { return make([]byte, n) }
	for o := 1; o <= 8; o++ {
		want := orient(p, o, alloc)
		got := orientImage(img, o)
		b := got.Bounds()
		if b.Dx() != want.w || b.Dy() != want.h {
			t.Fatalf("orientation %d: %dx%d, want %dx%d", o, b.Dx(), b.Dy(), want.w, want.h)
		}
		for y := range want.h {
			for x := range want.w {
				g := color.GrayModel.Convert(got.At(b.Min.X+x, b.Min.Y+y)).(color.Gray).Y
				if w := want.pix[y*want.stride+x]; g != w {
					t.Errorf("orientation %d: (%d,%d) is %d, want %d", o, x, y, g, w)
				}
			}
		}
	}
}

// The vertical pass written out for 4 to 6 taps gives exactly what the general one does.
func TestDownWithFewTapsMatchesTheGeneralPass(t *testing.T) {
	for _, c := range []struct{ sh, dh int }{{1512, 1008}, {1200, 1008}, {1134, 1008}, {300, 199}, {97, 90}} {
		src := plane{w: 37, h: c.sh, stride: 40, pix: make([]byte, 40*c.sh)}
		for i := range src.pix {
			src.pix[i] = byte(i*7 + i/40*13)
		}
		a := plane{w: 37, h: c.dh, stride: 37, pix: make([]byte, 37*c.dh)}
		b := plane{w: 37, h: c.dh, stride: 37, pix: make([]byte, 37*c.dh)}
		ra := newResizer(a, src.w, src.h, &src, catmullRom, heapAlloc)
		rb := newResizer(b, src.w, src.h, &src, catmullRom, heapAlloc)
		if ra.vw.taps < 4 || ra.vw.taps > 6 {
			t.Fatalf("%d to %d rows: %d taps, want a case for the written-out pass", c.sh, c.dh, ra.vw.taps)
		}
		ra.downFew(0, c.dh)
		rb.downAny(0, c.dh)
		if !bytes.Equal(a.pix, b.pix) {
			t.Errorf("%d to %d rows: the passes differ", c.sh, c.dh)
		}
	}
}
