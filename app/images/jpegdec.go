package images

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// This file is a decoder for 8-bit Huffman-coded JPEG, sequential (what phone cameras write)
// and progressive (what web pages and many apps re-save photos as), that decodes at a
// reduced scale: each 8x8 block is rebuilt from its lowest n x n DCT coefficients as n x n
// samples, n = 1..8, chosen per component. Turning a 12-megapixel photo into a 1344-pixel
// one then never builds the 12 million pixels only to average them away, and the inverse
// transform works on a fraction of the coefficients.
//
// The entropy-coded data is read into coefficient storage, keeping of each block only the
// coefficients the chosen scale uses (in zig-zag order, up to the last one it uses). A
// sequential file with one scan of every component is read into a ring of MCU rows that
// another goroutine rebuilds as they complete; a progressive file, or a sequential one
// with a scan per component, is read whole first. A progressive refinement scan must know
// which coefficients are already non-zero, including those the scale drops: a mask of
// the non-zero AC coefficients of each block keeps that.
//
// Arithmetic coding, 12-bit samples, lossless and hierarchical files, four components
// (CMYK), RGB-transformed and fractionally subsampled files are left to the standard
// library (errFallback), as is anything this decoder finds wrong, so it never accepts less
// than image/jpeg does.

// errFallback says the fast decoder does not handle this file; image/jpeg decodes it.
var errFallback = errors.New("jpeg: left to the standard decoder")

// lutBits is how many leading bits the Huffman lookup table resolves at once; longer codes
// (rare: the most frequent symbols get the shortest codes) take the canonical slow path.
const lutBits = 10

type huffTable struct {
	// lut holds, for every lutBits-bit prefix that starts with a complete code,
	// symbol | length<<8; zero means the code is longer than lutBits.
	lut [1 << lutBits]uint16
	// fast holds, for AC tables, the whole coefficient when a prefix holds both the code
	// and its value bits: value<<16 | run<<8 | bits used; zero when it does not.
	fast    [1 << lutBits]int32
	maxcode [17]int32 // largest code of each length, -1 when there is none
	valptr  [17]int32 // index in vals of the first symbol of each length
	mincode [17]int32
	vals    [256]byte
	defined bool
}

type jpegComponent struct {
	id     byte
	h, v   int // sampling factors
	tq     int // quantisation table
	td, ta int // DC and AC Huffman tables of the current scan
	bx, by int // blocks across and down, padded to whole MCUs
	cw, ch int // the component's real size at full scale
	pred   int32

	// n is the scale: each block is rebuilt as n x n samples. keep is how many zig-zag
	// coefficients a block stores (up to the last one inside n x n).
	n, keep int
	// coef holds keep coefficients per block, quantised, for rows MCU rows (all of them,
	// or a ring); nz has, per block, bit k set when AC coefficient k (zig-zag) is non-zero:
	// kept or dropped in a progressive file (its refinement scans need both), kept in a
	// sequential one. A block's storage index is its block row modulo ringRows times bx,
	// plus its column.
	coef     []int16
	nz       []uint64
	ringRows int
	q        [64]int32 // dequantisation, zig-zag order, latched at the component's first scan
	qSet     bool
	seen     bool // has been in a scan

	p      plane // decoded samples at the chosen scale, padded to whole blocks
	w, hgt int   // the component's real size at the chosen scale
}

// jpegDecoder holds one decode. Its zero value plus data is ready for parseHeaders.
type jpegDecoder struct {
	data []byte
	pos  int

	// Bit reader: acc holds nbits bits, most significant first.
	acc      uint64
	nbits    uint
	atMarker bool // the next byte at pos is a marker: feed zero bits
	// fake counts the zero bits fed after the segment's data ran out (at a marker or the
	// end of the file); the last fake bits of acc are made up.
	fake uint

	qt          [4][64]int32 // in zig-zag order
	qtSet       [4]bool
	dc, ac      [4]huffTable
	comps       []jpegComponent
	width       int
	height      int
	hmax        int
	vmax        int
	mx, my      int // MCUs across and down (of an interleaved scan)
	ri          int // restart interval in MCUs, 0 = none
	adobe       bool
	xform       int // Adobe APP14 colour transform
	orient      int // EXIF orientation, 1 when absent
	progressive bool
	frameOK     bool
	// stream says the file is one sequential scan of every component, which is rebuilt
	// MCU row by MCU row as it is read; rows is how many MCU rows the coefficient storage
	// holds (my unless a ring).
	stream bool
	rows   int

	// The current scan.
	scan           []int // component indices in scan order
	ss, se, ah, al int
	eobrun         int
}

// jpegHeader is what the markers before the first scan say.
type jpegHeader struct {
	width, height int
	orientation   int
	// fast reports whether this decoder handles the file.
	fast bool
}

// readJPEGHeader walks the markers up to the first scan without decoding any pixels: the
// frame size, the EXIF orientation, and whether the fast decoder can take the file.
func readJPEGHeader(data []byte) (jpegHeader, error) {
	d := jpegDecoder{data: data}
	err := d.parseHeaders()
	h := jpegHeader{width: d.width, height: d.height, orientation: d.orient}
	if errors.Is(err, errFallback) {
		return h, nil
	}
	if err != nil {
		return h, err
	}
	h.fast = true
	return h, nil
}

// decodeJPEGScaled decodes data with every block rebuilt as n x n samples (1 <= n <= 8).
// It returns the component planes (one for greyscale, Y Cb Cr otherwise), each cropped to
// its real size, and the EXIF orientation. It is the decoder without the optimiser's
// pipeline, one goroutine, for tests.
func decodeJPEGScaled(data []byte, n int, alloc func(int) []byte) ([]plane, int, error) {
	d := jpegDecoder{data: data}
	if err := d.parseHeaders(); err != nil {
		return nil, 0, err
	}
	for i := range d.comps {
		d.comps[i].n = n
	}
	d.allocate(alloc, false, nil)
	rebuild := func(r int) {
		rows := make([]plane, len(d.comps))
		for i := range d.comps {
			rows[i] = d.rowOf(&d.comps[i], r)
		}
		d.reconstruct(r, rows)
	}
	err := d.decode(nil, rebuild)
	if err != nil {
		return nil, 0, err
	}
	if !d.stream {
		for r := range d.my {
			rebuild(r)
		}
	}
	return d.planes(), d.orient, nil
}

