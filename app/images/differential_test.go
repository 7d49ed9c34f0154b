package images

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/tests/imagebench/jpegw"
)

// The hand-written decoder is checked against image/jpeg on a corpus of the shapes real
// files take. At full scale (8/8) every sample of every plane must be within fullScaleBound
// of image/jpeg's, and the mean difference within fullScaleMean: the two inverse DCTs
// round differently (both are integer transforms of the same coefficients), nothing else
// may differ. Planes are compared as decoded, before any chroma upsampling.
const (
	fullScaleBound = 1
	fullScaleMean  = 0.1
)

// corpusFile is one file of the corpus. twin, when set, is a sequential file with the same
// coefficients (jpegtran's lossless transcode, or jpegw without the progression): what a
// file image/jpeg cannot read must decode to.
type corpusFile struct {
	name string
	data []byte
	twin []byte
}

// committedCorpus is the files written by real encoders (cjpeg and jpegtran from
// libjpeg-turbo; testdata/README says how): 4:2:0, 4:2:2, 4:4:0, 4:4:4, 4:1:1, 4:1:0 and a
// mixed layout, greyscale, restart intervals, optimised tables, progressive (with restart
// markers, greyscale, 4:2:2), and the two the fast decoder leaves (RGB, arithmetic).
func committedCorpus(t *testing.T) []corpusFile {
	t.Helper()
	names, err := filepath.Glob("testdata/*.jpg")
	if err != nil || len(names) < 14 {
		t.Fatalf("want the committed JPEG corpus, found %d files (%v)", len(names), err)
	}
	var out []corpusFile
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, corpusFile{name: filepath.Base(n), data: b})
	}
	for i, f := range out {
		if f.name == "progressive-restart.jpg" {
			twin, err := os.ReadFile("testdata/progressive-restart-sequential.jpg")
			if err != nil {
				t.Fatal(err)
			}
			out[i].twin = twin
		}
	}
	return out
}

// testPlanes is a picture with gradients, hard edges and fine texture in every plane, at
// full resolution, for jpegw.
func testPlanes(w, h int) [][]byte {
	p := [][]byte{make([]byte, w*h), make([]byte, w*h), make([]byte, w*h)}
	for y := range h {
		for x := range w {
			i := y*w + x
			p[0][i] = byte(x*5 + y*3 + (x*y)%17*4)
			if (x/9+y/7)%2 == 0 {
				p[0][i] = byte(40 + x%50)
			}
			p[1][i] = byte(128 + 70*math.Sin(float64(x)/9+float64(y)/31))
			p[2][i] = byte(128 + 70*math.Cos(float64(y)/7-float64(x)/23))
		}
	}
	return p
}

// samplings are the chroma layouts the generated corpus covers: every one image/jpeg
// reads, and two it does not (Y 2x2 with chroma 1x2; Y 3x1), which the fast decoder reads.
var samplings = map[string][][2]int{
	"444":     {{1, 1}, {1, 1}, {1, 1}},
	"422":     {{2, 1}, {1, 1}, {1, 1}},
	"420":     {{2, 2}, {1, 1}, {1, 1}},
	"440":     {{1, 2}, {1, 1}, {1, 1}},
	"411":     {{4, 1}, {1, 1}, {1, 1}},
	"410":     {{4, 2}, {1, 1}, {1, 1}},
	"2x2-1x2": {{2, 2}, {1, 2}, {1, 2}},
	"3x1":     {{3, 1}, {1, 1}, {1, 1}},
}

