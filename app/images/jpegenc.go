package images

import (
	"bytes"
	"math"
	"math/bits"
	"sort"
)

// This file is a baseline JPEG encoder for the optimiser's output planes: luma, and chroma
// at half size each way (4:2:0), or luma alone. It quantises with the tables of ITU T.81
// annex K scaled by quality as the IJG encoders (and image/jpeg) do, so the picture is
// the one image/jpeg would write, and it builds Huffman tables for the image itself in a
// first pass over the quantised blocks, which makes the file smaller than one coded with
// the annex's generic tables. Working on planes spares the per-pixel colour lookups an
// image.Image interface needs.

// Quantisation tables of T.81 annex K.1 (natural order) for luma and chroma.
var baseQuant = [2][64]int32{{
	16, 11, 10, 16, 24, 40, 51, 61,
	12, 12, 14, 19, 26, 58, 60, 55,
	14, 13, 16, 24, 40, 57, 69, 56,
	14, 17, 22, 29, 51, 87, 80, 62,
	18, 22, 37, 56, 68, 109, 103, 77,
	24, 35, 55, 64, 81, 104, 113, 92,
	49, 64, 78, 87, 103, 121, 120, 101,
	72, 92, 95, 98, 112, 100, 103, 99,
}, {
	17, 18, 24, 47, 99, 99, 99, 99,
	18, 21, 26, 66, 99, 99, 99, 99,
	24, 26, 56, 99, 99, 99, 99, 99,
	47, 66, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99,
}}

// quantTable scales a base table to quality q (1..100) the IJG way.
func quantTable(base *[64]int32, q int) (t [64]int32) {
	q = min(max(q, 1), 100)
	scale := int32(200 - 2*q)
	if q < 50 {
		scale = int32(5000 / q)
	}
	for i, b := range base {
		t[i] = min(max((b*scale+50)/100, 1), 255)
	}
	return t
}

// aanScale[k] is the scale the AAN forward DCT leaves on frequency k (cos(k*pi/16)*sqrt2,
// and 1 for k = 0); it is folded into the quantisation divisors.
var aanScale = func() (s [8]float64) {
	for k := range s {
		s[k] = 1
		if k > 0 {
			s[k] = math.Cos(float64(k)*math.Pi/16) * math.Sqrt2
		}
	}
	return s
}()

// fdct transforms a block of level-shifted samples in place (rows, then columns) with the
// Arai-Agui-Nakajima factorisation; each output still carries aanScale[u]*aanScale[v]*8.
func fdct(b *[64]float32) {
	// Rows, then columns. The two loops hold the same butterflies, written out in each
	// (a call per 8-point transform would cost as much as the transform).
	for o := 0; o < 64; o += 8 {
		r := b[o : o+8 : o+8]
		d0, d1, d2, d3 := r[0], r[1], r[2], r[3]
		d4, d5, d6, d7 := r[4], r[5], r[6], r[7]
		t0, t7 := d0+d7, d0-d7
		t1, t6 := d1+d6, d1-d6
		t2, t5 := d2+d5, d2-d5
		t3, t4 := d3+d4, d3-d4
		// Even part.
		t10, t13 := t0+t3, t0-t3
		t11, t12 := t1+t2, t1-t2
		r[0] = t10 + t11
		r[4] = t10 - t11
		z1 := (t12 + t13) * 0.707106781
		r[2] = t13 + z1
		r[6] = t13 - z1
		// Odd part.
		t10, t11, t12 = t4+t5, t5+t6, t6+t7
		z5 := (t10 - t12) * 0.382683433
		z2 := 0.541196100*t10 + z5
		z4 := 1.306562965*t12 + z5
		z3 := t11 * 0.707106781
		z11, z13 := t7+z3, t7-z3
		r[5] = z13 + z2
		r[3] = z13 - z2
		r[1] = z11 + z4
		r[7] = z11 - z4
	}
	for o := range 8 {
		d0, d1, d2, d3 := b[o], b[o+8], b[o+16], b[o+24]
		d4, d5, d6, d7 := b[o+32], b[o+40], b[o+48], b[o+56]
		t0, t7 := d0+d7, d0-d7
		t1, t6 := d1+d6, d1-d6
		t2, t5 := d2+d5, d2-d5
		t3, t4 := d3+d4, d3-d4
		// Even part.
		t10, t13 := t0+t3, t0-t3
		t11, t12 := t1+t2, t1-t2
		b[o] = t10 + t11
		b[o+32] = t10 - t11
		z1 := (t12 + t13) * 0.707106781
		b[o+16] = t13 + z1
		b[o+48] = t13 - z1
		// Odd part.
		t10, t11, t12 = t4+t5, t5+t6, t6+t7
		z5 := (t10 - t12) * 0.382683433
		z2 := 0.541196100*t10 + z5
		z4 := 1.306562965*t12 + z5
		z3 := t11 * 0.707106781
		z11, z13 := t7+z3, t7-z3
		b[o+40] = z13 + z2
		b[o+24] = z13 - z2
		b[o+8] = z11 + z4
		b[o+56] = z11 - z4
	}
}