// planes returns the decoded planes, cropped to their real size.
func (d *jpegDecoder) planes() []plane {
	out := make([]plane, len(d.comps))
	for i := range d.comps {
		c := &d.comps[i]
		out[i] = plane{pix: c.p.pix, w: c.w, h: c.hgt, stride: c.p.stride}
	}
	return out
}

func (d *jpegDecoder) u16(at int) int { return int(d.data[at])<<8 | int(d.data[at+1]) }

// parseHeaders reads markers from SOI up to and including the first SOS header, leaving
// pos at the start of the entropy-coded data.
func (d *jpegDecoder) parseHeaders() error {
	d.orient = 1
	if len(d.data) < 4 || d.data[0] != 0xFF || d.data[1] != 0xD8 {
		return fmt.Errorf("missing JPEG start of image")
	}
	d.pos = 2
	done, err := d.markers()
	if err != nil {
		return err
	}
	if done {
		return fmt.Errorf("end of image before any scan")
	}
	return nil
}

// markers reads marker segments from pos up to and including the next SOS header (false)
// or the end of the image (true).
func (d *jpegDecoder) markers() (eoi bool, err error) {
	for {
		// Bytes that are no marker are skipped, as libjpeg and image/jpeg do (an encoder's
		// stray padding after a scan, say); markers may be preceded by any number of 0xFF
		// fill bytes, and 0xFF 0x00 is stray data too.
		for d.pos < len(d.data) && d.data[d.pos] != 0xFF {
			d.pos++
		}
		for d.pos < len(d.data) && d.data[d.pos] == 0xFF {
			d.pos++
		}
		if d.pos >= len(d.data) {
			return false, fmt.Errorf("data ends before the end of image")
		}
		m := d.data[d.pos]
		d.pos++
		switch {
		case m == 0x00:
			continue
		case m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7):
			continue // no length
		case m == 0xD9:
			return true, nil
		}
		if d.pos+2 > len(d.data) {
			return false, fmt.Errorf("marker %#x is cut off", m)
		}
		n := d.u16(d.pos)
		if n < 2 || d.pos+n > len(d.data) {
			return false, fmt.Errorf("marker %#x has a bad length %d", m, n)
		}
		seg := d.data[d.pos+2 : d.pos+n]
		d.pos += n
		switch {
		case m == 0xC0 || m == 0xC1 || m == 0xC2:
			err = d.parseSOF(seg, m == 0xC2)
		case m >= 0xC3 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC:
			// Lossless, differential or arithmetic coding.
			if d.width == 0 && len(seg) >= 5 {
				d.height, d.width = int(seg[1])<<8|int(seg[2]), int(seg[3])<<8|int(seg[4])
			}
			return false, errFallback
		case m == 0xC4:
			err = d.parseDHT(seg)
		case m == 0xDB:
			err = d.parseDQT(seg)
		case m == 0xDD:
			if len(seg) < 2 {
				return false, fmt.Errorf("short restart interval marker")
			}
			d.ri = int(seg[0])<<8 | int(seg[1])
		case m == 0xDC:
			return false, errFallback // DNL: the height comes after the first scan
		case m == 0xE1:
			if o := exifOrientation(seg); o != 0 && !d.frameOK {
				d.orient = o
			}
		case m == 0xEE:
			if len(seg) >= 12 && string(seg[:5]) == "Adobe" {
				d.adobe, d.xform = true, int(seg[11])
			}
		case m == 0xDA:
			if !d.frameOK {
				return false, fmt.Errorf("scan before the frame header")
			}
			return false, d.parseSOS(seg)
		}
		if err != nil {
			return false, err
		}
	}
}

func (d *jpegDecoder) parseSOF(seg []byte, progressive bool) error {
	if d.frameOK {
		return fmt.Errorf("second frame header")
	}
	if len(seg) < 6 {
		return fmt.Errorf("short frame header")
	}
	d.height, d.width = int(seg[1])<<8|int(seg[2]), int(seg[3])<<8|int(seg[4])
	d.progressive = progressive
	if seg[0] != 8 {
		return errFallback // 12-bit samples
	}
	nf := int(seg[5])
	if nf != 1 && nf != 3 {
		return errFallback // CMYK, YCCK and other component counts
	}
	if d.width == 0 || d.height == 0 {
		return errFallback // height in a DNL marker, or nothing to decode
	}
	if len(seg) < 6+3*nf {
		return fmt.Errorf("short frame header")
	}
	d.comps = make([]jpegComponent, nf)
	d.hmax, d.vmax = 1, 1
	for i := range nf {
		c := &d.comps[i]
		c.id = seg[6+3*i]
		c.h, c.v = int(seg[7+3*i]>>4), int(seg[7+3*i]&15)
		c.tq = int(seg[8+3*i])
		if c.h < 1 || c.h > 4 || c.v < 1 || c.v > 4 || c.tq > 3 {
			return fmt.Errorf("component %d has bad sampling %dx%d or table %d", i, c.h, c.v, c.tq)
		}
		for j := range i {
			if d.comps[j].id == c.id {
				return fmt.Errorf("two components share the id %d", c.id)
			}
		}
		d.hmax, d.vmax = max(d.hmax, c.h), max(d.vmax, c.v)
	}
	if nf == 1 {
		// A single component is never interleaved: its sampling factors do not matter.
		d.comps[0].h, d.comps[0].v, d.hmax, d.vmax = 1, 1, 1, 1
	}
	for i := range d.comps {
		if c := &d.comps[i]; d.hmax%c.h != 0 || d.vmax%c.v != 0 {
			return errFallback // fractional subsampling
		}
	}
	if nf == 3 {
		// Component ids R, G, B or an Adobe marker saying "no transform" mean RGB.
		if d.comps[0].id == 'R' && d.comps[1].id == 'G' && d.comps[2].id == 'B' {
			return errFallback
		}
		if d.adobe && d.xform == 0 {
			return errFallback
		}
	}
	mcuW, mcuH := 8*d.hmax, 8*d.vmax
	d.mx, d.my = (d.width+mcuW-1)/mcuW, (d.height+mcuH-1)/mcuH
	for i := range d.comps {
		c := &d.comps[i]
		c.bx, c.by = d.mx*c.h, d.my*c.v
		c.cw = (d.width*c.h + d.hmax - 1) / d.hmax
		c.ch = (d.height*c.v + d.vmax - 1) / d.vmax
		if nf == 1 {
			// A lone component's MCU is one block: no padding to a larger MCU.
			c.bx, c.by = (c.cw+7)/8, (c.ch+7)/8
			d.mx, d.my = c.bx, c.by
		}
	}
	d.frameOK = true
	return nil
}

