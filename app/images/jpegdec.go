package images

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// This file is a decoder for sequential Huffman-coded 8-bit JPEG (what phone cameras and
// most encoders write) that can decode at a reduced scale: each 8x8 block is rebuilt from
// its lowest n x n DCT coefficients as n x n pixels, n = 1..8. Turning a 12-megapixel photo
// into a 1344-pixel one then never builds the 12 million pixels only to average them away,
// and the inverse transform works on a fraction of the coefficients. Progressive,
// arithmetic-coded, 12-bit, lossless, CMYK and multi-scan files are left to the standard
// library (errFallback), as is anything this decoder finds wrong, so it never accepts
// less than image/jpeg does.

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
	pred   int32
	p      plane // decoded samples at the chosen scale, padded to whole blocks
	w, hgt int   // the component's real size at the chosen scale
}

// jpegDecoder holds one decode. Its zero value plus data is ready for parse.
type jpegDecoder struct {
	data []byte
	pos  int

	// Bit reader: acc holds nbits bits, most significant first.
	acc      uint64
	nbits    uint
	atMarker bool // the next byte at pos is a marker: feed zero bits
	eof      bool // the data ended inside the entropy-coded segment

	qt      [4][64]int32 // in zig-zag order
	qtSet   [4]bool
	dc, ac  [4]huffTable
	comps   []jpegComponent
	width   int
	height  int
	hmax    int
	vmax    int
	ri      int // restart interval in MCUs, 0 = none
	adobe   bool
	xform   int // Adobe APP14 colour transform
	orient  int // EXIF orientation, 1 when absent
	n       int // output samples per block edge
	frameOK bool
}

// jpegHeader is what the markers before the first scan say.
type jpegHeader struct {
	width, height int
	orientation   int
	// fast reports whether decodeJPEGScaled handles this file.
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
// its real size, and the EXIF orientation.
func decodeJPEGScaled(data []byte, n int, alloc func(int) []byte) ([]plane, int, error) {
	d := jpegDecoder{data: data, n: n}
	if err := d.parseHeaders(); err != nil {
		return nil, 0, err
	}
	if err := d.decodeScan(alloc); err != nil {
		return nil, 0, err
	}
	out := make([]plane, len(d.comps))
	for i := range d.comps {
		c := &d.comps[i]
		out[i] = plane{pix: c.p.pix, w: c.w, h: c.hgt, stride: c.p.stride}
	}
	return out, d.orient, nil
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
	for {
		// Markers may be preceded by any number of 0xFF fill bytes.
		if d.pos >= len(d.data) || d.data[d.pos] != 0xFF {
			return fmt.Errorf("expected a marker at byte %d", d.pos)
		}
		for d.pos < len(d.data) && d.data[d.pos] == 0xFF {
			d.pos++
		}
		if d.pos >= len(d.data) {
			return fmt.Errorf("data ends before the first scan")
		}
		m := d.data[d.pos]
		d.pos++
		switch {
		case m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7):
			continue // no length
		case m == 0xD9:
			return fmt.Errorf("end of image before any scan")
		}
		if d.pos+2 > len(d.data) {
			return fmt.Errorf("marker %#x is cut off", m)
		}
		n := d.u16(d.pos)
		if n < 2 || d.pos+n > len(d.data) {
			return fmt.Errorf("marker %#x has a bad length %d", m, n)
		}
		seg := d.data[d.pos+2 : d.pos+n]
		d.pos += n
		var err error
		switch {
		case m == 0xC0 || m == 0xC1:
			err = d.parseSOF(seg)
		case m >= 0xC2 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC:
			// Progressive, lossless, differential or arithmetic coding.
			if d.width == 0 && len(seg) >= 5 {
				d.height, d.width = int(seg[1])<<8|int(seg[2]), int(seg[3])<<8|int(seg[4])
			}
			return errFallback
		case m == 0xC4:
			err = d.parseDHT(seg)
		case m == 0xDB:
			err = d.parseDQT(seg)
		case m == 0xDD:
			if len(seg) < 2 {
				return fmt.Errorf("short restart interval marker")
			}
			d.ri = int(seg[0])<<8 | int(seg[1])
		case m == 0xE1:
			if o := exifOrientation(seg); o != 0 {
				d.orient = o
			}
		case m == 0xEE:
			if len(seg) >= 12 && string(seg[:5]) == "Adobe" {
				d.adobe, d.xform = true, int(seg[11])
			}
		case m == 0xDA:
			if !d.frameOK {
				return fmt.Errorf("scan before the frame header")
			}
			return d.parseSOS(seg)
		}
		if err != nil {
			return err
		}
	}
}

