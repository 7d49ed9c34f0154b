// Command gen draws Clanker's icons from code, so they are original, reproducible and
// available in every size the three platforms need:
//
//	build/appicon.png                    1024 px master, used by the Wails build
//	build/windows/icon.ico               16..256 px, PNG-compressed entries
//	build/darwin/icon.icns               16..1024 px (ic04..ic10)
//	build/linux/hicolor/NxN/apps/clanker.png
//	build/icons/tray/{on,off}-{16,22,32,48,64}.png and {on,off}.ico
//
// The mark is a speech bubble holding a small robot face: "on" is teal, "off" is grey.
// Run with `go generate ./build/icons` (or `make icons`).
package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
)

// palette is one colour set for the mark.
type palette struct {
	bg, bgEdge, bubble, face color.NRGBA
}

var (
	onColors  = palette{bg: rgb(0x0b, 0x7a, 0x75), bgEdge: rgb(0x07, 0x55, 0x52), bubble: rgb(0xff, 0xff, 0xff), face: rgb(0x0b, 0x3d, 0x4a)}
	offColors = palette{bg: rgb(0x8a, 0x8f, 0x98), bgEdge: rgb(0x6b, 0x70, 0x78), bubble: rgb(0xf2, 0xf3, 0xf5), face: rgb(0x55, 0x5a, 0x63)}
)

func rgb(r, g, b uint8) color.NRGBA { return color.NRGBA{r, g, b, 255} }

func main() {
	out := flag.String("o", "build", "output folder (the repository's build/)")
	flag.Parse()
	if err := generate(*out); err != nil {
		fmt.Fprintln(os.Stderr, "icons:", err)
		os.Exit(1)
	}
}

func generate(out string) error {
	write := func(rel string, data []byte) error {
		p := filepath.Join(out, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, data, 0o644)
	}
	if err := write("appicon.png", encodePNG(Draw(1024, onColors))); err != nil {
		return err
	}
	ico, err := ICO(onColors, []int{16, 24, 32, 48, 64, 128, 256})
	if err != nil {
		return err
	}
	if err := write("windows/icon.ico", ico); err != nil {
		return err
	}
	if err := write("darwin/icon.icns", ICNS(onColors)); err != nil {
		return err
	}
	for _, n := range []int{16, 22, 24, 32, 48, 64, 128, 256, 512} {
		if err := write(fmt.Sprintf("linux/hicolor/%dx%d/apps/clanker.png", n, n), encodePNG(Draw(n, onColors))); err != nil {
			return err
		}
	}
	for name, pal := range map[string]palette{"on": onColors, "off": offColors} {
		for _, n := range []int{16, 22, 32, 48, 64} {
			if err := write(fmt.Sprintf("icons/tray/%s-%d.png", name, n), encodePNG(Draw(n, pal))); err != nil {
				return err
			}
		}
		ico, err := ICO(pal, []int{16, 24, 32, 48})
		if err != nil {
			return err
		}
		if err := write("icons/tray/"+name+".ico", ico); err != nil {
			return err
		}
	}
	return nil
}

func encodePNG(img image.Image) []byte {
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&b, img); err != nil {
		panic(err) // encoding an in-memory NRGBA cannot fail
	}
	return b.Bytes()
}

type drawKey struct {
	n   int
	pal palette
}

// drawn memoises Draw: the same size is written into several files (PNG, ICO, ICNS).
var drawn = map[drawKey]*image.NRGBA{}

// Draw renders the mark at n x n pixels. Shapes are described in a unit square and
// sampled 4x4 per pixel (2x2 from 512 px up, where edges are already smooth), which gives
// clean anti-aliased edges at every size.
func Draw(n int, pal palette) *image.NRGBA {
	if img, ok := drawn[drawKey{n, pal}]; ok {
		return img
	}
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	ss := 4
	if n >= 512 {
		ss = 2
	}
	defer func() { drawn[drawKey{n, pal}] = img }()
	for py := 0; py < n; py++ {
		for px := 0; px < n; px++ {
			var r, g, b, a float64
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					x := (float64(px) + (float64(sx)+0.5)/float64(ss)) / float64(n)
					y := (float64(py) + (float64(sy)+0.5)/float64(ss)) / float64(n)
					c, ok := shade(x, y, pal)
					if !ok {
						continue
					}
					r += float64(c.R)
					g += float64(c.G)
					b += float64(c.B)
					a++
				}
			}
			if a == 0 {
				continue
			}
			img.SetNRGBA(px, py, color.NRGBA{
				R: uint8(r / a), G: uint8(g / a), B: uint8(b / a),
				A: uint8(math.Round(255 * a / float64(ss*ss))),
			})
		}
	}
	return img
}

