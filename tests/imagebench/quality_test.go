package imagebench

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"sync"

	"github.com/clanker-desktop/clanker/app/images"
)

// The quality reference is what a perfect optimiser would send before JPEG compression.
// The source JPEG is decoded at full resolution by the standard library; each of its
// planes (luma at full size, chroma at its own 4:2:0 size) is scaled to the target size
// with a Lanczos-3 filter whose support widens with the reduction (every source sample
// counts), in float64, never rounded or compressed. It shares no code with the scalers
// measured.
//
// A candidate JPEG is decoded by the standard library and its chroma brought to full size
// with the triangle ("fancy") upsampling libjpeg and browsers use. PSNR-Y is over luma
// alone, the figure codecs are compared by, free of any decoder's chroma upsampling;
// PSNR-RGB converts both sides to RGB in floating point (JFIF matrix) and compares R, G
// and B. Both clamp to 0..255.
type reference struct {
	w, h      int
	y, cb, cr []float64 // w*h each
}

var (
	refMu   sync.Mutex
	refDone = map[photo]*reference{}
)

// referenceOf returns the reference of photo p at its target size, made once.
func referenceOf(p photo) (*reference, error) {
	refMu.Lock()
	defer refMu.Unlock()
	if r, ok := refDone[p]; ok {
		return r, nil
	}
	tw, th := p.target()
	r, err := makeReference(p.bytes(), tw, th)
	if err != nil {
		return nil, err
	}
	refDone[p] = r
	return r, nil
}

// target is the size the optimiser makes of p.
func (p photo) target() (int, int) { return images.TargetSize(p.size()) }

func makeReference(src []byte, w, h int) (*reference, error) {
	img, err := jpeg.Decode(bytes.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("decode reference source: %w", err)
	}
	m, ok := img.(*image.YCbCr)
	if !ok || m.Rect.Min != (image.Point{}) {
		return nil, fmt.Errorf("reference source decoded as %T at %v, want *image.YCbCr at the origin", img, img.Bounds().Min)
	}
	sw, sh := m.Rect.Dx(), m.Rect.Dy()
	var cw, ch int
	switch m.SubsampleRatio {
	case image.YCbCrSubsampleRatio420:
		cw, ch = (sw+1)/2, (sh+1)/2
	case image.YCbCrSubsampleRatio444:
		cw, ch = sw, sh
	default:
		return nil, fmt.Errorf("reference source has chroma %v, want 4:2:0 or 4:4:4", m.SubsampleRatio)
	}
	return &reference{w: w, h: h,
		y:  lanczosPlane(m.Y, m.YStride, sw, sh, w, h),
		cb: lanczosPlane(m.Cb, m.CStride, cw, ch, w, h),
		cr: lanczosPlane(m.Cr, m.CStride, cw, ch, w, h),
	}, nil
}

// lanczosPlane scales an 8-bit plane to w x h in float64: across, then down.
func lanczosPlane(pix []byte, stride, sw, sh, w, h int) []float64 {
	hx := lanczosWeights(sw, w)
	tmp := make([]float64, w*sh)
	for y := range sh {
		row := pix[y*stride : y*stride+sw]
		for x := range w {
			var s float64
			for _, t := range hx[x] {
				s += t.w * float64(row[t.i])
			}
			tmp[y*w+x] = s
		}
	}
	vy := lanczosWeights(sh, h)
	out := make([]float64, w*h)
	for y := range h {
		drow := out[y*w : (y+1)*w]
		for _, t := range vy[y] {
			srow := tmp[t.i*w : (t.i+1)*w]
			for x := range drow {
				drow[x] += t.w * srow[x]
			}
		}
	}
	return out
}

type tap struct {
	i int
	w float64
}

// lanczosWeights returns, for each of the dst output positions, the normalised Lanczos-3
// taps over src input positions, pixel centres aligned, edges clamped.
func lanczosWeights(src, dst int) [][]tap {
	scale := float64(src) / float64(dst)
	fs := max(scale, 1)
	out := make([][]tap, dst)
	for d := range dst {
		c := (float64(d)+0.5)*scale - 0.5
		lo, hi := int(math.Ceil(c-3*fs)), int(math.Floor(c+3*fs))
		var taps []tap
		var sum float64
		for s := lo; s <= hi; s++ {
			wt := lanczos3((float64(s) - c) / fs)
			if wt == 0 {
				continue
			}
			taps = append(taps, tap{min(max(s, 0), src-1), wt})
			sum += wt
		}
		for i := range taps {
			taps[i].w /= sum
		}
		out[d] = taps
	}
	return out
}