func (d *jpegDecoder) parseSOF(seg []byte) error {
	if d.frameOK {
		return fmt.Errorf("second frame header")
	}
	if len(seg) < 6 {
		return fmt.Errorf("short frame header")
	}
	d.height, d.width = int(seg[1])<<8|int(seg[2]), int(seg[3])<<8|int(seg[4])
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
	if len(seg) < 1+2*ns+3 || ns < 1 {
		return fmt.Errorf("short scan header")
	}
	if ns != len(d.comps) {
		return errFallback // one scan per component: needs the whole image kept in coefficients
	}
	for i := range ns {
		id, tables := seg[1+2*i], seg[2+2*i]
		c := &d.comps[i]
		if c.id != id {
			return errFallback // components in another order than the frame's
		}
		c.td, c.ta = int(tables>>4), int(tables&15)
		if c.td > 3 || c.ta > 3 || !d.dc[c.td].defined || !d.ac[c.ta].defined || !d.qtSet[c.tq] {
			return fmt.Errorf("scan uses an undefined table")
		}
	}
	ss, se, a := seg[1+2*ns], seg[2+2*ns], seg[3+2*ns]
	if ss != 0 || se != 63 || a != 0 {
		return errFallback
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
		case d.atMarker:
		case d.pos >= len(d.data):
			d.eof = true
		default:
			b = d.data[d.pos]
			if b != 0xFF {
				d.pos++
			} else if d.pos+1 < len(d.data) && d.data[d.pos+1] == 0 {
				d.pos += 2 // stuffed zero after a data 0xFF
			} else {
				d.atMarker, b = true, 0
			}
		}
		d.acc |= uint64(b) << (56 - d.nbits)
		d.nbits += 8
	}
}