// shade returns the colour at (x, y) in the unit square, or false where it is transparent.
func shade(x, y float64, pal palette) (color.NRGBA, bool) {
	// Background: a rounded square with a slightly darker rim.
	if !inRoundRect(x, y, 0.04, 0.04, 0.96, 0.96, 0.2) {
		return color.NRGBA{}, false
	}
	col := pal.bg
	if !inRoundRect(x, y, 0.075, 0.075, 0.925, 0.925, 0.17) {
		col = pal.bgEdge
	}
	// Speech bubble: a rounded rectangle with a tail at the lower left.
	inBubble := inRoundRect(x, y, 0.17, 0.2, 0.83, 0.7, 0.14) ||
		inTriangle(x, y, 0.26, 0.64, 0.44, 0.64, 0.22, 0.84)
	if !inBubble {
		return col, true
	}
	col = pal.bubble
	// Antenna on top of the head, inside the bubble.
	if inCircle(x, y, 0.5, 0.285, 0.035) || (math.Abs(x-0.5) < 0.012 && y > 0.29 && y < 0.35) {
		return pal.face, true
	}
	// Head outline: a rounded rectangle ring.
	inHead := inRoundRect(x, y, 0.31, 0.35, 0.69, 0.63, 0.07)
	inHeadInner := inRoundRect(x, y, 0.335, 0.375, 0.665, 0.605, 0.05)
	if inHead && !inHeadInner {
		return pal.face, true
	}
	// Eyes and a mouth.
	if inCircle(x, y, 0.43, 0.46, 0.035) || inCircle(x, y, 0.57, 0.46, 0.035) {
		return pal.face, true
	}
	if inRoundRect(x, y, 0.42, 0.535, 0.58, 0.56, 0.012) {
		return pal.face, true
	}
	return col, true
}

func inCircle(x, y, cx, cy, r float64) bool { return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r }

func inRoundRect(x, y, x0, y0, x1, y1, r float64) bool {
	if x < x0 || x > x1 || y < y0 || y > y1 {
		return false
	}
	cx := math.Min(math.Max(x, x0+r), x1-r)
	cy := math.Min(math.Max(y, y0+r), y1-r)
	return inCircle(x, y, cx, cy, r)
}

func inTriangle(x, y, ax, ay, bx, by, cx, cy float64) bool {
	d1 := (x-bx)*(ay-by) - (ax-bx)*(y-by)
	d2 := (x-cx)*(by-cy) - (bx-cx)*(y-cy)
	d3 := (x-ax)*(cy-ay) - (cx-ax)*(y-ay)
	neg := d1 < 0 || d2 < 0 || d3 < 0
	pos := d1 > 0 || d2 > 0 || d3 > 0
	return !(neg && pos)
}

// ICO builds a Windows icon file whose entries are PNG images (valid since Windows Vista).
func ICO(pal palette, sizes []int) ([]byte, error) {
	var head, body bytes.Buffer
	binary.Write(&head, binary.LittleEndian, [3]uint16{0, 1, uint16(len(sizes))})
	offset := 6 + 16*len(sizes)
	for _, n := range sizes {
		if n > 256 {
			return nil, fmt.Errorf("ico entry %d px is larger than 256", n)
		}
		data := encodePNG(Draw(n, pal))
		dim := uint8(n)
		if n == 256 {
			dim = 0 // 0 means 256 in an ICO directory entry
		}
		head.Write([]byte{dim, dim, 0, 0})
		binary.Write(&head, binary.LittleEndian, [2]uint16{1, 32})
		binary.Write(&head, binary.LittleEndian, [2]uint32{uint32(len(data)), uint32(offset)})
		body.Write(data)
		offset += len(data)
	}
	return append(head.Bytes(), body.Bytes()...), nil
}

// ICNS builds a macOS icon file from PNG entries.
func ICNS(pal palette) []byte {
	types := []struct {
		code string
		n    int
	}{{"icp4", 16}, {"icp5", 32}, {"icp6", 64}, {"ic07", 128}, {"ic08", 256}, {"ic09", 512}, {"ic10", 1024}}
	var body bytes.Buffer
	for _, t := range types {
		data := encodePNG(Draw(t.n, pal))
		body.WriteString(t.code)
		binary.Write(&body, binary.BigEndian, uint32(8+len(data)))
		body.Write(data)
	}
	var out bytes.Buffer
	out.WriteString("icns")
	binary.Write(&out, binary.BigEndian, uint32(8+body.Len()))
	out.Write(body.Bytes())
	return out.Bytes()
}