// generatedCorpus is written by jpegw at odd sizes (one pixel, less than a block, no
// multiple of any MCU): every sampling above as baseline, with restart intervals of one
// MCU and of an odd count, as one scan per component, progressive (libjpeg's script, with
// successive approximation) and spectral-selection-only progressive; greyscale too.
func generatedCorpus(t *testing.T) []corpusFile {
	t.Helper()
	var out []corpusFile
	add := func(name string, planes [][]byte, w, h int, o jpegw.Options) {
		b, err := jpegw.Encode(planes, w, h, o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		seq := jpegw.Options{Sampling: o.Sampling}
		twin, err := jpegw.Encode(planes, w, h, seq)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, corpusFile{name: name, data: b, twin: twin})
	}
	for _, sz := range [][2]int{{1, 1}, {7, 3}, {17, 9}, {61, 47}} {
		w, h := sz[0], sz[1]
		p := testPlanes(w, h)
		for sname, smp := range samplings {
			base := fmt.Sprintf("%dx%d-%s", w, h, sname)
			add(base, p, w, h, jpegw.Options{Sampling: smp})
			add(base+"-restart1", p, w, h, jpegw.Options{Sampling: smp, Restart: 1})
			add(base+"-restart3", p, w, h, jpegw.Options{Sampling: smp, Restart: 3})
			add(base+"-multiscan", p, w, h, jpegw.Options{Sampling: smp,
				Scans: []jpegw.Scan{{Comps: []int{2}, Se: 63}, {Comps: []int{0}, Se: 63}, {Comps: []int{1}, Se: 63}}})
			add(base+"-progressive", p, w, h, jpegw.Options{Sampling: smp, Progressive: true})
			add(base+"-progressive-restart2", p, w, h, jpegw.Options{Sampling: smp, Progressive: true, Restart: 2})
			add(base+"-spectral", p, w, h, jpegw.Options{Sampling: smp, Progressive: true, Scans: jpegw.SpectralScript(3)})
		}
		add(fmt.Sprintf("%dx%d-grey", w, h), p[:1], w, h, jpegw.Options{})
		add(fmt.Sprintf("%dx%d-grey-restart2", w, h), p[:1], w, h, jpegw.Options{Restart: 2})
		add(fmt.Sprintf("%dx%d-grey-progressive", w, h), p[:1], w, h, jpegw.Options{Progressive: true})
	}
	return out
}

// planeDiff is the largest and the mean absolute difference of two sets of planes, or an
// error when their shapes differ.
func planeDiff(got, want []plane) (worst int, mean float64, err error) {
	if len(got) != len(want) {
		return 0, 0, fmt.Errorf("%d planes, want %d", len(got), len(want))
	}
	sum, n := 0, 0
	for i := range want {
		g, w := got[i], want[i]
		if g.w != w.w || g.h != w.h {
			return 0, 0, fmt.Errorf("plane %d is %dx%d, want %dx%d", i, g.w, g.h, w.w, w.h)
		}
		for y := range w.h {
			for x := range w.w {
				d := int(g.pix[y*g.stride+x]) - int(w.pix[y*w.stride+x])
				worst = max(worst, d, -d)
				sum += max(d, -d)
				n++
			}
		}
	}
	return worst, float64(sum) / float64(n), nil
}

func heapAlloc(n int) []byte { return make([]byte, n) }

// standardPlanes decodes with image/jpeg; ok is false when it refuses the file or decodes
// it into a layout that has no planes to compare (an RGB or CMYK image).
func standardPlanes(data []byte) ([]plane, bool) {
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, false
	}
	switch m := img.(type) {
	case *image.Gray:
		return planesOf(m, heapAlloc), true
	case *image.YCbCr:
		if _, _, ok := chromaSize(m); ok {
			return planesOf(m, heapAlloc), true
		}
	}
	return nil, false
}