func (d *jpegDecoder) parseDQT(seg []byte) error {
	for len(seg) > 0 {
		pq, tq := seg[0]>>4, int(seg[0]&15)
		if tq > 3 || pq > 1 {
			return fmt.Errorf("bad quantisation table header %#x", seg[0])
		}
		seg = seg[1:]
		if pq == 0 {
			if len(seg) < 64 {
				return fmt.Errorf("short quantisation table")
			}
			for k := range 64 {
				d.qt[tq][k] = int32(seg[k])
			}
			seg = seg[64:]
		} else {
			if len(seg) < 128 {
				return fmt.Errorf("short quantisation table")
			}
			for k := range 64 {
				d.qt[tq][k] = int32(seg[2*k])<<8 | int32(seg[2*k+1])
			}
			seg = seg[128:]
		}
		d.qtSet[tq] = true
	}
	return nil
}

func (d *jpegDecoder) parseDHT(seg []byte) error {
	for len(seg) > 0 {
		if len(seg) < 17 {
			return fmt.Errorf("short Huffman table")
		}
		tc, th := seg[0]>>4, int(seg[0]&15)
		if tc > 1 || th > 3 {
			return fmt.Errorf("bad Huffman table header %#x", seg[0])
		}
		var counts [17]int
		total := 0
		for l := 1; l <= 16; l++ {
			counts[l] = int(seg[l])
			total += counts[l]
		}
		if total == 0 || total > 256 || len(seg) < 17+total {
			return fmt.Errorf("a Huffman table with %d symbols", total)
		}
		t := &d.dc[th]
		if tc == 1 {
			t = &d.ac[th]
		}
		if err := t.build(counts, seg[17:17+total]); err != nil {
			return err
		}
		seg = seg[17+total:]
	}
	return nil
}

// build makes the canonical code (ITU T.81 annex C) from the count of codes of each
// length and the symbols in code order.
func (t *huffTable) build(counts [17]int, vals []byte) error {
	*t = huffTable{}
	copy(t.vals[:], vals)
	code, k := int32(0), int32(0)
	for l := 1; l <= 16; l++ {
		t.valptr[l] = k
		t.mincode[l] = code
		if code+int32(counts[l]) > 1<<l {
			return fmt.Errorf("a Huffman table overflows its %d-bit codes", l)
		}
		for range counts[l] {
			if l <= lutBits {
				lo := code << (lutBits - l)
				hi := (code + 1) << (lutBits - l)
				r, s := int32(vals[k]>>4), vals[k]&15
				for i := lo; i < hi; i++ {
					t.lut[i] = uint16(vals[k]) | uint16(l)<<8
					if s != 0 && l+int(s) <= lutBits {
						v := (i >> (lutBits - l - int(s))) & (1<<s - 1)
						if v < 1<<(s-1) {
							v += -1<<s + 1
						}
						t.fast[i] = v<<16 | r<<8 | int32(l+int(s))
					}
				}
			}
			code++
			k++
		}
		t.maxcode[l] = code - 1
		if counts[l] == 0 {
			t.maxcode[l] = -1
		}
		code <<= 1
	}
	t.defined = true
	return nil
}

func (d *jpegDecoder) parseSOS(seg []byte) error {
	if len(seg) < 1 {
		return fmt.Errorf("short scan header")
	}
	ns := int(seg[0])
	if ns < 1 || ns > len(d.comps) || len(seg) < 1+2*ns+3 {
		return fmt.Errorf("bad scan header")
	}
	d.scan = d.scan[:0]
	for i := range ns {
		id, tables := seg[1+2*i], seg[2+2*i]
		ci := -1
		for j := range d.comps {
			if d.comps[j].id == id {
				ci = j
			}
		}
		if ci < 0 {
			return fmt.Errorf("scan names component %d, which the frame has not", id)
		}
		for _, o := range d.scan {
			if o == ci {
				return fmt.Errorf("scan names component %d twice", id)
			}
		}
		d.scan = append(d.scan, ci)
		c := &d.comps[ci]
		c.td, c.ta = int(tables>>4), int(tables&15)
		if c.td > 3 || c.ta > 3 || !d.qtSet[c.tq] {
			return fmt.Errorf("scan uses an undefined table")
		}
	}
	d.ss, d.se = int(seg[1+2*ns]), int(seg[2+2*ns])
	d.ah, d.al = int(seg[3+2*ns]>>4), int(seg[3+2*ns]&15)
	if !d.progressive {
		if d.ss != 0 || d.se != 63 || d.ah != 0 || d.al != 0 {
			return fmt.Errorf("sequential scan with spectral band %d..%d", d.ss, d.se)
		}
	} else {
		if d.ss > d.se || d.se > 63 || (d.ss == 0) != (d.se == 0) || d.ah > 13 || d.al > 13 {
			return fmt.Errorf("progressive scan with spectral band %d..%d and bits %d,%d", d.ss, d.se, d.ah, d.al)
		}
		if d.ss > 0 && ns != 1 {
			return fmt.Errorf("progressive AC scan of %d components", ns)
		}
	}
	for _, ci := range d.scan {
		c := &d.comps[ci]
		dcNeeded := d.ss == 0 && d.ah == 0
		acNeeded := d.se > 0
		if (dcNeeded && !d.dc[c.td].defined) || (acNeeded && !d.ac[c.ta].defined) {
			return fmt.Errorf("scan uses an undefined Huffman table")
		}
		if !c.qSet {
			c.q, c.qSet = d.qt[c.tq], true // libjpeg latches the table at the first scan
		}
		c.seen = true
	}
	return nil
}