// encComponent is one component being encoded: its plane and its quantised blocks in
// zig-zag order.
type encComponent struct {
	p      plane
	table  int // 0 luma, 1 chroma
	h, v   int // blocks per MCU across and down
	bx, by int // blocks across and down, whole MCUs
	coef   []int16
	// nz has, per block, bit k set when AC coefficient k (zig-zag) is non-zero, so the
	// symbol counts and the coding visit only those.
	nz []uint64
}

// huffCode is one symbol's code and its length.
type huffCode struct {
	code uint32
	len  uint8
}

type encTable struct {
	counts [17]int // codes of each length
	vals   []byte  // symbols in code order
	codes  [256]huffCode
}

// encodeJPEGPlanes writes y (and cb, cr when not nil, each half of y's size rounded up) as
// a baseline JPEG of quality q to out; spare, when not nil, is a buffer it may use.
func encodeJPEGPlanes(out *bytes.Buffer, y plane, chroma []plane, q int, alloc16 func(int) []int16, spare ...*bytes.Buffer) {
	e := newPlaneEncoder(y, chroma, q, alloc16, func(n int) []uint64 { return make([]uint64, n) })
	if len(spare) > 0 {
		e.spare = spare[0]
	}
	var freq [2][257]int
	e.quantize(0, e.my, &freq)
	e.write(out, freq)
}

// planeEncoder is one encode, in two steps so the first can be shared between goroutines:
// quantize transforms and quantises MCU rows (any disjoint ranges at once) and counts their
// AC symbols; write makes the Huffman tables and writes the file.
type planeEncoder struct {
	y      plane
	comps  []encComponent
	mx, my int
	qt     [2][64]int32
	recip  [2][64]float32 // divisors with the AAN scale folded in, as reciprocals
	tables int
	// spare holds the second restart interval while the first is written; nil means a
	// buffer of its own.
	spare *bytes.Buffer
}

func newPlaneEncoder(y plane, chroma []plane, q int, alloc16 func(int) []int16, alloc64 func(int) []uint64) *planeEncoder {
	e := &planeEncoder{y: y, qt: [2][64]int32{quantTable(&baseQuant[0], q), quantTable(&baseQuant[1], q)}}
	for t := range 2 {
		for i := range 64 {
			e.recip[t][i] = float32(1 / (float64(e.qt[t][i]) * aanScale[i/8] * aanScale[i%8] * 8))
		}
	}
	hmax := 1
	e.tables = 1
	if len(chroma) == 2 {
		hmax, e.tables = 2, 2
	}
	e.mx, e.my = (y.w+8*hmax-1)/(8*hmax), (y.h+8*hmax-1)/(8*hmax)
	e.comps = []encComponent{{p: y, table: 0, h: hmax, v: hmax}}
	for _, c := range chroma {
		e.comps = append(e.comps, encComponent{p: c, table: 1, h: 1, v: 1})
	}
	total := 0
	for ci := range e.comps {
		c := &e.comps[ci]
		c.bx, c.by = e.mx*c.h, e.my*c.v
		total += c.bx * c.by * 64
	}
	coefs := alloc16(total)
	masks := alloc64(total / 64) // every mask is written before it is read
	for ci := range e.comps {
		c := &e.comps[ci]
		c.coef, coefs = coefs[:c.bx*c.by*64], coefs[c.bx*c.by*64:]
		c.nz, masks = masks[:c.bx*c.by], masks[c.bx*c.by:]
	}
	return e
}