// Every file image/jpeg reads as Y, Cb, Cr (or grey) planes, the fast decoder reads too
// (or leaves to image/jpeg on purpose: RGB) and matches within the bound at full scale.
// Some files image/jpeg refuses are read on purpose: progressive files with restart
// markers (libjpeg and browsers read them; image/jpeg reports a missing 0xFF00), which
// must decode exactly as their sequential twin, and layouts image/jpeg lacks (chroma 1x2
// under luma 2x2, luma 3x1), whose luma must be exactly that of the same picture at 4:4:4.
func TestFastDecoderMatchesStandardLibraryOnTheCorpus(t *testing.T) {
	corpus := append(committedCorpus(t), generatedCorpus(t)...)
	generated := map[string][]byte{}
	for _, f := range corpus {
		generated[f.name] = f.data
	}
	worstSeen, compared, twins, layouts := 0, 0, 0, 0
	for _, f := range corpus {
		want, stdOK := standardPlanes(f.data)
		hdr, hdrErr := readJPEGHeader(f.data)
		got, _, err := decodeJPEGScaled(f.data, 8, heapAlloc)
		fastOK := hdrErr == nil && hdr.fast && err == nil
		switch {
		case stdOK && fastOK:
			worst, mean, derr := planeDiff(got, want)
			if derr != nil {
				t.Errorf("%s: %v", f.name, derr)
				continue
			}
			if worst > fullScaleBound || mean > fullScaleMean {
				t.Errorf("%s: differs from image/jpeg by up to %d (mean %.3f), bound %d (mean %.2f)", f.name, worst, mean, fullScaleBound, fullScaleMean)
			}
			worstSeen = max(worstSeen, worst)
			compared++
		case stdOK:
			// Left to image/jpeg: only on purpose (errFallback), never because the fast
			// decoder failed on a file image/jpeg reads.
			if hdrErr != nil || (hdr.fast && err != nil) {
				t.Errorf("%s: image/jpeg reads it, the fast decoder fails: header %v, decode %v", f.name, hdrErr, err)
			}
		case fastOK && strings.Contains(f.name, "progressive-restart"):
			if f.twin == nil {
				t.Fatalf("%s has no sequential twin", f.name)
			}
			twin, _, err := decodeJPEGScaled(f.twin, 8, heapAlloc)
			if worst, _, derr := planeDiff(got, twin); err != nil || derr != nil || worst != 0 {
				t.Errorf("%s: differs from its sequential twin by %d (%v, %v)", f.name, worst, err, derr)
			}
			twins++
		case fastOK && (strings.Contains(f.name, "2x2-1x2") || strings.Contains(f.name, "3x1")):
			base := strings.Replace(strings.Replace(f.name, "2x2-1x2", "444", 1), "3x1", "444", 1)
			other, ok := generated[base]
			if !ok {
				t.Fatalf("%s: no 4:4:4 file %s", f.name, base)
			}
			luma, _, err := decodeJPEGScaled(other, 8, heapAlloc)
			if worst, _, derr := planeDiff(got[:1], luma[:1]); err != nil || derr != nil || worst != 0 {
				t.Errorf("%s: luma differs from %s's by %d (%v, %v)", f.name, base, worst, err, derr)
			}
			layouts++
		case fastOK && f.name == "sampled-mixed.jpg":
			// cjpeg from the same picture at the same quality: luma within JPEG's error of
			// the 4:4:4 file's.
			other, _ := standardPlanes(generated["optimized-444.jpg"])
			if _, mean, derr := planeDiff(got[:1], other[:1]); derr != nil || mean > 1 {
				t.Errorf("%s: luma differs from optimized-444.jpg's by %.2f on average (%v)", f.name, mean, derr)
			}
			layouts++
		case fastOK:
			t.Errorf("%s: the fast decoder reads a file image/jpeg refuses", f.name)
		}
	}
	if compared < 200 || twins < 10 || layouts < 8 {
		t.Fatalf("compared %d files with image/jpeg, %d with their twins, %d other layouts", compared, twins, layouts)
	}
	t.Logf("%d of %d files compared with image/jpeg at full scale (largest difference %d), %d progressive files with restart markers with their sequential twins, %d layouts image/jpeg lacks", compared, len(corpus), worstSeen, twins, layouts)
}

// The same coefficients in other scans (progressive with successive approximation,
// spectral selection, one scan per component, restart markers) must decode to exactly the
// same samples at every scale: what the reduced scales keep of a progressive file,
// including the bit per dropped coefficient its refinement scans need, is what a
// sequential file gives.
func TestEveryScanLayoutDecodesLikeTheSequentialFileAtEveryScale(t *testing.T) {
	const w, h = 61, 47
	p := testPlanes(w, h)
	for sname, smp := range samplings {
		ref, err := jpegw.Encode(p, w, h, jpegw.Options{Sampling: smp})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []jpegw.Options{
			{Sampling: smp, Progressive: true},
			{Sampling: smp, Progressive: true, Restart: 3},
			{Sampling: smp, Progressive: true, Scans: jpegw.SpectralScript(3)},
			{Sampling: smp, Scans: []jpegw.Scan{{Comps: []int{1}, Se: 63}, {Comps: []int{0, 2}, Se: 63}}},
			{Sampling: smp, Restart: 1},
		} {
			other, err := jpegw.Encode(p, w, h, o)
			if err != nil {
				t.Fatal(err)
			}
			for n := 1; n <= 8; n++ {
				want, _, err1 := decodeJPEGScaled(ref, n, heapAlloc)
				got, _, err2 := decodeJPEGScaled(other, n, heapAlloc)
				if err1 != nil || err2 != nil {
					t.Fatalf("%s %+v n=%d: %v, %v", sname, o, n, err1, err2)
				}
				if worst, _, err := planeDiff(got, want); err != nil || worst != 0 {
					t.Errorf("%s progressive=%v restart=%d scans=%d, n=%d: differs from the sequential file by %d (%v)",
						sname, o.Progressive, o.Restart, len(o.Scans), n, worst, err)
				}
			}
		}
	}
}