// huff decodes one symbol, or returns -1 for a code the table does not have. The caller
// has made sure at least 16 bits are buffered.
func (d *jpegDecoder) huff(t *huffTable) int {
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

// extend reads s more bits (s <= 16, buffered) and sign-extends them (T.81 F.2.2.1).
func (d *jpegDecoder) extend(s uint) int32 {
	if s == 0 {
		return 0
	}
	v := int32(d.acc >> (64 - s))
	d.acc <<= s
	d.nbits -= s
	if v < 1<<(s-1) {
		v += -1<<s + 1
	}
	return v
}

var errBadCode = errors.New("bad Huffman code")

// block decodes one 8x8 block's coefficients into blk (n x n, dequantised) and reports
// whether any but the DC coefficient is non-zero.
func (d *jpegDecoder) block(c *jpegComponent, blk *[64]int32) (bool, error) {
	n := d.n
	clear(blk[:n*n])
	q := &d.qt[c.tq]
	idx := &scaledIndex[n]
	if d.nbits < 32 {
		d.fill()
	}
	s := d.huff(&d.dc[c.td])
	if s < 0 || s > 16 {
		return false, errBadCode
	}
	c.pred += d.extend(uint(s))
	blk[0] = c.pred * q[0]
	ac := &d.ac[c.ta]
	any := false
	// The bit buffer lives in locals through the loop; d has it whenever a helper runs.
	acc, nbits := d.acc, d.nbits
	for k := 1; k < 64; k++ {
		if nbits < 32 {
			d.acc, d.nbits = acc, nbits
			d.fill()
			acc, nbits = d.acc, d.nbits
		}
		if f := ac.fast[acc>>(64-lutBits)]; f != 0 {
			l := uint(f & 0xFF)
			acc <<= l
			nbits -= l
			k += int(f>>8) & 0xFF
			if k > 63 {
				return false, errBadCode
			}
			if i := idx[k]; i >= 0 {
				blk[i] = (f >> 16) * q[k]
				any = true
			}
			continue
		}
		d.acc, d.nbits = acc, nbits
		rs := d.huff(ac)
		if rs < 0 {
			return false, errBadCode
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
			return false, errBadCode
		}
		v := d.extend(s)
		acc, nbits = d.acc, d.nbits
		if i := idx[k]; i >= 0 {
			blk[i] = v * q[k]
			any = true
		}
	}
	d.acc, d.nbits = acc, nbits
	return any, nil
}

// idct rebuilds an n x n block of samples at dst from blk.
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
	if n == 4 {
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

func clampByte(v int32) byte {
	if uint32(v) <= 255 {
		return byte(v)
	}
	if v < 0 {
		return 0
	}
	return 255
}

// restart expects a restart marker at pos, skips it, and resets the bit reader and the
// DC predictions.
func (d *jpegDecoder) restart() error {
	d.acc, d.nbits, d.atMarker = 0, 0, false
	for d.pos < len(d.data) && d.data[d.pos] == 0xFF && d.pos+1 < len(d.data) && d.data[d.pos+1] == 0xFF {
		d.pos++
	}
	if d.pos+1 >= len(d.data) || d.data[d.pos] != 0xFF || d.data[d.pos+1] < 0xD0 || d.data[d.pos+1] > 0xD7 {
		return fmt.Errorf("missing restart marker at byte %d", d.pos)
	}
	d.pos += 2
	for i := range d.comps {
		d.comps[i].pred = 0
	}
	return nil
}

// decodeScan decodes the single scan that holds every component, writing each block's
// samples straight into its component's plane.
func (d *jpegDecoder) decodeScan(alloc func(int) []byte) error {
	n := d.n
	mcuW, mcuH := 8*d.hmax, 8*d.vmax
	mx, my := (d.width+mcuW-1)/mcuW, (d.height+mcuH-1)/mcuH
	for i := range d.comps {
		c := &d.comps[i]
		c.bx, c.by = mx*c.h, my*c.v
		cw := (d.width*c.h + d.hmax - 1) / d.hmax
		ch := (d.height*c.v + d.vmax - 1) / d.vmax
		if len(d.comps) == 1 {
			// A lone component's MCU is one block: no padding to a larger MCU.
			c.bx, c.by = (cw+7)/8, (ch+7)/8
			mx, my = c.bx, c.by
		}
		c.w, c.hgt = (cw*n+7)/8, (ch*n+7)/8
		c.p = plane{w: c.bx * n, h: c.by * n, stride: c.bx * n}
		c.p.pix = alloc(c.p.stride * c.p.h)
	}
	var blk [64]int32
	mcus := 0
	for y := range my {
		for x := range mx {
			if d.ri > 0 && mcus > 0 && mcus%d.ri == 0 {
				if err := d.restart(); err != nil {
					return err
				}
			}
			mcus++
			for i := range d.comps {
				c := &d.comps[i]
				for v := range c.v {
					for h := range c.h {
						ac, err := d.block(c, &blk)
						if err != nil {
							return fmt.Errorf("block %d,%d of component %d: %w", x*c.h+h, y*c.v+v, i, err)
						}
						bx, by := x*c.h+h, y*c.v+v
						idct(&blk, n, ac, c.p.pix[by*n*c.p.stride+bx*n:], c.p.stride)
					}
				}
			}
		}
		if d.eof {
			return fmt.Errorf("data ends inside the image, at MCU row %d of %d", y+1, my)
		}
	}
	return nil
}