// quantize transforms and quantises the blocks of MCU rows r0 to r1 and adds their AC
// symbols to acFreq (per table).
func (e *planeEncoder) quantize(r0, r1 int, acFreq *[2][257]int) {
	var blk [64]float32
	for ci := range e.comps {
		c := &e.comps[ci]
		// The reciprocals in zig-zag order, so the loop below reads both in sequence.
		var rz [64]float32
		for k, z := range zigzag {
			rz[k] = e.recip[c.table][z]
		}
		freq := &acFreq[c.table]
		for by := r0 * c.v; by < r1*c.v; by++ {
			for bx := range c.bx {
				loadBlock(&blk, c.p, bx*8, by*8)
				fdct(&blk)
				b := by*c.bx + bx
				dst := c.coef[b*64:][:64]
				var mask uint64
				for k, z := range zigzag {
					f := blk[z] * rz[k]
					// Round half away from zero, as math.Round does, without the call.
					var v int16
					if f >= 0 {
						v = int16(f + 0.5)
					} else {
						v = -int16(0.5 - f)
					}
					dst[k] = v
					if v != 0 {
						mask |= 1 << k
					}
				}
				mask &^= 1 // the DC coefficient is coded apart
				c.nz[b] = mask
				prev := 0
				for m := mask; m != 0; m &= m - 1 {
					k := bits.TrailingZeros64(m)
					run := k - prev - 1
					for run > 15 {
						freq[0xF0]++
						run -= 16
					}
					freq[run<<4|bitLen(int32(dst[k]))]++
					prev = k
				}
				if prev < 63 {
					freq[0x00]++
				}
			}
		}
	}
}

// splitMCUs is the smallest picture (in MCUs) whose entropy coding is split in two: a
// restart marker halfway lets each half be coded on its own goroutine, for 8 bytes.
const splitMCUs = 256

// write counts the DC symbols, makes the tables from them and acFreq (the sum of every
// quantize call's counts), and writes the file. A picture of splitMCUs or more is coded
// in two restart intervals at once.
func (e *planeEncoder) write(out *bytes.Buffer, acFreq [2][257]int) {
	comps, mx, my := e.comps, e.mx, e.my
	total := mx * my
	ri := 0
	if total >= splitMCUs {
		ri = (total + 1) / 2
	}
	var dcFreq [2][257]int
	pred := [3]int32{}
	walkMCUs(comps, mx, 0, total, func(m int, ci int, b int) {
		if ri > 0 && m == ri && ci == 0 {
			pred = [3]int32{} // a restart resets the predictions
		}
		dcv := int32(comps[ci].coef[b*64])
		diff := dcv - pred[ci]
		pred[ci] = dcv
		dcFreq[comps[ci].table][bitLen(diff)]++
	})
	var dcT, acT [2]encTable
	for t := range e.tables {
		dcT[t] = buildEncTable(&dcFreq[t])
		acT[t] = buildEncTable(&acFreq[t])
	}

	writeHeaders(out, e.y.w, e.y.h, ri, comps, e.qt[:e.tables], dcT[:e.tables], acT[:e.tables])
	if ri == 0 {
		e.entropy(out, 0, total, &dcT, &acT)
	} else {
		second := e.spare
		if second == nil {
			second = new(bytes.Buffer)
		}
		second.Reset()
		done := make(chan struct{})
		go func() {
			defer close(done)
			e.entropy(second, ri, total, &dcT, &acT)
		}()
		e.entropy(out, 0, ri, &dcT, &acT)
		out.Write([]byte{0xFF, 0xD0}) // RST0
		<-done
		out.Write(second.Bytes())
	}
	out.Write([]byte{0xFF, 0xD9})
}