// Cut short anywhere, a file is refused by both decoders, and by Optimize as damaged; the
// fast decoder accepts a cut file only when no more than the end-of-image marker is
// missing (as libjpeg and browsers do), never with a picture image/jpeg would not give.
func TestTruncatedFilesAreRefused(t *testing.T) {
	files := []corpusFile{}
	for _, f := range committedCorpus(t) {
		switch f.name {
		case "restart-420.jpg", "progressive.jpg", "progressive-restart.jpg", "gray.jpg", "sampled-411.jpg":
			files = append(files, f)
		}
	}
	p := testPlanes(61, 47)
	prog, _ := jpegw.Encode(p, 61, 47, jpegw.Options{Progressive: true, Sampling: samplings["444"]})
	files = append(files, corpusFile{name: "generated-progressive-444", data: prog})
	o := Optimizer{MaxPixels: 1 << 20}
	for _, f := range files {
		// Cuts everywhere in the headers, thinning out in the data, and right after every
		// 0xFF in the data (a stuffed 0xFF 0x00 cut in two, which once read as zero bits).
		var cuts []int
		for cut := 0; cut < len(f.data)-2; cut += 1 + cut/12 {
			cuts = append(cuts, cut)
		}
		for i := bytes.Index(f.data, []byte{0xFF, 0xDA}) + 2; i < len(f.data)-2; i++ {
			if f.data[i] == 0xFF {
				cuts = append(cuts, i+1)
			}
		}
		for _, cut := range cuts {
			data := f.data[:cut]
			got, _, fastErr := decodeJPEGScaled(data, 8, heapAlloc)
			_, stdErr := jpeg.Decode(bytes.NewReader(data))
			if stdErr == nil {
				t.Fatalf("%s cut at %d: image/jpeg decoded it", f.name, cut)
			}
			if fastErr == nil {
				want, _ := standardPlanes(f.data)
				if worst, _, err := planeDiff(got, want); err != nil || worst > fullScaleBound {
					t.Errorf("%s cut at %d of %d: the fast decoder made a picture unlike the whole file's (%v, %d)", f.name, cut, len(f.data), err, worst)
				}
			}
			if _, err := o.Optimize(data); !errors.Is(err, ErrCorrupt) && !(cut < 4 && errors.Is(err, ErrUnsupportedFormat)) {
				t.Errorf("%s cut at %d: Optimize gave %v, want ErrCorrupt", f.name, cut, err)
			}
		}
	}
}

// Damaged bytes anywhere (one byte changed at a time: every byte of the headers, every
// seventh of the data) never panic either decoder path; whatever the fast decoder makes of
// them has the header's size, and Optimize gives a picture or a documented error.
func TestCorruptFilesNeverPanicAndKeepTheirSize(t *testing.T) {
	p := testPlanes(33, 21)
	var files []corpusFile
	for name, o := range map[string]jpegw.Options{
		"420-restart":     {Restart: 2},
		"444-progressive": {Sampling: samplings["444"], Progressive: true},
		"422-spectral":    {Sampling: samplings["422"], Progressive: true, Scans: jpegw.SpectralScript(3)},
	} {
		b, err := jpegw.Encode(p, 33, 21, o)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, corpusFile{name: name, data: b})
	}
	o := Optimizer{MaxPixels: 1 << 20}
	for _, f := range files {
		sos := bytes.Index(f.data, []byte{0xFF, 0xDA})
		for i := 2; i < len(f.data); i++ {
			if i > sos && i%7 != 0 {
				continue
			}
			for _, v := range []byte{0xFF, f.data[i] ^ 0x10} {
				data := bytes.Clone(f.data)
				data[i] = v
				got, _, err := decodeJPEGScaled(data, 8, heapAlloc)
				if err == nil {
					cfg, cerr := jpeg.DecodeConfig(bytes.NewReader(data))
					if cerr == nil && (got[0].w != cfg.Width || got[0].h != cfg.Height) {
						t.Errorf("%s byte %d = %#x: decoded %dx%d, header says %dx%d", f.name, i, v, got[0].w, got[0].h, cfg.Width, cfg.Height)
					}
				}
				res, err := o.Optimize(data)
				switch {
				case err == nil && (res.Width < 1 || res.Height < 1 || len(res.JPEG) == 0):
					t.Errorf("%s byte %d = %#x: Optimize gave an empty result", f.name, i, v)
				case err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrUnsupportedFormat):
					t.Errorf("%s byte %d = %#x: undocumented error %v", f.name, i, v, err)
				}
			}
		}
	}
}

