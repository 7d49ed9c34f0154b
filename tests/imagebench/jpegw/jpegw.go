// Package jpegw writes JPEG files in the shapes real encoders produce, for tests and
// benchmarks: any sampling factors, restart intervals, one interleaved scan or one scan per
// component, and progressive files with spectral selection and successive approximation
// (libjpeg's default script or any other). The standard library's encoder writes only
// baseline 4:2:0 or greyscale; the app's decoder must be checked against the rest, and the
// benchmarks need 4:4:4 and progressive photos. Huffman tables are fitted to each scan.
//
// It is test code: clear rather than fast (a 12-megapixel photo takes a few seconds).
package jpegw

import (
	"bytes"
	"fmt"
	"math"
	"sort"
)

// Scan is one scan: the components it holds (indices into the frame's), the band of
// zig-zag coefficients Ss..Se, and the successive-approximation bit positions Ah, Al.
type Scan struct {
	Comps          []int
	Ss, Se, Ah, Al int
}

// Options says what kind of file to write.
type Options struct {
	// Quality scales the tables of ITU T.81 annex K as the IJG encoders do (1..100).
	Quality int
	// Sampling holds each component's horizontal and vertical sampling factors; one
	// component is greyscale. Nil means 2x2,1x1,1x1 (4:2:0).
	Sampling [][2]int
	// Restart is the restart interval in MCUs; 0 writes no restart markers.
	Restart int
	// Progressive writes a progressive frame (SOF2) with Scans (ProgressiveScript when nil).
	Progressive bool
	// Scans lists the scans of a sequential file; nil is one scan of every component.
	Scans []Scan
	// Segments are whole marker segments (0xFF, marker, length, body) written right after
	// the start-of-image marker, e.g. APP1 EXIF.
	Segments [][]byte
}

// ProgressiveScript is libjpeg's default progression (jpeg_simple_progression) for n
// components (1 or 3): the DC coefficients first at half precision, then the low luma
// band, the chroma, the rest of luma, and the refinement scans.
func ProgressiveScript(n int) []Scan {
	if n == 1 {
		return []Scan{
			{Comps: []int{0}, Ss: 0, Se: 0, Ah: 0, Al: 1},
			{Comps: []int{0}, Ss: 1, Se: 5, Ah: 0, Al: 2},
			{Comps: []int{0}, Ss: 6, Se: 63, Ah: 0, Al: 2},
			{Comps: []int{0}, Ss: 1, Se: 63, Ah: 2, Al: 1},
			{Comps: []int{0}, Ss: 0, Se: 0, Ah: 1, Al: 0},
			{Comps: []int{0}, Ss: 1, Se: 63, Ah: 1, Al: 0},
		}
	}
	return []Scan{
		{Comps: []int{0, 1, 2}, Ss: 0, Se: 0, Ah: 0, Al: 1},
		{Comps: []int{0}, Ss: 1, Se: 5, Ah: 0, Al: 2},
		{Comps: []int{2}, Ss: 1, Se: 63, Ah: 0, Al: 1},
		{Comps: []int{1}, Ss: 1, Se: 63, Ah: 0, Al: 1},
		{Comps: []int{0}, Ss: 6, Se: 63, Ah: 0, Al: 2},
		{Comps: []int{0}, Ss: 1, Se: 63, Ah: 2, Al: 1},
		{Comps: []int{0, 1, 2}, Ss: 0, Se: 0, Ah: 1, Al: 0},
		{Comps: []int{2}, Ss: 1, Se: 63, Ah: 1, Al: 0},
		{Comps: []int{1}, Ss: 1, Se: 63, Ah: 1, Al: 0},
		{Comps: []int{0}, Ss: 1, Se: 63, Ah: 1, Al: 0},
	}
}

// SpectralScript is a progression without successive approximation (what some phone and
// web encoders write): DC, then each component's AC in two bands.
func SpectralScript(n int) []Scan {
	all := []int{0}
	if n == 3 {
		all = []int{0, 1, 2}
	}
	s := []Scan{{Comps: all, Ss: 0, Se: 0}}
	for c := range n {
		s = append(s, Scan{Comps: []int{c}, Ss: 1, Se: 9}, Scan{Comps: []int{c}, Ss: 10, Se: 63})
	}
	return s
}

var zigzag = [64]int{
	0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
	12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
	35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
	58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
}

var annexK = [2][64]int{{
	16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
	14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
	18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
	49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
}, {
	17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
	24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
	99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
}}