// zigzag[k] is the natural-order (row*8+col) index of the k-th coefficient in zig-zag order.
var zigzag = [64]uint8{
	0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
	12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
	35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
	58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
}

// idctTables[n] holds, for rebuilding n samples from the n lowest of 8 DCT coefficients,
// the weight of coefficient u in sample i, C(u)/2 * cos((2i+1)u*pi/(2n)) in Q11. Sample i
// sits at the centre of the i-th n-th of the block, so these are the block's continuous
// cosine series sampled there, with the frequencies the n samples cannot hold left out.
var idctTables = func() (t [9][8][8]int32) {
	for n := 1; n <= 8; n++ {
		for i := range n {
			for u := range n {
				c := 1.0
				if u == 0 {
					c = 1 / math.Sqrt2
				}
				t[n][i][u] = int32(math.Round(c / 2 * math.Cos(float64((2*i+1)*u)*math.Pi/float64(2*n)) * 2048))
			}
		}
	}
	return t
}()

// scaledIndex[n][k] is where zig-zag coefficient k goes in an n x n block (row*n+col), or
// -1 when the n samples of the block cannot carry its frequency.
var scaledIndex = func() (t [9][64]int8) {
	for n := 1; n <= 8; n++ {
		for k, z := range zigzag {
			r, c := int(z)/8, int(z)%8
			t[n][k] = -1
			if r < n && c < n {
				t[n][k] = int8(r*n + c)
			}
		}
	}
	return t
}()

// insideMask[n] has bit k set for each AC coefficient k (zig-zag) that lands inside n x n.
var insideMask = func() (t [9]uint64) {
	for n := 1; n <= 8; n++ {
		for k := 1; k < 64; k++ {
			if scaledIndex[n][k] >= 0 {
				t[n] |= 1 << k
			}
		}
	}
	return t
}()

// keepFor[n] is how many zig-zag coefficients a block decoded at scale n stores: one past
// the last that lands inside n x n.
var keepFor = func() (t [9]int) {
	for n := 1; n <= 8; n++ {
		for k := range 64 {
			if scaledIndex[n][k] >= 0 {
				t[n] = k + 1
			}
		}
	}
	return t
}()

// A streamed decode hands MCU rows to the rebuilding goroutines in groups, ringGroups of
// them in the ring at once: one being read, one for each of two workers and one to spare.
// About groupsPerScan groups make up a picture, so there are few hand-overs whatever its
// size (on a busy machine each can wait for the scheduler), while the workers' wait for
// the first group and the last group's rebuilding after the reader is done stay small.
const (
	ringGroups    = 4
	groupsPerScan = 32
)

// groupRows is how many MCU rows make one group.
func (d *jpegDecoder) groupRows() int { return max(1, (d.my+groupsPerScan-1)/groupsPerScan) }

// allocate sets up each component's coefficient storage, and its whole decoded plane
// unless alloc is nil (the optimiser rebuilds MCU rows into strips instead), once the first
// scan header is read; every component's n must be set. ring asks for a ring of MCU rows
// when the file streams (a sequential file with one scan of every component); otherwise
// every block is kept until the last scan.
func (d *jpegDecoder) allocate(alloc func(int) []byte, ring bool, store *coefStore) {
	d.stream = !d.progressive && len(d.scan) == len(d.comps)
	d.rows = d.my
	if ring && d.stream {
		d.rows = min(ringGroups*d.groupRows(), d.my)
	}
	coefs, masks := 0, 0
	for i := range d.comps {
		c := &d.comps[i]
		c.keep = keepFor[c.n]
		blocks := c.bx * d.vblocks(c) * d.rows
		coefs += blocks * c.keep
		masks += blocks
	}
	if store == nil {
		store = new(coefStore)
	}
	allCoef, allNZ := store.get(coefs, masks)
	for i := range d.comps {
		c := &d.comps[i]
		blocks := c.bx * d.vblocks(c) * d.rows
		c.coef, allCoef = allCoef[:blocks*c.keep], allCoef[blocks*c.keep:]
		c.nz, allNZ = allNZ[:blocks], allNZ[blocks:]
		c.ringRows = d.rows * d.vblocks(c)
		c.w, c.hgt = (c.cw*c.n+7)/8, (c.ch*c.n+7)/8
		if alloc != nil {
			c.p = plane{w: c.bx * c.n, h: c.by * c.n, stride: c.bx * c.n}
			c.p.pix = alloc(c.p.stride * c.p.h)
		}
	}
}

// coefStore is the memory a decode keeps coefficients and their masks in, reused from one
// decode to the next by the optimiser's scratch.
type coefStore struct {
	coef []int16
	nz   []uint64
}

// get returns zeroed storage for n coefficients and m masks.
func (s *coefStore) get(n, m int) ([]int16, []uint64) {
	if cap(s.coef) < n {
		s.coef = make([]int16, n)
	}
	if cap(s.nz) < m {
		s.nz = make([]uint64, m)
	}
	c, z := s.coef[:n], s.nz[:m]
	clear(c)
	clear(z)
	return c, z
}

// strips returns planes one MCU row high, for rebuilding rows into (see reconstruct).
func (d *jpegDecoder) strips(alloc func(int) []byte) []plane {
	out := make([]plane, len(d.comps))
	for i := range d.comps {
		c := &d.comps[i]
		out[i] = plane{w: c.bx * c.n, h: d.vblocks(c) * c.n, stride: c.bx * c.n}
		out[i].pix = alloc(out[i].stride * out[i].h)
	}
	return out
}

// rowOf is the part of c's whole plane that MCU row r is rebuilt into.
func (d *jpegDecoder) rowOf(c *jpegComponent, r int) plane {
	h := d.vblocks(c) * c.n
	return plane{pix: c.p.pix[r*h*c.p.stride:], w: c.p.w, h: h, stride: c.p.stride}
}

// vblocks is how many block rows of c make one MCU row.
func (d *jpegDecoder) vblocks(c *jpegComponent) int {
	if len(d.comps) == 1 {
		return 1
	}
	return c.v
}

// blockIndex is where c's block (bx, by) is stored.
func (c *jpegComponent) blockIndex(bx, by int) int { return (by%c.ringRows)*c.bx + bx }