// exifSegment builds an APP1 EXIF segment holding IFD0 with the given entries (tag, type,
// count, value), in the given byte order, with the orientation entry wherever the caller
// puts it.
func exifSegment(bo binary.ByteOrder, entries [][4]uint32, ifdOffset uint32) []byte {
	var tiff bytes.Buffer
	if bo == binary.LittleEndian {
		tiff.WriteString("II")
	} else {
		tiff.WriteString("MM")
	}
	_ = binary.Write(&tiff, bo, uint16(42))
	_ = binary.Write(&tiff, bo, ifdOffset)
	for tiff.Len() < int(ifdOffset) {
		tiff.WriteByte(0)
	}
	_ = binary.Write(&tiff, bo, uint16(len(entries)))
	for _, e := range entries {
		_ = binary.Write(&tiff, bo, uint16(e[0]))
		_ = binary.Write(&tiff, bo, uint16(e[1]))
		_ = binary.Write(&tiff, bo, e[2])
		if e[1] == 3 && e[2] == 1 { // one SHORT: left-justified in the 4-byte field
			_ = binary.Write(&tiff, bo, uint16(e[3]))
			_ = binary.Write(&tiff, bo, uint16(0))
		} else {
			_ = binary.Write(&tiff, bo, e[3])
		}
	}
	_ = binary.Write(&tiff, bo, uint32(0))
	return app1(append([]byte("Exif\x00\x00"), tiff.Bytes()...))
}

// cutSegment keeps the first n bytes of a marker segment and fixes its length.
func cutSegment(seg []byte, n int) []byte {
	seg = bytes.Clone(seg[:n])
	binary.BigEndian.PutUint16(seg[2:], uint16(n-2))
	return seg
}

func app1(payload []byte) []byte {
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	return append(seg, payload...)
}