type component struct {
	h, v   int
	w, hgt int       // sampled size
	bx, by int       // blocks across and down, padded to whole MCUs
	blocks [][64]int // quantised, zig-zag order
	class  int       // 0 luma, 1 chroma: quantisation and Huffman table
}

// Encode writes the w x h image whose full-resolution planes are given (Y alone, or Y, Cb,
// Cr) as a JPEG shaped by o.
func Encode(planes [][]byte, w, h int, o Options) ([]byte, error) {
	sampling := o.Sampling
	if sampling == nil {
		sampling = [][2]int{{2, 2}, {1, 1}, {1, 1}}
		if len(planes) == 1 {
			sampling = [][2]int{{1, 1}}
		}
	}
	if len(sampling) != len(planes) || (len(planes) != 1 && len(planes) != 3) {
		return nil, fmt.Errorf("jpegw: %d planes with %d sampling factors", len(planes), len(sampling))
	}
	if w < 1 || h < 1 || w > 65535 || h > 65535 {
		return nil, fmt.Errorf("jpegw: size %dx%d", w, h)
	}
	q := o.Quality
	if q == 0 {
		q = 90
	}
	var qt [2][64]int // natural order
	for t := range 2 {
		scale := 200 - 2*q
		if q < 50 {
			scale = 5000 / q
		}
		for i, b := range annexK[t] {
			qt[t][i] = min(max((b*scale+50)/100, 1), 255)
		}
	}
	hmax, vmax := 1, 1
	for _, s := range sampling {
		if s[0] < 1 || s[0] > 4 || s[1] < 1 || s[1] > 4 {
			return nil, fmt.Errorf("jpegw: sampling %v", s)
		}
		hmax, vmax = max(hmax, s[0]), max(vmax, s[1])
	}
	mx, my := (w+8*hmax-1)/(8*hmax), (h+8*vmax-1)/(8*vmax)
	comps := make([]component, len(planes))
	for i, p := range planes {
		c := &comps[i]
		c.h, c.v = sampling[i][0], sampling[i][1]
		if i > 0 {
			c.class = 1
		}
		c.w, c.hgt = (w*c.h+hmax-1)/hmax, (h*c.v+vmax-1)/vmax
		c.bx, c.by = mx*c.h, my*c.v
		if len(planes) == 1 {
			c.bx, c.by = (c.w+7)/8, (c.hgt+7)/8
		}
		// Box-filter down to the component's size: each sample averages the fx x fy
		// full-resolution samples it covers (edges clamped).
		fx, fy := hmax/c.h, vmax/c.v
		if hmax%c.h != 0 || vmax%c.v != 0 {
			return nil, fmt.Errorf("jpegw: sampling %v does not divide %dx%d", sampling[i], hmax, vmax)
		}
		sampled := make([]float64, c.w*c.hgt)
		for y := range c.hgt {
			for x := range c.w {
				var s float64
				for dy := range fy {
					for dx := range fx {
						sx, sy := min(x*fx+dx, w-1), min(y*fy+dy, h-1)
						s += float64(p[sy*w+sx])
					}
				}
				sampled[y*c.w+x] = s / float64(fx*fy)
			}
		}
		c.blocks = make([][64]int, c.bx*c.by)
		var blk [64]float64
		for by := range c.by {
			for bx := range c.bx {
				for y := range 8 {
					for x := range 8 {
						sx, sy := min(bx*8+x, c.w-1), min(by*8+y, c.hgt-1)
						blk[y*8+x] = sampled[sy*c.w+sx] - 128
					}
				}
				coef := fdct(&blk)
				out := &c.blocks[by*c.bx+bx]
				for k, z := range zigzag {
					out[k] = int(math.Round(coef[z] / float64(qt[c.class][z])))
				}
			}
		}
	}
	scans := o.Scans
	if o.Progressive && scans == nil {
		scans = ProgressiveScript(len(planes))
	}
	if scans == nil {
		all := make([]int, len(planes))
		for i := range all {
			all[i] = i
		}
		scans = []Scan{{Comps: all, Ss: 0, Se: 63}}
	}

	var out bytes.Buffer
	out.Write([]byte{0xFF, 0xD8})
	for _, s := range o.Segments {
		out.Write(s)
	}
	seg := []byte{}
	for t := range min(len(planes), 2) {
		seg = append(seg, byte(t))
		for _, z := range zigzag {
			seg = append(seg, byte(qt[t][z]))
		}
	}
	segment(&out, 0xDB, seg)
	sof := byte(0xC0)
	if o.Progressive {
		sof = 0xC2
	}
	seg = []byte{8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), byte(len(planes))}
	for i, c := range comps {
		seg = append(seg, byte(i+1), byte(c.h<<4|c.v), byte(c.class))
	}
	segment(&out, sof, seg)
	if o.Restart > 0 {
		segment(&out, 0xDD, []byte{byte(o.Restart >> 8), byte(o.Restart)})
	}
	for _, s := range scans {
		if err := writeScan(&out, comps, s, mx, my, o.Restart); err != nil {
			return nil, err
		}
	}
	out.Write([]byte{0xFF, 0xD9})
	return out.Bytes(), nil
}