// block returns the stored coefficients of c's block i.
func (c *jpegComponent) block(i int) []int16 {
	return c.coef[i*c.keep : (i+1)*c.keep : (i+1)*c.keep]
}

func (d *jpegDecoder) fill() {
	// Eight bytes at once when none of them is 0xFF (no stuffing, no marker): the usual case.
	if !d.atMarker && d.pos+8 <= len(d.data) {
		w := binary.BigEndian.Uint64(d.data[d.pos:])
		if x := ^w; (x-0x0101010101010101)&^x&0x8080808080808080 == 0 {
			k := (64 - d.nbits) / 8
			keep := ^uint64(0) << (64 - 8*k)
			d.acc |= (w & keep) >> d.nbits
			d.nbits += 8 * k
			d.pos += int(k)
			return
		}
	}
	for d.nbits <= 56 {
		var b byte
		switch {
		case d.atMarker || d.pos >= len(d.data):
			d.fake += 8
		default:
			b = d.data[d.pos]
			if b != 0xFF {
				d.pos++
			} else if d.pos+1 < len(d.data) && d.data[d.pos+1] == 0 {
				d.pos += 2 // stuffed zero after a data 0xFF
			} else {
				d.atMarker, b = true, 0
				d.fake += 8
			}
		}
		d.acc |= uint64(b) << (56 - d.nbits)
		d.nbits += 8
	}
}

// overrun reports whether the decoder has used bits that are not in the data: the
// entropy-coded segment ended (at a marker or the end of the file) before the blocks it
// should hold. image/jpeg refuses such a file, and so does this decoder.
func (d *jpegDecoder) overrun() bool { return d.fake > d.nbits }

// resetBits empties the bit reader at the start of a segment.
func (d *jpegDecoder) resetBits() { d.acc, d.nbits, d.atMarker, d.fake = 0, 0, false, 0 }

// huff decodes one symbol, or returns -1 for a code the table does not have.
func (d *jpegDecoder) huff(t *huffTable) int {
	if d.nbits < 16 {
		d.fill()
	}
	if e := t.lut[d.acc>>(64-lutBits)]; e != 0 {
		l := uint(e >> 8)
		d.acc <<= l
		d.nbits -= l
		return int(e & 0xFF)
	}
	for l := uint(lutBits + 1); l <= 16; l++ {
		code := int32(d.acc >> (64 - l))
		if code <= t.maxcode[l] {
			d.acc <<= l
			d.nbits -= l
			return int(t.vals[(t.valptr[l]+code-t.mincode[l])&0xFF])
		}
	}
	return -1
}

// bits reads s bits (s <= 16) as an unsigned number.
func (d *jpegDecoder) bits(s uint) int32 {
	if s == 0 {
		return 0
	}
	if d.nbits < s {
		d.fill()
	}
	v := int32(d.acc >> (64 - s))
	d.acc <<= s
	d.nbits -= s
	return v
}

// extend reads s more bits (s <= 16) and sign-extends them (T.81 F.2.2.1).
func (d *jpegDecoder) extend(s uint) int32 {
	if s == 0 {
		return 0
	}
	v := d.bits(s)
	if v < 1<<(s-1) {
		v += -1<<s + 1
	}
	return v
}

var errBadCode = errors.New("bad Huffman code")

// maxScans bounds the scans of one file. Every scan visits each block of its components,
// so a few bytes per scan could otherwise buy a pass over a 50-megapixel picture each:
// libjpeg's progressive script has 10 scans, and the longest sensible one (each of 64
// coefficients of 3 components in its own band, at two bit depths) stays within 400.
const maxScans = 400

var errTooManyScans = fmt.Errorf("more than %d scans", maxScans)

// sequentialBlock decodes one block of a sequential scan into blk (its keep stored
// coefficients, zig-zag order, quantised).
func (d *jpegDecoder) sequentialBlock(c *jpegComponent, blk []int16, nz *uint64) error {
	clear(blk)
	var mask uint64
	s := d.huff(&d.dc[c.td])
	if s < 0 || s > 16 {
		return errBadCode
	}
	c.pred += d.extend(uint(s))
	blk[0] = int16(c.pred)
	ac := &d.ac[c.ta]
	keep := len(blk)
	// The bit buffer lives in locals through the loop; d has it whenever a helper runs.
	acc, nbits := d.acc, d.nbits
	for k := 1; k < 64; k++ {
		if nbits < 32 {
			d.acc, d.nbits = acc, nbits
			d.fill()
			acc, nbits = d.acc, d.nbits
		}
		if f := ac.fast[acc>>(64-lutBits)]; f != 0 && k+int(f>>8)&0xFF <= 63 {
			l := uint(f & 0xFF)
			acc <<= l
			nbits -= l
			k += int(f>>8) & 0xFF
			if k < keep {
				blk[k] = int16(f >> 16)
				mask |= 1 << k
			}
			continue
		}
		d.acc, d.nbits = acc, nbits
		rs := d.huff(ac)
		if rs < 0 {
			return errBadCode
		}
		r, s := rs>>4, uint(rs&15)
		if s == 0 {
			acc, nbits = d.acc, d.nbits
			if r != 15 {
				break // end of block
			}
			k += 15
			continue
		}
		k += r
		if k > 63 {
			// A run past the last coefficient ends the block, as image/jpeg reads it
			// (the value bits are not read).
			acc, nbits = d.acc, d.nbits
			break
		}
		v := d.extend(s)
		acc, nbits = d.acc, d.nbits
		if k < keep {
			blk[k] = int16(v)
			mask |= 1 << k
		}
	}
	d.acc, d.nbits = acc, nbits
	*nz = mask
	return nil
}

// dcFirst decodes the DC coefficient of one block in a progressive DC scan; dcRefine adds
// one more bit of it.
func (d *jpegDecoder) dcFirst(c *jpegComponent, blk []int16) error {
	s := d.huff(&d.dc[c.td])
	if s < 0 || s > 16 {
		return errBadCode
	}
	c.pred += d.extend(uint(s))
	blk[0] = int16(c.pred << d.al)
	return nil
}

func (d *jpegDecoder) dcRefine(blk []int16) {
	if d.bits(1) != 0 {
		blk[0] |= int16(1 << d.al)
	}
}