// entropy writes the entropy-coded data of MCUs from to to (one restart interval: the
// predictions start at zero), padded to a whole byte.
func (e *planeEncoder) entropy(out *bytes.Buffer, from, to int, dcT, acT *[2]encTable) {
	var bw bitWriter
	bw.out = out
	pred := [3]int32{}
	walkMCUs(e.comps, e.mx, from, to, func(_ int, ci int, b int) {
		c := &e.comps[ci]
		blk := c.coef[b*64:][:64]
		dc, ac := &dcT[c.table], &acT[c.table]
		diff := int32(blk[0]) - pred[ci]
		pred[ci] = int32(blk[0])
		s := bitLen(diff)
		bw.put(dc.codes[s])
		bw.value(diff, s)
		prev := 0
		for m := c.nz[b]; m != 0; m &= m - 1 {
			k := bits.TrailingZeros64(m)
			run := k - prev - 1
			for run > 15 {
				bw.put(ac.codes[0xF0])
				run -= 16
			}
			v := int32(blk[k])
			s := bitLen(v)
			bw.put(ac.codes[run<<4|s])
			bw.value(v, s)
			prev = k
		}
		if prev < 63 {
			bw.put(ac.codes[0x00])
		}
	})
	bw.flush()
}

// walkMCUs visits the blocks of MCUs from to to in order: each MCU's luma blocks row by
// row, then Cb, Cr; f gets the MCU's number, the component's index and the block's.
func walkMCUs(comps []encComponent, mx, from, to int, f func(m, ci, b int)) {
	for m := from; m < to; m++ {
		x, y := m%mx, m/mx
		for ci := range comps {
			c := &comps[ci]
			for v := range c.v {
				for h := range c.h {
					f(m, ci, (y*c.v+v)*c.bx+x*c.h+h)
				}
			}
		}
	}
}

// loadBlock copies the 8x8 samples at (x0, y0), minus 128, repeating the last row and
// column past the plane's edge (which keeps the padding cheap to code).
func loadBlock(b *[64]float32, p plane, x0, y0 int) {
	for y := range 8 {
		row := p.pix[min(y0+y, p.h-1)*p.stride:]
		if x0+8 <= p.w {
			r := row[x0 : x0+8]
			for x, v := range r {
				b[y*8+x] = float32(v) - 128
			}
			continue
		}
		for x := range 8 {
			b[y*8+x] = float32(row[min(x0+x, p.w-1)]) - 128
		}
	}
}

// bitLen is the JPEG magnitude category of v: the bits of |v|.
func bitLen(v int32) int {
	if v < 0 {
		v = -v
	}
	return bits.Len32(uint32(v))
}

// buildEncTable makes a length-limited Huffman code for the symbol frequencies (T.81
// annex K.2): a reserved symbol 256 with frequency one keeps any real code from being all
// ones, lengths past 16 are folded back, and the reserved code is then dropped.
func buildEncTable(freq *[257]int) encTable {
	var f [257]int
	copy(f[:], freq[:])
	f[256] = 1
	var size [257]int
	others := [257]int{}
	for i := range others {
		others[i] = -1
	}
	for {
		// The two least frequent live entries, v1 the lesser (ties to the larger symbol).
		v1, v2 := -1, -1
		for i := range f {
			if f[i] == 0 {
				continue
			}
			if v1 < 0 || f[i] <= f[v1] {
				v2, v1 = v1, i
			} else if v2 < 0 || f[i] <= f[v2] {
				v2 = i
			}
		}
		if v2 < 0 {
			break
		}
		f[v1] += f[v2]
		f[v2] = 0
		size[v1]++
		for others[v1] >= 0 {
			v1 = others[v1]
			size[v1]++
		}
		others[v1] = v2
		size[v2]++
		for others[v2] >= 0 {
			v2 = others[v2]
			size[v2]++
		}
	}
	var bits [33]int
	for i := range size {
		if size[i] > 0 {
			bits[min(size[i], 32)]++
		}
	}
	for i := 32; i > 16; i-- {
		for bits[i] > 0 {
			j := i - 2
			for bits[j] == 0 {
				j--
			}
			bits[i] -= 2
			bits[i-1]++
			bits[j+1] += 2
			bits[j]--
		}
	}
	i := 16
	for bits[i] == 0 {
		i--
	}
	bits[i]-- // the reserved symbol's code
	var t encTable
	copy(t.counts[1:], bits[1:17])
	// Symbols by code length, then by value.
	var syms []int
	for s := range 256 {
		if size[s] > 0 {
			syms = append(syms, s)
		}
	}
	sort.SliceStable(syms, func(a, b int) bool { return size[syms[a]] < size[syms[b]] })
	for _, s := range syms {
		t.vals = append(t.vals, byte(s))
	}
	code, k := uint32(0), 0
	for l := 1; l <= 16; l++ {
		for range t.counts[l] {
			t.codes[t.vals[k]] = huffCode{code: code, len: uint8(l)}
			code++
			k++
		}
		code <<= 1
	}
	return t
}