// dctBasis[u][x] is C(u)/2 * cos((2x+1)u*pi/16), the 1-D DCT-II basis of T.81 A.3.3.
var dctBasis = func() (t [8][8]float64) {
	for u := range 8 {
		c := 1.0
		if u == 0 {
			c = 1 / math.Sqrt2
		}
		for x := range 8 {
			t[u][x] = c / 2 * math.Cos(float64((2*x+1)*u)*math.Pi/16)
		}
	}
	return t
}()

// fdct is the textbook 2-D DCT-II, separable, in float64; out is in natural order.
func fdct(b *[64]float64) (out [64]float64) {
	var tmp [64]float64
	for y := range 8 {
		for u := range 8 {
			var s float64
			for x := range 8 {
				s += b[y*8+x] * dctBasis[u][x]
			}
			tmp[y*8+u] = s
		}
	}
	for v := range 8 {
		for u := range 8 {
			var s float64
			for y := range 8 {
				s += tmp[y*8+u] * dctBasis[v][y]
			}
			out[v*8+u] = s
		}
	}
	return out
}

func segment(out *bytes.Buffer, marker byte, body []byte) {
	n := len(body) + 2
	out.Write([]byte{0xFF, marker, byte(n >> 8), byte(n)})
	out.Write(body)
}

// sink receives a scan's output: in the first pass it only counts symbols, in the second
// it writes them with the tables made from the counts.
type sink struct {
	counting bool
	freq     [2][2][257]int // [dc/ac][class]
	codes    [2][2][256]code
	buf      *bytes.Buffer
	acc      uint64
	nbits    uint
}

type code struct {
	bits uint32
	n    uint8
}

func (s *sink) symbol(ac, class int, sym int) {
	if s.counting {
		s.freq[ac][class][sym]++
		return
	}
	c := s.codes[ac][class][sym]
	if c.n == 0 {
		panic(fmt.Sprintf("jpegw: symbol %#x has no code", sym))
	}
	s.raw(c.bits, uint(c.n))
}

func (s *sink) raw(v uint32, n uint) {
	if s.counting || n == 0 {
		return
	}
	s.acc = s.acc<<n | uint64(v)&(1<<n-1)
	s.nbits += n
	for s.nbits >= 8 {
		b := byte(s.acc >> (s.nbits - 8))
		s.buf.WriteByte(b)
		if b == 0xFF {
			s.buf.WriteByte(0)
		}
		s.nbits -= 8
	}
}

// pad fills the last byte with one bits.
func (s *sink) pad() {
	if !s.counting && s.nbits > 0 {
		s.raw(0x7F, 8-s.nbits)
	}
}

func bitLen(v int) int {
	if v < 0 {
		v = -v
	}
	n := 0
	for v > 0 {
		n++
		v >>= 1
	}
	return n
}

// value writes v's magnitude category bits as T.81 F.1.2.1 codes them.
func (s *sink) value(v int, n int) {
	if v < 0 {
		v--
	}
	s.raw(uint32(v), uint(n))
}

// scanState is the per-scan coding state: DC predictions and the end-of-band run with its
// pending correction bits.
type scanState struct {
	pred   [3]int
	eobrun int
	class  int // class of the component of an AC scan
	corr   []byte
}

func (st *scanState) flushEOB(s *sink) {
	if st.eobrun == 0 {
		return
	}
	n := bitLen(st.eobrun) - 1
	s.symbol(1, st.class, n<<4)
	s.raw(uint32(st.eobrun), uint(n))
	for _, b := range st.corr {
		s.raw(uint32(b), 1)
	}
	st.eobrun, st.corr = 0, st.corr[:0]
}