// acFirst decodes the band ss..se of one block in a first progressive AC scan (T.81
// G.1.2.2), storing the coefficients the scale keeps and marking every non-zero one in nz.
func (d *jpegDecoder) acFirst(c *jpegComponent, blk []int16, nz *uint64) error {
	if d.eobrun > 0 {
		d.eobrun--
		return nil
	}
	ac := &d.ac[c.ta]
	keep, al, se := len(blk), uint(d.al), d.se
	mask := *nz
	for k := d.ss; k <= se; k++ {
		if d.nbits < 32 {
			d.fill()
		}
		var v int32
		if f := ac.fast[d.acc>>(64-lutBits)]; f != 0 && k+int(f>>8)&0xFF <= se {
			// Code and value bits in one lookup.
			l := uint(f & 0xFF)
			d.acc <<= l
			d.nbits -= l
			k += int(f>>8) & 0xFF
			v = f >> 16
		} else {
			rs := d.huff(ac)
			if rs < 0 {
				return errBadCode
			}
			r, s := rs>>4, uint(rs&15)
			if s == 0 {
				if r == 15 {
					k += 15
					continue
				}
				d.eobrun = 1<<r - 1
				if r > 0 {
					d.eobrun += int(d.bits(uint(r)))
				}
				break
			}
			k += r
			if k > se {
				break // a run past the band ends the block, as image/jpeg reads it
			}
			v = d.extend(s)
		}
		mask |= 1 << k
		if k < keep {
			blk[k] = int16(v << al)
		}
	}
	*nz = mask
	return nil
}

// acRefine adds one more bit to the band ss..se of one block in a progressive AC
// refinement scan (T.81 G.1.2.3): each coefficient already non-zero reads a correction
// bit as the decoder passes it; zero runs count only the coefficients still zero.
func (d *jpegDecoder) acRefine(c *jpegComponent, blk []int16, nz *uint64) error {
	keep, se := len(blk), d.se
	p1, m1 := int16(1)<<d.al, int16(-1)<<d.al
	mask := *nz
	// refine reads the correction bit of non-zero coefficient k.
	refine := func(k int) {
		if d.nbits == 0 {
			d.fill()
		}
		bit := d.acc >> 63
		d.acc <<= 1
		d.nbits--
		if bit != 0 && k < keep {
			if v := blk[k]; v&p1 == 0 {
				if v >= 0 {
					blk[k] = v + p1
				} else {
					blk[k] = v + m1
				}
			}
		}
	}
	band := ^uint64(0) // coefficients up to se
	if se < 63 {
		band = 1<<(se+1) - 1
	}
	k := d.ss
	if d.eobrun == 0 {
		ac := &d.ac[c.ta]
		for ; k <= se; k++ {
			rs := d.huff(ac)
			if rs < 0 {
				return errBadCode
			}
			r, s := rs>>4, rs&15
			var v int16
			if s != 0 {
				if s != 1 {
					return errBadCode
				}
				v = m1
				if d.bits(1) != 0 {
					v = p1
				}
			} else if r != 15 {
				d.eobrun = 1 << r
				if r > 0 {
					d.eobrun += int(d.bits(uint(r)))
				}
				break
			}
			// Pass r coefficients that are still zero, refining the non-zero ones on
			// the way; the next zero one, at p, gets v.
			zeros := ^mask >> k << k & band
			for ; r > 0 && zeros != 0; r-- {
				zeros &= zeros - 1
			}
			p := se + 1
			if zeros != 0 {
				p = bits.TrailingZeros64(zeros)
			}
			passed := mask >> k << k
			if p < 64 {
				passed &= 1<<p - 1
			}
			for passed != 0 {
				refine(bits.TrailingZeros64(passed))
				passed &= passed - 1
			}
			k = p
			if v != 0 {
				if k > se {
					return errBadCode
				}
				mask |= 1 << k
				if k < keep {
					blk[k] = v
				}
			}
		}
	}
	if d.eobrun > 0 {
		// The rest of the band: only the non-zero coefficients read a bit.
		rest := mask >> k << k & band
		for rest != 0 {
			j := bits.TrailingZeros64(rest)
			rest &= rest - 1
			refine(j)
		}
		d.eobrun--
	}
	*nz = mask
	return nil
}

// restart expects a restart marker at pos, skips it, and resets the bit reader, the DC
// predictions and the end-of-band run.
func (d *jpegDecoder) restart() error {
	if d.overrun() {
		return fmt.Errorf("data ends inside a restart interval, at byte %d", d.pos)
	}
	d.resetBits()
	// The marker should be next; like image/jpeg (and libjpeg), skip stray bytes before it,
	// but not another marker.
	for {
		if d.pos+1 >= len(d.data) {
			return fmt.Errorf("missing restart marker at the end of the data")
		}
		if d.data[d.pos] == 0xFF {
			if m := d.data[d.pos+1]; m >= 0xD0 && m <= 0xD7 {
				break
			} else if m != 0 && m != 0xFF {
				return fmt.Errorf("marker %#x where a restart marker belongs, at byte %d", m, d.pos)
			}
		}
		d.pos++
	}
	d.pos += 2
	for i := range d.comps {
		d.comps[i].pred = 0
	}
	d.eobrun = 0
	return nil
}

// decode reads every scan. For a streamed file, before(r) is called before MCU row r is
// read into the ring and after(r) once it is there; for the others after is called for
// nothing, and the caller rebuilds the rows once decode returns.
func (d *jpegDecoder) decode(before, after func(r int)) error {
	for scans := 1; ; scans++ {
		if scans > maxScans {
			return errTooManyScans
		}
		if err := d.decodeScan(before, after); err != nil {
			return err
		}
		if d.stream {
			return nil // the one scan holds everything; what follows does not matter
		}
		// The scan's data ends at the next marker that is not a restart marker.
		d.pos = d.nextMarker(d.pos)
		d.resetBits()
		eoi, err := d.markers()
		if err != nil {
			if d.pos >= len(d.data) {
				return fmt.Errorf("data ends before the end of image")
			}
			return err
		}
		if eoi {
			break
		}
	}
	for i := range d.comps {
		if !d.comps[i].seen {
			return fmt.Errorf("component %d is in no scan", i)
		}
	}
	return nil
}