func writeHeaders(out *bytes.Buffer, w, h, ri int, comps []encComponent, qt [][64]int32, dc, ac []encTable) {
	out.Write([]byte{0xFF, 0xD8})
	// APP0 JFIF 1.01, no density, no thumbnail: says the three components are YCbCr.
	writeSegment(out, 0xE0, []byte{'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0})
	// DQT: every table, zig-zag order.
	seg := []byte{}
	for t := range qt {
		seg = append(seg, byte(t))
		for _, z := range zigzag {
			seg = append(seg, byte(qt[t][z]))
		}
	}
	writeSegment(out, 0xDB, seg)
	// SOF0: 8-bit, size, components (id, sampling, table).
	seg = []byte{8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), byte(len(comps))}
	for i, c := range comps {
		seg = append(seg, byte(i+1), byte(c.h<<4|c.v), byte(c.table))
	}
	writeSegment(out, 0xC0, seg)
	// DHT: the DC and AC table of each class.
	seg = seg[:0]
	for t := range dc {
		for class, tab := range []*encTable{&dc[t], &ac[t]} {
			seg = append(seg, byte(class<<4|t))
			for l := 1; l <= 16; l++ {
				seg = append(seg, byte(tab.counts[l]))
			}
			seg = append(seg, tab.vals...)
		}
	}
	writeSegment(out, 0xC4, seg)
	if ri > 0 {
		writeSegment(out, 0xDD, []byte{byte(ri >> 8), byte(ri)}) // DRI
	}
	// SOS: all components, full spectrum.
	seg = []byte{byte(len(comps))}
	for i, c := range comps {
		seg = append(seg, byte(i+1), byte(c.table<<4|c.table))
	}
	seg = append(seg, 0, 63, 0)
	writeSegment(out, 0xDA, seg)
}

func writeSegment(out *bytes.Buffer, marker byte, body []byte) {
	n := len(body) + 2
	out.Write([]byte{0xFF, marker, byte(n >> 8), byte(n)})
	out.Write(body)
}

// bitWriter packs codes most significant bit first, stuffing a zero after every 0xFF.
type bitWriter struct {
	out   *bytes.Buffer
	acc   uint64 // pending bits, right-aligned
	nbits uint
}

// bits appends the n bits of v (n <= 16; v has no others). Whole bytes go out four at a time once 32
// bits are pending, so the usual call is a shift and an or.
func (b *bitWriter) bits(v uint32, n uint) {
	b.acc = b.acc<<n | uint64(v)
	b.nbits += n
	if b.nbits >= 32 {
		b.emit32()
	}
}

// emit32 writes the oldest 32 pending bits, stuffing a zero after every 0xFF byte.
func (b *bitWriter) emit32() {
	w := uint32(b.acc >> (b.nbits - 32))
	b.nbits -= 32
	if x := ^w; (x-0x01010101)&^x&0x80808080 == 0 { // no byte is 0xFF
		b.out.Write([]byte{byte(w >> 24), byte(w >> 16), byte(w >> 8), byte(w)})
		return
	}
	for sh := 24; sh >= 0; sh -= 8 {
		c := byte(w >> sh)
		b.out.WriteByte(c)
		if c == 0xFF {
			b.out.WriteByte(0)
		}
	}
}

func (b *bitWriter) put(c huffCode) { b.bits(c.code, uint(c.len)) }

// value writes the s low bits of v as T.81 F.1.2.1 codes them (negative values as v-1).
func (b *bitWriter) value(v int32, s int) {
	if s == 0 {
		return
	}
	if v < 0 {
		v--
	}
	b.bits(uint32(v)&(1<<s-1), uint(s))
}

// flush writes what is pending, the last byte padded with one bits.
func (b *bitWriter) flush() {
	if pad := (8 - b.nbits%8) % 8; pad > 0 {
		b.acc = b.acc<<pad | 1<<pad - 1
		b.nbits += pad
	}
	for b.nbits >= 8 {
		c := byte(b.acc >> (b.nbits - 8))
		b.out.WriteByte(c)
		if c == 0xFF {
			b.out.WriteByte(0)
		}
		b.nbits -= 8
	}
}