func writeScan(out *bytes.Buffer, comps []component, sc Scan, mx, my, restart int) error {
	if len(sc.Comps) == 0 || len(sc.Comps) > 4 || sc.Ss > sc.Se || sc.Se > 63 || (sc.Ss == 0 && sc.Se > 0 && (sc.Ah != 0 || sc.Al != 0)) {
		return fmt.Errorf("jpegw: bad scan %+v", sc)
	}
	if sc.Ss > 0 && len(sc.Comps) != 1 {
		return fmt.Errorf("jpegw: an AC scan holds one component, got %+v", sc)
	}
	// The blocks of the scan in coding order.
	type ref struct{ c, i int }
	var units [][]ref // one entry per MCU
	if len(sc.Comps) == 1 {
		c := &comps[sc.Comps[0]]
		bw, bh := (c.w+7)/8, (c.hgt+7)/8
		for y := range bh {
			for x := range bw {
				units = append(units, []ref{{sc.Comps[0], y*c.bx + x}})
			}
		}
	} else {
		for y := range my {
			for x := range mx {
				var u []ref
				for _, ci := range sc.Comps {
					c := &comps[ci]
					for v := range c.v {
						for h := range c.h {
							u = append(u, ref{ci, (y*c.v+v)*c.bx + x*c.h + h})
						}
					}
				}
				units = append(units, u)
			}
		}
	}
	s := &sink{counting: true, buf: out}
	run := func() {
		st := &scanState{class: comps[sc.Comps[0]].class}
		for n, u := range units {
			if restart > 0 && n > 0 && n%restart == 0 {
				st.flushEOB(s)
				s.pad()
				if !s.counting {
					out.Write([]byte{0xFF, byte(0xD0 + (n/restart-1)%8)})
				}
				st.pred = [3]int{}
			}
			for _, r := range u {
				blk := &comps[r.c].blocks[r.i]
				class := comps[r.c].class
				switch {
				case sc.Ss == 0 && sc.Ah == 0: // DC first (and the DC of a sequential scan)
					v := blk[0] >> sc.Al
					d := v - st.pred[r.c]
					st.pred[r.c] = v
					n := bitLen(d)
					s.symbol(0, class, n)
					s.value(d, n)
					if sc.Se > 0 {
						acSequential(s, class, blk[1:sc.Se+1])
					}
				case sc.Ss == 0: // DC refinement: one raw bit
					s.raw(uint32(blk[0]>>sc.Al)&1, 1)
				case sc.Ah == 0:
					acFirst(s, st, blk, sc)
				default:
					acRefine(s, st, blk, sc)
				}
			}
		}
		st.flushEOB(s)
		s.pad()
	}
	run()
	// Tables from the counts, written before the scan that uses them.
	var dht []byte
	var used [2][2]bool
	for _, ci := range sc.Comps {
		cl := comps[ci].class
		if sc.Ss == 0 && sc.Ah == 0 {
			used[0][cl] = true
		}
		if sc.Se > 0 {
			used[1][cl] = true
		}
	}
	for ac := range 2 {
		for cl := range 2 {
			if !used[ac][cl] {
				continue
			}
			counts, vals := huffman(&s.freq[ac][cl])
			dht = append(dht, byte(ac<<4|cl))
			dht = append(dht, counts[1:]...)
			dht = append(dht, vals...)
			c, k := uint32(0), 0
			for l := 1; l <= 16; l++ {
				for range int(counts[l]) {
					s.codes[ac][cl][vals[k]] = code{c, uint8(l)}
					c++
					k++
				}
				c <<= 1
			}
		}
	}
	if len(dht) > 0 {
		segment(out, 0xC4, dht)
	}
	sos := []byte{byte(len(sc.Comps))}
	for _, ci := range sc.Comps {
		cl := byte(comps[ci].class)
		sos = append(sos, byte(ci+1), cl<<4|cl)
	}
	sos = append(sos, byte(sc.Ss), byte(sc.Se), byte(sc.Ah<<4|sc.Al))
	segment(out, 0xDA, sos)
	s.counting = false
	run()
	return nil
}

// acSequential codes the AC coefficients of a sequential scan.
func acSequential(s *sink, class int, ac []int) {
	run := 0
	for _, v := range ac {
		if v == 0 {
			run++
			continue
		}
		for run > 15 {
			s.symbol(1, class, 0xF0)
			run -= 16
		}
		n := bitLen(v)
		s.symbol(1, class, run<<4|n)
		s.value(v, n)
		run = 0
	}
	if run > 0 {
		s.symbol(1, class, 0)
	}
}