// nextMarker returns the position of the first marker at or after pos that ends
// entropy-coded data (anything but a stuffed zero or a restart marker).
func (d *jpegDecoder) nextMarker(pos int) int {
	for pos+1 < len(d.data) {
		if d.data[pos] == 0xFF {
			if m := d.data[pos+1]; m != 0 && m != 0xFF && (m < 0xD0 || m > 0xD7) {
				return pos
			}
		}
		pos++
	}
	return len(d.data)
}

// scanKind is what a scan holds, which says how its blocks are decoded.
type scanKind int

const (
	scanSequential scanKind = iota
	scanDCFirst
	scanDCRefine
	scanACFirst
	scanACRefine
)

// decodeBlock decodes component c's block i in a scan of kind k.
func (d *jpegDecoder) decodeBlock(kind scanKind, c *jpegComponent, i int) error {
	blk := c.block(i)
	switch kind {
	case scanSequential:
		return d.sequentialBlock(c, blk, &c.nz[i])
	case scanDCFirst:
		return d.dcFirst(c, blk)
	case scanDCRefine:
		d.dcRefine(blk)
		return nil
	case scanACFirst:
		return d.acFirst(c, blk, &c.nz[i])
	default:
		return d.acRefine(c, blk, &c.nz[i])
	}
}

// decodeScan decodes the current scan's entropy-coded data.
func (d *jpegDecoder) decodeScan(before, after func(r int)) error {
	if !d.stream {
		before, after = nil, nil
	}
	d.eobrun = 0
	for i := range d.comps {
		d.comps[i].pred = 0
	}
	d.resetBits()
	kind := scanSequential
	switch {
	case !d.progressive:
	case d.ss == 0 && d.ah == 0:
		kind = scanDCFirst
	case d.ss == 0:
		kind = scanDCRefine
	case d.ah == 0:
		kind = scanACFirst
	default:
		kind = scanACRefine
	}

	if len(d.scan) == 1 && len(d.comps) > 1 {
		// A scan of one component of a colour image is not interleaved: its MCU is one
		// block, over the component's own size rather than whole MCUs (T.81 A.2.2).
		c := &d.comps[d.scan[0]]
		bw, bh := (c.cw+7)/8, (c.ch+7)/8
		n := 0
		for by := range bh {
			row := c.blockIndex(0, by)
			for bx := range bw {
				if d.ri > 0 && n > 0 && n%d.ri == 0 {
					if err := d.restart(); err != nil {
						return err
					}
				}
				n++
				if err := d.decodeBlock(kind, c, row+bx); err != nil {
					return fmt.Errorf("block %d,%d of component %d: %w", bx, by, d.scan[0], err)
				}
			}
			if d.overrun() {
				return fmt.Errorf("data ends inside the scan, at block row %d of %d", by+1, bh)
			}
		}
		return nil
	}
	// Each component's blocks of one MCU: hb across, vb down, the first of each row at
	// rows[v] + x*hb in the storage.
	type unit struct {
		c      *jpegComponent
		hb, vb int
		rows   [4]int
	}
	units := make([]unit, len(d.scan))
	for j, ci := range d.scan {
		c := &d.comps[ci]
		units[j] = unit{c: c, hb: c.h, vb: d.vblocks(c)}
		if len(d.comps) == 1 {
			units[j].hb = 1
		}
	}
	mcus := 0
	for y := range d.my {
		if before != nil {
			before(y)
		}
		for j := range units {
			u := &units[j]
			for v := range u.vb {
				u.rows[v] = u.c.blockIndex(0, y*u.vb+v)
			}
		}
		for x := range d.mx {
			if d.ri > 0 && mcus > 0 && mcus%d.ri == 0 {
				if err := d.restart(); err != nil {
					return err
				}
			}
			mcus++
			for j := range units {
				u := &units[j]
				for v := range u.vb {
					i := u.rows[v] + x*u.hb
					for h := range u.hb {
						if err := d.decodeBlock(kind, u.c, i+h); err != nil {
							return fmt.Errorf("block %d,%d of component %d: %w", x*u.hb+h, y*u.vb+v, d.scan[j], err)
						}
					}
				}
			}
		}
		if d.overrun() {
			return fmt.Errorf("data ends inside the scan, at MCU row %d of %d", y+1, d.my)
		}
		if after != nil {
			after(y)
		}
	}
	return nil
}

// reconstruct rebuilds MCU row r of every component from its coefficients into dst, a
// plane per component whose first line is the row's first.
func (d *jpegDecoder) reconstruct(r int, dst []plane) {
	var blk [64]int32
	for i := range d.comps {
		c := &d.comps[i]
		n := c.n
		idx := &scaledIndex[n]
		inside := insideMask[n]
		vb := d.vblocks(c)
		p := dst[i]
		for by := r * vb; by < (r+1)*vb; by++ {
			row := c.blockIndex(0, by)
			line := p.pix[(by-r*vb)*n*p.stride:]
			for bx := range c.bx {
				coef := c.block(row + bx)
				clear(blk[:n*n])
				blk[0] = int32(coef[0]) * c.q[0]
				// Only the non-zero coefficients the scale keeps, from the block's mask.
				m := c.nz[row+bx] & inside
				ac := m != 0
				for m != 0 {
					k := bits.TrailingZeros64(m)
					m &= m - 1
					blk[idx[k]] = int32(coef[k]) * c.q[k]
				}
				idct(&blk, n, ac, line[bx*n:], p.stride)
			}
		}
	}
}

// rowsOf is the range of c's plane rows that MCU row r rebuilds (cropped to its real size).
func (d *jpegDecoder) rowsOf(c *jpegComponent, r int) (int, int) {
	vb := d.vblocks(c)
	return min(r*vb*c.n, c.hgt), min((r+1)*vb*c.n, c.hgt)
}

