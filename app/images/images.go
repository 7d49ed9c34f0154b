// Package images turns the bytes of an image from a conversation into the
// small JPEG a vision model is sent: decoded (JPEG, PNG, GIF, WebP), turned
// upright by its EXIF orientation, scaled so the long edge is a multiple of
// the 448-pixel vision tile (at most three tiles) and never enlarged, and
// re-encoded as JPEG quality 80. Re-encoding also drops metadata such as GPS
// positions before anything leaves the machine.
//
// A JPEG, sequential as cameras write it or progressive as web pages and many apps re-save
// it, is decoded at a reduced DCT scale by this package's own decoder, so a 12-megapixel
// photo is never built in full; its Y, Cb and Cr planes are scaled as they are and encoded
// without a detour through RGB, on two goroutines. Other files, and the JPEGs the fast
// decoder leaves alone (RGB, CMYK, 12-bit, arithmetic-coded), are read by the standard
// decoders, scaled and turned upright by github.com/disintegration/imaging, and encoded by
// the same encoder.
package images

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	_ "image/gif"  // registers the GIF decoder
	_ "image/jpeg" // registers the JPEG decoder (the files the fast decoder leaves)
	_ "image/png"  // registers the PNG decoder
	"sync"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/disintegration/imaging"
	_ "golang.org/x/image/bmp"  // registers the BMP decoder
	_ "golang.org/x/image/tiff" // registers the TIFF decoder
	_ "golang.org/x/image/webp" // registers the WebP decoder
)

const (
	// Tile is the vision-model tile edge the long side is rounded down to.
	Tile = 448
	// MaxEdge is the largest long edge sent (three tiles).
	MaxEdge = 3 * Tile
	// Quality is the JPEG quality of the optimised image.
	Quality = 80
	// DefaultMaxPixels bounds the decoded size: 50 megapixels covers current
	// phone cameras, while a crafted "decompression bomb" that claims
	// 100000x100000 pixels is refused before a byte of pixel memory is spent.
	DefaultMaxPixels = 50_000_000
	// DefaultMaxInputBytes bounds the encoded input.
	DefaultMaxInputBytes = 40 << 20
)

// Errors returned by Optimize. Each one means the model is told the image
// is unavailable; Reason gives the words for it.
var (
	ErrUnsupportedFormat = errors.New("image format not supported")
	ErrTooLarge          = errors.New("image too large")
	ErrCorrupt           = errors.New("image data is damaged")
)

// Reason turns an Optimize error into the short phrase the model sees after
// "image unavailable: ".
func Reason(err error) string {
	switch {
	case errors.Is(err, ErrUnsupportedFormat):
		return "its file format is not supported"
	case errors.Is(err, ErrTooLarge):
		return "it is too large to process"
	case errors.Is(err, ErrCorrupt):
		return "its data could not be read"
	default:
		return "it could not be loaded"
	}
}

// Result is an optimised image: the domain's prepared image and the format it was read from.
type Result struct {
	engine.PreparedImage
	// SourceFormat is the decoder that read the input ("jpeg", "png", ...).
	SourceFormat string
}

// Optimizer holds the limits. The zero value uses the defaults.
type Optimizer struct {
	MaxPixels     int
	MaxInputBytes int
}

// Optimize decodes, orients, scales and re-encodes one image.
func (o Optimizer) Optimize(data []byte) (Result, error) {
	res, _, err := o.optimize(data)
	return res, err
}

// work counts what one optimisation did, so tests can bound it without a clock.
type work struct {
	// decodedPixels is the number of luma samples the decoder produced: the header's
	// pixel count for a full decode, less for a JPEG decoded at a reduced scale.
	decodedPixels int64
	// dctScale is the n of an n/8 scaled JPEG decode, 0 when the standard decoders ran.
	dctScale int
}