// shifted is the point transform of an AC coefficient: divided by 2^al toward zero.
func shifted(v, al int) int {
	if v < 0 {
		return -((-v) >> al)
	}
	return v >> al
}

func acFirst(s *sink, st *scanState, blk *[64]int, sc Scan) {
	run := 0
	for k := sc.Ss; k <= sc.Se; k++ {
		v := shifted(blk[k], sc.Al)
		if v == 0 {
			run++
			continue
		}
		st.flushEOB(s)
		for run > 15 {
			s.symbol(1, st.class, 0xF0)
			run -= 16
		}
		n := bitLen(v)
		s.symbol(1, st.class, run<<4|n)
		s.value(v, n)
		run = 0
	}
	if run > 0 {
		st.eobrun++
		if st.eobrun == 0x7FFF {
			st.flushEOB(s)
		}
	}
}

// acRefine codes one more bit of each coefficient of the band (T.81 G.1.2.3): a coefficient
// that becomes non-zero is coded with its zero run (counting only coefficients still zero)
// and sign, and each one already non-zero gets a correction bit, sent after the next
// symbol that passes it, or with the end-of-band run.
func acRefine(s *sink, st *scanState, blk *[64]int, sc Scan) {
	var abs [64]int
	eob := 0 // last coefficient that becomes non-zero in this scan
	for k := sc.Ss; k <= sc.Se; k++ {
		a := blk[k]
		if a < 0 {
			a = -a
		}
		abs[k] = a >> sc.Al
		if abs[k] == 1 {
			eob = k
		}
	}
	run := 0
	var pending []byte
	for k := sc.Ss; k <= sc.Se; k++ {
		a := abs[k]
		if a == 0 {
			run++
			continue
		}
		for run > 15 && k <= eob {
			st.flushEOB(s)
			s.symbol(1, st.class, 0xF0)
			run -= 16
			for _, b := range pending {
				s.raw(uint32(b), 1)
			}
			pending = pending[:0]
		}
		if a > 1 {
			pending = append(pending, byte(a&1))
			continue
		}
		st.flushEOB(s)
		s.symbol(1, st.class, run<<4|1)
		sign := uint32(1)
		if blk[k] < 0 {
			sign = 0
		}
		s.raw(sign, 1)
		for _, b := range pending {
			s.raw(uint32(b), 1)
		}
		pending = pending[:0]
		run = 0
	}
	if run > 0 || len(pending) > 0 {
		st.eobrun++
		st.corr = append(st.corr, pending...)
		if st.eobrun == 0x7FFF || len(st.corr) > 937 {
			st.flushEOB(s)
		}
	}
}

// huffman returns the code-length counts (index 1..16) and the symbols in code order for
// the frequencies, limited to 16 bits (T.81 K.2), with no code of all ones.
func huffman(freq *[257]int) ([17]byte, []byte) {
	type node struct {
		f    int
		syms []int
	}
	var nodes []node
	if *freq == ([257]int{}) {
		freq = &[257]int{1} // a table must have a code; this one is never used
	}
	for sym, f := range freq[:256] {
		if f > 0 {
			nodes = append(nodes, node{f, []int{sym}})
		}
	}
	nodes = append(nodes, node{1, []int{256}}) // reserved: keeps the all-ones code unused
	length := make(map[int]int)
	for len(nodes) > 1 {
		sort.SliceStable(nodes, func(a, b int) bool { return nodes[a].f < nodes[b].f })
		a, b := nodes[0], nodes[1]
		for _, sym := range a.syms {
			length[sym]++
		}
		for _, sym := range b.syms {
			length[sym]++
		}
		nodes = append([]node{{a.f + b.f, append(append([]int{}, a.syms...), b.syms...)}}, nodes[2:]...)
	}
	var bits [64]int
	for _, l := range length {
		bits[l]++
	}
	for i := 63; i > 16; i-- {
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
	bits[i]-- // drop the reserved symbol's code, the longest
	var counts [17]byte
	for l := 1; l <= 16; l++ {
		counts[l] = byte(bits[l])
	}
	// Symbols by their original length (shortest first), ties by value; the reserved one,
	// among the longest, is left out.
	var syms []int
	for sym := range 256 {
		if length[sym] > 0 {
			syms = append(syms, sym)
		}
	}
	sort.SliceStable(syms, func(a, b int) bool { return length[syms[a]] < length[syms[b]] })
	vals := make([]byte, len(syms))
	for k, sym := range syms {
		vals[k] = byte(sym)
	}
	return counts, vals
}