// idct rebuilds an n x n block of samples at dst from blk (dequantised, natural n x n
// order); ac says whether any coefficient but the first is non-zero.
func idct(blk *[64]int32, n int, ac bool, dst []byte, stride int) {
	if !ac {
		// Only the mean: C(0)^2/4 = 1/8 of the DC coefficient everywhere.
		v := clampByte((blk[0]+4)>>3 + 128)
		for y := range n {
			row := dst[y*stride : y*stride+n]
			for x := range row {
				row[x] = v
			}
		}
		return
	}
	switch n {
	case 8:
		idct8(blk, dst, stride)
		return
	case 4:
		idct4(blk, dst, stride)
		return
	}
	m := &idctTables[n]
	var tmp [64]int32
	// Rows of coefficients (one vertical frequency each) to horizontal samples, Q11 -> Q4.
	for v := range n {
		coef := blk[v*n : v*n+n]
		for x := range n {
			w := m[x][:n]
			var s int32
			for u, cu := range coef {
				s += cu * w[u]
			}
			tmp[v*n+x] = (s + 64) >> 7
		}
	}
	// Columns: vertical frequencies to samples, Q4 * Q11 = Q15.
	for y := range n {
		w := m[y][:n]
		row := dst[y*stride : y*stride+n]
		for x := range row {
			var s int32
			for v := range n {
				s += tmp[v*n+x] * w[v]
			}
			row[x] = clampByte((s+1<<14)>>15 + 128)
		}
	}
}

// idct4 is idct for n = 4 (a 12 MP photo's scale), with the same Q11 weights and sums
// but the 4-point transform's symmetry: sample 3-i is sample i with the odd frequencies
// negated, so each 1-D transform takes 6 multiplications instead of 16.
func idct4(blk *[64]int32, dst []byte, stride int) {
	m := &idctTables[4]
	k0, a, b, c := m[0][0], m[0][1], m[0][2], m[0][3]
	var tmp [16]int32
	for v := range 4 {
		f := blk[v*4 : v*4+4 : v*4+4]
		e0, e1 := k0*f[0]+b*f[2], k0*f[0]-b*f[2]
		o0, o1 := a*f[1]+c*f[3], c*f[1]-a*f[3]
		t := tmp[v*4 : v*4+4 : v*4+4]
		t[0], t[3] = (e0+o0+64)>>7, (e0-o0+64)>>7
		t[1], t[2] = (e1+o1+64)>>7, (e1-o1+64)>>7
	}
	for x := range 4 {
		f0, f1, f2, f3 := tmp[x], tmp[4+x], tmp[8+x], tmp[12+x]
		e0, e1 := k0*f0+b*f2, k0*f0-b*f2
		o0, o1 := a*f1+c*f3, c*f1-a*f3
		const half = 1<<14 + 128<<15 // rounding and the level shift, in Q15
		dst[x] = clampByte((e0 + o0 + half) >> 15)
		dst[stride+x] = clampByte((e1 + o1 + half) >> 15)
		dst[2*stride+x] = clampByte((e1 - o1 + half) >> 15)
		dst[3*stride+x] = clampByte((e0 - o0 + half) >> 15)
	}
}

// Constants of the 8-point inverse DCT below, in Q13.
const (
	fix0_298631336 = 2446
	fix0_390180644 = 3196
	fix0_541196100 = 4433
	fix0_765366865 = 6270
	fix0_899976223 = 7373
	fix1_175875602 = 9633
	fix1_501321110 = 12299
	fix1_847759065 = 15137
	fix1_961570560 = 16069
	fix2_053119869 = 16819
	fix2_562915447 = 20995
	fix3_072711026 = 25172
)

// idct8 is the full-size inverse DCT, factored as Loeffler, Ligtenberg and Moschytz
// showed (12 multiplications per 1-D transform instead of 64): columns first, kept with
// two extra bits, then rows. Each 1-D pass computes sqrt(8) times the orthonormal
// transform, so the result is divided by 8 at the end.
func idct8(blk *[64]int32, dst []byte, stride int) {
	var ws [64]int32
	for x := range 8 {
		c := blk[x : x+57 : x+57]
		if c[8] == 0 && c[16] == 0 && c[24] == 0 && c[32] == 0 && c[40] == 0 && c[48] == 0 && c[56] == 0 {
			dc := c[0] << 2
			for y := range 8 {
				ws[y*8+x] = dc
			}
			continue
		}
		o := idct8Pass(c[0], c[8], c[16], c[24], c[32], c[40], c[48], c[56])
		for y := range 8 {
			ws[y*8+x] = (o[y] + 1<<10) >> 11 // Q13 -> two extra bits
		}
	}
	for y := range 8 {
		r := ws[y*8 : y*8+8 : y*8+8]
		o := idct8Pass(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7])
		row := dst[y*stride : y*stride+8 : y*stride+8]
		const half = 1<<17 + 128<<18 // rounding and the level shift, after Q13, two bits and /8
		for x := range 8 {
			row[x] = clampByte((o[x] + half) >> 18)
		}
	}
}

// idct8Pass is one 8-point inverse DCT in Q13.
func idct8Pass(c0, c1, c2, c3, c4, c5, c6, c7 int32) (o [8]int32) {
	// Even part: c0, c2, c4, c6.
	z1 := (c2 + c6) * fix0_541196100
	t2 := z1 - c6*fix1_847759065
	t3 := z1 + c2*fix0_765366865
	t0 := (c0 + c4) << 13
	t1 := (c0 - c4) << 13
	e0, e3 := t0+t3, t0-t3
	e1, e2 := t1+t2, t1-t2
	// Odd part: c7, c5, c3, c1.
	s1, s2, s3, s4 := c7+c1, c5+c3, c7+c3, c5+c1
	z5 := (s3 + s4) * fix1_175875602
	p0 := c7 * fix0_298631336
	p1 := c5 * fix2_053119869
	p2 := c3 * fix3_072711026
	p3 := c1 * fix1_501321110
	s1 *= -fix0_899976223
	s2 *= -fix2_562915447
	s3 = s3*-fix1_961570560 + z5
	s4 = s4*-fix0_390180644 + z5
	p0 += s1 + s3
	p1 += s2 + s4
	p2 += s2 + s3
	p3 += s1 + s4
	o[0], o[7] = e0+p3, e0-p3
	o[1], o[6] = e1+p2, e1-p2
	o[2], o[5] = e2+p1, e2-p1
	o[3], o[4] = e3+p0, e3-p0
	return o
}

func clampByte(v int32) byte {
	if uint32(v) <= 255 {
		return byte(v)
	}
	if v < 0 {
		return 0
	}
	return 255
}