// optimize is Optimize reporting its work.
func (o Optimizer) optimize(data []byte) (Result, work, error) {
	var wk work
	maxPixels, maxBytes := o.MaxPixels, o.MaxInputBytes
	if maxPixels <= 0 {
		maxPixels = DefaultMaxPixels
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxInputBytes
	}
	if len(data) == 0 {
		return Result{}, wk, fmt.Errorf("%w: no bytes", ErrCorrupt)
	}
	if len(data) > maxBytes {
		return Result{}, wk, fmt.Errorf("%w: %d bytes exceeds the %d byte limit", ErrTooLarge, len(data), maxBytes)
	}
	// The header first: the format must be known and the claimed size within the pixel
	// cap before a byte of pixel memory is spent.
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if errors.Is(err, image.ErrFormat) {
		return Result{}, wk, fmt.Errorf("%w: %s", ErrUnsupportedFormat, Sniff(data))
	}
	if err != nil {
		return Result{}, wk, fmt.Errorf("%w: read %s header: %v", ErrCorrupt, format, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return Result{}, wk, fmt.Errorf("%w: %s header claims %dx%d", ErrCorrupt, format, cfg.Width, cfg.Height)
	}
	if int64(cfg.Width)*int64(cfg.Height) > int64(maxPixels) {
		return Result{}, wk, fmt.Errorf("%w: %s of %dx%d exceeds the %d pixel limit", ErrTooLarge, format, cfg.Width, cfg.Height, maxPixels)
	}

	s := scratchPool.Get().(*scratch)
	defer s.release()

	// Sizes are worked out in the stored orientation; TargetSize treats both edges alike.
	tw, th := TargetSize(cfg.Width, cfg.Height)
	orientation := 1
	if format == "jpeg" {
		hdr, err := readJPEGHeader(data)
		if hdr.orientation >= 1 && hdr.orientation <= 8 {
			orientation = hdr.orientation // read even when a later marker upsets the fast decoder
		}
		if err == nil && hdr.fast && hdr.width == cfg.Width && hdr.height == cfg.Height {
			res, jwk, err := optimizeJPEG(data, tw, th, orientation, s)
			switch {
			case err == nil:
				return res, jwk, nil
			case !errors.Is(err, errFallback):
				// Damaged data in a file whose headers the fast decoder reads: image/jpeg
				// refuses such files too (the differential tests hold the fast decoder to
				// reading whatever image/jpeg reads), and asking it anyway would let a few
				// bytes claiming a 50-megapixel progressive picture make it allocate its
				// full-size coefficients (hundreds of megabytes) before it finds the damage.
				return Result{}, jwk, fmt.Errorf("%w: decode jpeg: %v", ErrCorrupt, err)
			}
			s.reset() // a later marker asks for what only image/jpeg reads
		}
	}
	return o.optimizeWithImaging(data, format, cfg, orientation, s, wk)
}

// optimizeJPEG is the fast path for the JPEGs this package's decoder reads: each component
// decoded at the smallest DCT scale that leaves the filter its margin, its planes scaled
// as they are (luma to tw x th, chroma to half of that each way, the 4:2:0 layout the
// encoder writes), turned upright and encoded, with no detour through RGB.
//
// The work is shared between goroutines, for the two cores a laptop has at least: while
// one reads a sequential file's entropy-coded data (which has to be read in order) two
// others rebuild the MCU rows already read and scale them across, using whatever core the
// reader leaves; a progressive file is read first and then rebuilt in two halves. Scaling down, turning and the encoder's
// transform run in two bands of output rows; only the Huffman coding at the end is one.
func optimizeJPEG(data []byte, tw, th, orientation int, s *scratch) (Result, work, error) {
	var wk work
	d := &jpegDecoder{data: data}
	if err := d.parseHeaders(); err != nil {
		return Result{}, wk, err
	}
	out := make([]plane, len(d.comps))
	for i := range d.comps {
		c := &d.comps[i]
		w, h := tw, th
		if i > 0 {
			w, h = (tw+1)/2, (th+1)/2
		}
		c.n = dctScale(c.cw, c.ch, w, h)
		out[i] = plane{w: w, h: h, stride: w, pix: s.alloc(w * h)}
	}
	// The decoded planes are never whole: each worker rebuilds an MCU row into a strip of
	// its own and scales it across at once, while it is in the cache.
	d.allocate(nil, true, &s.dec)
	rs := make([]*resizer, len(d.comps))
	for i := range d.comps {
		c := &d.comps[i]
		rs[i] = newResizer(out[i], c.w, c.hgt, nil, catmullRom, s.alloc)
	}
	strips := [2][]plane{d.strips(s.alloc), d.strips(s.alloc)}
	rebuild := func(r, worker int) {
		st := strips[worker]
		d.reconstruct(r, st)
		for i := range d.comps {
			y0, y1 := d.rowsOf(&d.comps[i], r)
			rs[i].across(st[i], y0, y1)
		}
	}
	if d.stream {
		// The reader hands rows over a group at a time; group g goes into ring slot
		// g % ringGroups once the group that used it before has been rebuilt (groups may
		// finish out of order).
		g := d.groupRows()
		ready := make(chan int, ringGroups)
		var free [ringGroups]chan struct{}
		for i := range free {
			free[i] = make(chan struct{}, 1)
			free[i] <- struct{}{}
		}
		// Two workers rebuild the groups the reader has finished, so whichever core the
		// reader leaves idle (a small photo's rows take longer to rebuild than to read, a
		// large one's the other way round) does the rebuilding.
		var workers sync.WaitGroup
		for w := range 2 {
			workers.Go(func() {
				for grp := range ready {
					for r := grp * g; r < min((grp+1)*g, d.my); r++ {
						rebuild(r, w)
					}
					free[grp%ringGroups] <- struct{}{}
				}
			})
		}
		err := d.decode(func(r int) {
			if r%g == 0 {
				<-free[(r/g)%ringGroups]
			}
		}, func(r int) {
			if (r+1)%g == 0 || r == d.my-1 {
				ready <- r / g
			}
		})
		close(ready)
		workers.Wait()
		if err != nil {
			return Result{}, wk, err
		}
	} else {
		if err := d.decode(nil, nil); err != nil {
			return Result{}, wk, err
		}
		inHalves(d.my, func(r0, r1 int, _ *[2][257]int) {
			worker := 0
			if r0 > 0 {
				worker = 1
			}
			for r := r0; r < r1; r++ {
				rebuild(r, worker)
			}
		})
	}
	wk.decodedPixels = int64(d.comps[0].w) * int64(d.comps[0].hgt)
	wk.dctScale = d.comps[0].n

	// Scale down, turn upright, transform and quantise, in two bands of the encoder's MCU
	// rows; each band's rows of every plane are its own.
	enc := out
	turned := orientation >= 2 && orientation <= 8
	if turned {
		enc = make([]plane, len(out))
		for i, p := range out {
			w, h := orientedSize(p.w, p.h, orientation)
			enc[i] = plane{w: w, h: h, stride: w, pix: s.alloc(w * h)}
		}
	}
	e := newPlaneEncoder(enc[0], enc[1:], Quality, s.alloc16, s.alloc64)
	e.spare = &s.spare
	rowsOf := func(i, r0, r1 int) (int, int) {
		v := e.comps[i].v * 8
		return min(r0*v, enc[i].h), min(r1*v, enc[i].h)
	}
	var freq [2][257]int
	if !turned {
		freq = inHalves(e.my, func(r0, r1 int, f *[2][257]int) {
			for i := range out {
				rs[i].down(rowsOf(i, r0, r1))
			}
			e.quantize(r0, r1, f)
		})
	} else {
		for i := range out {
			inHalves(out[i].h, func(y0, y1 int, _ *[2][257]int) { rs[i].down(y0, y1) })
		}
		freq = inHalves(e.my, func(r0, r1 int, f *[2][257]int) {
			for i := range out {
				y0, y1 := rowsOf(i, r0, r1)
				orientRows(enc[i], out[i], orientation, y0, y1)
			}
			e.quantize(r0, r1, f)
		})
	}
	s.buf.Reset()
	e.write(&s.buf, freq)
	w, h := orientedSize(tw, th, orientation)
	return Result{PreparedImage: engine.PreparedImage{JPEG: bytes.Clone(s.buf.Bytes()), Width: w, Height: h}, SourceFormat: "jpeg"}, wk, nil
}

// inHalves runs f over [0, n) in two halves at once, the second on another goroutine, and
// returns the sum of the symbol counts each half gave f.
func inHalves(n int, f func(lo, hi int, freq *[2][257]int)) [2][257]int {
	var a, b [2][257]int
	mid := n / 2
	if n < 2 {
		f(0, n, &a)
		return a
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(mid, n, &b)
	}()
	f(0, mid, &a)
	<-done
	for t := range a {
		for i := range a[t] {
			a[t][i] += b[t][i]
		}
	}
	return a
}

// optimizeWithImaging is the general path, for PNG, GIF, WebP, TIFF, BMP and the JPEGs the
// fast decoder leaves alone (RGB, CMYK, ...): the standard decoders read the file,
// github.com/disintegration/imaging scales it (Catmull-Rom, with alpha weighted correctly
// at transparent edges) and turns it upright, and the result goes to the same plane
// encoder as the fast path. These files are rarer and mostly small, so the general
// library is worth more here than the planar path's speed.
func (o Optimizer) optimizeWithImaging(data []byte, format string, cfg image.Config, orientation int, s *scratch, wk work) (Result, work, error) {
	maxPixels := o.MaxPixels
	if maxPixels <= 0 {
		maxPixels = DefaultMaxPixels
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return Result{}, wk, fmt.Errorf("%w: decode %s: %v", ErrCorrupt, format, err)
	}
	// A GIF's first frame may be smaller than its screen: scale what was decoded.
	b := img.Bounds()
	if b.Empty() || int64(b.Dx())*int64(b.Dy()) > int64(maxPixels) {
		return Result{}, wk, fmt.Errorf("%w: %s decoded as %dx%d, its header says %dx%d", ErrCorrupt, format, b.Dx(), b.Dy(), cfg.Width, cfg.Height)
	}
	wk.decodedPixels = int64(b.Dx()) * int64(b.Dy())
	tw, th := TargetSize(b.Dx(), b.Dy())
	var scaled image.Image = img
	if tw != b.Dx() || th != b.Dy() {
		scaled = imaging.Resize(img, tw, th, imaging.CatmullRom)
	}
	scaled = orientImage(scaled, orientation)

	// planesOf lays transparency over white; the encoder writes 4:2:0, so the chroma
	// planes are halved each way with the same filter.
	full := planesOf(scaled, s.alloc)
	w, h := full[0].w, full[0].h
	out := full[:1]
	for _, p := range full[1:] {
		c := plane{w: (w + 1) / 2, h: (h + 1) / 2, stride: (w + 1) / 2}
		c.pix = s.alloc(c.w * c.h)
		resize(c, p, catmullRom, s.alloc)
		out = append(out, c)
	}
	return encodeResult(s, out, w, h, format), wk, nil
}

// orientImage turns img upright by EXIF orientation o with imaging's flips and turns (the
// values are TIFF's; see orient). Orientation 1 and unknown values return img.
func orientImage(img image.Image, o int) image.Image {
	switch o {
	case 2:
		return imaging.FlipH(img)
	case 3:
		return imaging.Rotate180(img)
	case 4:
		return imaging.FlipV(img)
	case 5:
		return imaging.Transpose(img)
	case 6:
		return imaging.Rotate270(img) // imaging turns counter-clockwise: 270 is 90 clockwise
	case 7:
		return imaging.Transverse(img)
	case 8:
		return imaging.Rotate90(img)
	}
	return img
}

// encodeResult encodes the Y (and Cb, Cr) planes of a w x h image as the Result.
func encodeResult(s *scratch, out []plane, w, h int, format string) Result {
	s.buf.Reset()
	encodeJPEGPlanes(&s.buf, out[0], out[1:], Quality, s.alloc16, &s.spare)
	return Result{PreparedImage: engine.PreparedImage{JPEG: bytes.Clone(s.buf.Bytes()), Width: w, Height: h}, SourceFormat: format}
}

// dctScale picks n for decoding a w x h JPEG at n/8 of its size on the way to tw x th: the
// smallest that leaves at least 1.25 times the target's samples each way. Rebuilding blocks
// from fewer coefficients is the cheapest reduction there is, but each block is cut off
// on its own; the margin leaves the final filter room to smooth those seams, which keeps
// the result as sharp (PSNR) as a full decode with the same filter. A 12-megapixel photo
// is decoded at 4/8 (2016x1512) for 1344x1008.
func dctScale(w, h, tw, th int) int {
	// The margin cannot exceed the source: a 1-pixel edge stays 1 pixel at any scale.
	need := func(src, target int) int { return min(src, (target*5+3)/4) }
	for n := 1; n < 8; n++ {
		if (w*n+7)/8 >= need(w, tw) && (h*n+7)/8 >= need(h, th) {
			return n
		}
	}
	return 8
}

// scratch is the reusable memory of one optimisation: the planes, in the order they are
// asked for, and the encoder's output buffer. Reusing it keeps the heap flat over a run
// of photos instead of growing by tens of megabytes of garbage per image.
type scratch struct {
	bufs  [][]byte
	next  int
	coefs []int16 // the encoder's quantised blocks
	buf   bytes.Buffer
	spare bytes.Buffer // the encoder's second restart interval
	dec   coefStore    // the decoder's coefficients
	masks []uint64     // the encoder's non-zero masks
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// maxPooled bounds the memory a scratch keeps between images: enough for a 12-megapixel
// photo's reduced planes or a few-megapixel PNG; a rarer giant is left to the collector.
const maxPooled = 24 << 20

func (s *scratch) alloc(n int) []byte {
	if s.next < len(s.bufs) && cap(s.bufs[s.next]) >= n {
		b := s.bufs[s.next][:n]
		s.next++
		return b
	}
	b := make([]byte, n)
	if s.next < len(s.bufs) {
		s.bufs[s.next] = b
	} else {
		s.bufs = append(s.bufs, b)
	}
	s.next++
	return b
}

// alloc16 returns the encoder's coefficient buffer, n long; there is one per scratch.
func (s *scratch) alloc16(n int) []int16 {
	if cap(s.coefs) < n {
		s.coefs = make([]int16, n)
	}
	return s.coefs[:n]
}

// alloc64 returns the encoder's mask buffer, n long; there is one per scratch.
func (s *scratch) alloc64(n int) []uint64 {
	if cap(s.masks) < n {
		s.masks = make([]uint64, n)
	}
	return s.masks[:n]
}

// reset makes every buffer available again.
func (s *scratch) reset() { s.next = 0 }

// release returns s to the pool unless it grew past maxPooled.
func (s *scratch) release() {
	total := s.buf.Cap() + s.spare.Cap() + 2*cap(s.coefs) + 2*cap(s.dec.coef) + 8*cap(s.dec.nz) + 8*cap(s.masks)
	for _, b := range s.bufs {
		total += cap(b)
	}
	if total > maxPooled {
		return
	}
	s.reset()
	scratchPool.Put(s)
}

// TargetSize returns the output size for a w x h image: the long edge is
// rounded down to a multiple of Tile and capped at MaxEdge; an image whose
// long edge is already at most Tile, or exactly a multiple of it within the
// cap, keeps its size. Nothing is ever enlarged.
func TargetSize(w, h int) (int, int) {
	long, short := w, h
	if h > w {
		long, short = h, w
	}
	if long <= Tile {
		return w, h
	}
	target := min(long/Tile*Tile, MaxEdge)
	if target == long {
		return w, h
	}
	scaled := max(1, (short*target+long/2)/long)
	if w >= h {
		return target, scaled
	}
	return scaled, target
}

// Sniff names the format of bytes the decoders do not know, for the log and
// the "unavailable" note (HEIC, AVIF, SVG), or "unknown". TIFF and BMP are
// decodable: golang.org/x/image's decoders are registered.
func Sniff(data []byte) string {
	switch {
	case len(data) >= 12 && string(data[4:8]) == "ftyp":
		switch brand := string(data[8:12]); brand {
		case "heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1":
			return "HEIC"
		case "avif", "avis":
			return "AVIF"
		default:
			return "ISO media (" + brand + ")"
		}
	case bytes.Contains(data[:min(len(data), 512)], []byte("<svg")):
		return "SVG"
	}
	return "unknown"
}