// EXIF as phones and editors write it: either byte order, the orientation among other
// tags, an embedded thumbnail (a whole JPEG inside the segment), XMP beside it; and as
// broken files have it: the wrong type, a value out of range, an offset past the end, a
// segment cut short. The orientation is applied when it is valid and ignored otherwise,
// on the fast path, sequential and progressive alike, and the picture is always decoded.
func TestEXIFVariantsOrientTheFastPathOrAreIgnored(t *testing.T) {
	le, be := binary.ByteOrder(binary.LittleEndian), binary.ByteOrder(binary.BigEndian)
	thumb, err := jpegw.Encode(testPlanes(16, 12), 16, 12, jpegw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	withThumb := exifSegment(le, [][4]uint32{{0x010F, 2, 4, 0}, {0x0112, 3, 1, 6}, {0x0201, 4, 1, 200}}, 8)
	withThumb = append(withThumb[:4], append(withThumb[4:], thumb...)...)
	binary.BigEndian.PutUint16(withThumb[2:], uint16(len(withThumb)-2))
	cases := []struct {
		name   string
		segs   [][]byte
		orient int
	}{
		{"none", nil, 1},
		{"little-endian 6", [][]byte{exifSegment(le, [][4]uint32{{0x0112, 3, 1, 6}}, 8)}, 6},
		{"big-endian 8", [][]byte{exifSegment(be, [][4]uint32{{0x0112, 3, 1, 8}}, 8)}, 8},
		{"among other tags, 3", [][]byte{exifSegment(be, [][4]uint32{{0x010F, 2, 4, 0}, {0x0110, 2, 4, 0}, {0x0112, 3, 1, 3}, {0x011A, 5, 1, 0}}, 8)}, 3},
		{"IFD not right after the header, 5", [][]byte{exifSegment(le, [][4]uint32{{0x0112, 3, 1, 5}}, 40)}, 5},
		{"thumbnail inside, 6", [][]byte{withThumb}, 6},
		{"XMP after EXIF, 7", [][]byte{exifSegment(le, [][4]uint32{{0x0112, 3, 1, 7}}, 8), app1([]byte("http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta/>"))}, 7},
		{"LONG instead of SHORT", [][]byte{exifSegment(le, [][4]uint32{{0x0112, 4, 1, 6}}, 8)}, 1},
		{"value 9", [][]byte{exifSegment(le, [][4]uint32{{0x0112, 3, 1, 9}}, 8)}, 1},
		{"value 0", [][]byte{exifSegment(be, [][4]uint32{{0x0112, 3, 1, 0}}, 8)}, 1},
		{"IFD cut off", [][]byte{cutSegment(exifSegment(le, [][4]uint32{{0x0112, 3, 1, 6}}, 8), 20)}, 1},
		{"IFD offset past the end", [][]byte{exifSegment(le, [][4]uint32{{0x0112, 3, 1, 6}}, 4000)[:0:0]}, 1},
		{"not EXIF", [][]byte{app1([]byte("Exif\x00\x00XX*\x00garbage"))}, 1},
		{"empty APP1", [][]byte{app1(nil)}, 1},
	}
	// A smooth picture that looks different every way round (JPEG's error stays small).
	p := [][]byte{make([]byte, 61*47), make([]byte, 61*47), make([]byte, 61*47)}
	for y := range 47 {
		for x := range 61 {
			i := y*61 + x
			p[0][i], p[1][i], p[2][i] = byte(20+3*x+y), byte(100+y), byte(160-x)
			if x < 20 && y < 12 {
				p[0][i] = 230
			}
		}
	}
	for _, progressive := range []bool{false, true} {
		plain, err := jpegw.Encode(p, 61, 47, jpegw.Options{Progressive: progressive})
		if err != nil {
			t.Fatal(err)
		}
		upright, err := Optimizer{}.Optimize(plain)
		if err != nil {
			t.Fatal(err)
		}
		uprightY, _ := standardPlanes(upright.JPEG)
		for _, c := range cases {
			data, err := jpegw.Encode(p, 61, 47, jpegw.Options{Progressive: progressive, Segments: c.segs})
			if err != nil {
				t.Fatal(err)
			}
			res, wk, err := Optimizer{}.optimize(data)
			if err != nil || wk.dctScale == 0 {
				t.Errorf("%s (progressive %v): %v, scale %d; want the fast path", c.name, progressive, err, wk.dctScale)
				continue
			}
			w, h := orientedSize(61, 47, c.orient)
			if res.Width != w || res.Height != h {
				t.Errorf("%s (progressive %v): %dx%d, want %dx%d (orientation %d)", c.name, progressive, res.Width, res.Height, w, h, c.orient)
				continue
			}
			// The picture is the unturned one turned by the orientation (both re-encoded,
			// so within JPEG's error).
			got, _ := standardPlanes(res.JPEG)
			want := orient(uprightY[0], c.orient, heapAlloc)
			if _, mean, err := planeDiff(got[:1], []plane{want}); err != nil || mean > 2 {
				t.Errorf("%s (progressive %v): luma differs from the plain file turned by %d: mean %.2f (%v)", c.name, progressive, c.orient, mean, err)
			}
		}
	}
}

// A file of a few bytes per scan and thousands of scans is refused after maxScans: each
// scan is a pass over the picture's blocks, so the scans, not the bytes, would bound the
// work.
func TestThousandsOfScansAreRefused(t *testing.T) {
	p := testPlanes(17, 9)
	scans := []jpegw.Scan{{Comps: []int{0}, Ss: 0, Se: 0}}
	for range maxScans {
		scans = append(scans, jpegw.Scan{Comps: []int{0}, Ss: 1, Se: 63, Ah: 0, Al: 0})
	}
	data, err := jpegw.Encode(p[:1], 17, 9, jpegw.Options{Progressive: true, Scans: scans})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := decodeJPEGScaled(data, 8, heapAlloc); !errors.Is(err, errTooManyScans) {
		t.Fatalf("%d scans: %v, want errTooManyScans", len(scans), err)
	}
	if _, _, err := decodeJPEGScaled(data[:0], 8, heapAlloc); err == nil {
		t.Fatal("empty data decoded")
	}
	ok, err := jpegw.Encode(p[:1], 17, 9, jpegw.Options{Progressive: true, Scans: scans[:maxScans]})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := decodeJPEGScaled(ok, 8, heapAlloc); err != nil {
		t.Fatalf("%d scans: %v", maxScans, err)
	}
	if _, err := (Optimizer{}).Optimize(data); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Optimize: %v, want ErrCorrupt", err)
	}
}