func lanczos3(x float64) float64 {
	if x == 0 {
		return 1
	}
	if x <= -3 || x >= 3 {
		return 0
	}
	px := math.Pi * x
	return 3 * math.Sin(px) * math.Sin(px/3) / (px * px)
}

// psnr decodes a candidate JPEG and returns its luma and RGB PSNR in dB against r.
func (r *reference) psnr(candidate []byte) (yDB, rgbDB float64, err error) {
	img, err := jpeg.Decode(bytes.NewReader(candidate))
	if err != nil {
		return 0, 0, fmt.Errorf("decode candidate: %w", err)
	}
	b := img.Bounds()
	if b.Dx() != r.w || b.Dy() != r.h {
		return 0, 0, fmt.Errorf("candidate is %dx%d, reference %dx%d", b.Dx(), b.Dy(), r.w, r.h)
	}
	var y, cb, cr []float64
	switch m := img.(type) {
	case *image.YCbCr:
		cw, ch := r.w, r.h
		switch m.SubsampleRatio {
		case image.YCbCrSubsampleRatio420:
			cw, ch = (r.w+1)/2, (r.h+1)/2
		case image.YCbCrSubsampleRatio422:
			cw = (r.w + 1) / 2
		case image.YCbCrSubsampleRatio444:
		default:
			return 0, 0, fmt.Errorf("candidate has chroma %v", m.SubsampleRatio)
		}
		y = upsample(m.Y, m.YStride, r.w, r.h, r.w, r.h)
		cb = upsample(m.Cb, m.CStride, cw, ch, r.w, r.h)
		cr = upsample(m.Cr, m.CStride, cw, ch, r.w, r.h)
	case *image.Gray:
		y = upsample(m.Pix, m.Stride, r.w, r.h, r.w, r.h)
		cb, cr = make([]float64, r.w*r.h), make([]float64, r.w*r.h)
		for i := range cb {
			cb[i], cr[i] = 128, 128
		}
	default:
		return 0, 0, fmt.Errorf("candidate decoded as %T", img)
	}
	clamp := func(v float64) float64 { return min(max(v, 0), 255) }
	var seY, seRGB float64
	for i := range y {
		d := clamp(y[i]) - clamp(r.y[i])
		seY += d * d
		gr, gg, gb := toRGB(y[i], cb[i], cr[i])
		wr, wg, wb := toRGB(r.y[i], r.cb[i], r.cr[i])
		for _, d := range [3]float64{clamp(gr) - clamp(wr), clamp(gg) - clamp(wg), clamp(gb) - clamp(wb)} {
			seRGB += d * d
		}
	}
	n := float64(len(y))
	return toDB(seY / n), toDB(seRGB / (3 * n)), nil
}

func toRGB(y, cb, cr float64) (float64, float64, float64) {
	cb, cr = cb-128, cr-128
	return y + 1.402*cr, y - 0.344136*cb - 0.714136*cr, y + 1.772*cb
}

func toDB(mse float64) float64 {
	if mse == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/mse)
}

// upsample brings an sw x sh plane to w x h by linear interpolation between sample
// centres (libjpeg's "fancy" 3/4-1/4 weights for 2:1), edges clamped. Same size copies.
func upsample(pix []byte, stride, sw, sh, w, h int) []float64 {
	out := make([]float64, w*h)
	pos := func(d, sn, dn int) (int, int, float64) {
		c := (float64(d)+0.5)*float64(sn)/float64(dn) - 0.5
		c = min(max(c, 0), float64(sn-1))
		i := int(c)
		return i, min(i+1, sn-1), c - float64(i)
	}
	for y := range h {
		y0, y1, ty := pos(y, sh, h)
		for x := range w {
			x0, x1, tx := pos(x, sw, w)
			a := float64(pix[y0*stride+x0])*(1-tx) + float64(pix[y0*stride+x1])*tx
			b := float64(pix[y1*stride+x0])*(1-tx) + float64(pix[y1*stride+x1])*tx
			out[y*w+x] = a*(1-ty) + b*ty
		}
	}
	return out
}
