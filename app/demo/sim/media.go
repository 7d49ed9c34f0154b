package sim

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
	"sync"
)

// Photo dimensions as stored (landscape sensor order). With EXIF orientation 6 the photo
// displays as portrait 3024x4032, like a phone picture taken upright.
const (
	PhotoWidth  = 4032
	PhotoHeight = 3024
	// PhotoOrientation is the EXIF orientation tag value written into the JPEG.
	PhotoOrientation = 6
)

var (
	mediaOnce sync.Once
	media     map[string][]byte
)

// mediaType is the Content-Type of a known media name, or "" for unknown names.
func mediaType(name string) string {
	switch name {
	case MediaPhoto:
		return "image/jpeg"
	case MediaChart:
		return "image/png"
	case MediaGIF:
		return "image/gif"
	}
	return ""
}

// mediaBytes returns the bytes of a media file, generating all of them on first use. The
// generators draw fixed scenes, so the bytes are the same in every run.
func mediaBytes(name string) []byte {
	mediaOnce.Do(func() {
		media = map[string][]byte{
			MediaPhoto: makePhoto(),
			MediaChart: makeChart(),
			MediaGIF:   makeGIF(),
		}
	})
	return media[name]
}

// makePhoto draws an upright portrait scene (sky, sun, hills) and stores it rotated 90°
// counter-clockwise, so only a viewer that honours EXIF orientation 6 shows it upright.
func makePhoto() []byte {
	img := image.NewYCbCr(image.Rect(0, 0, PhotoWidth, PhotoHeight), image.YCbCrSubsampleRatio420)
	// Portrait display coordinates: W=3024, H=4032. Stored S(sx, sy) = P(H_s-1-sy, sx).
	const pw, ph = PhotoHeight, PhotoWidth
	for sy := 0; sy < PhotoHeight; sy++ {
		for sx := 0; sx < PhotoWidth; sx++ {
			px, py := PhotoHeight-1-sy, sx
			c := photoPixel(px, py, pw, ph)
			yy, cb, cr := color.RGBToYCbCr(c.R, c.G, c.B)
			img.Y[img.YOffset(sx, sy)] = yy
			if sx%2 == 0 && sy%2 == 0 {
				o := img.COffset(sx, sy)
				img.Cb[o], img.Cr[o] = cb, cr
			}
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80}); err != nil {
		panic("encode photo: " + err.Error())
	}
	return withEXIFOrientation(buf.Bytes(), PhotoOrientation)
}

// photoPixel is the colour of the upright scene at (x, y) in a w×h portrait frame.
func photoPixel(x, y, w, h int) color.RGBA {
	fy := float64(y) / float64(h)
	fx := float64(x) / float64(w)
	// Hills: a sine horizon in the lower half.
	horizon := 0.62 + 0.05*math.Sin(fx*math.Pi*3)
	if fy > horizon {
		g := 120 + 60*(1-(fy-horizon)/(1-horizon))
		return color.RGBA{R: 40, G: uint8(g), B: 50, A: 255}
	}
	// Sun in the upper third, left of centre: it marks which way is up.
	dx, dy := fx-0.3, (fy-0.22)*float64(h)/float64(w)
	if dx*dx+dy*dy < 0.012 {
		return color.RGBA{R: 255, G: 214, B: 80, A: 255}
	}
	// Sky gradient from deep blue at the top to pale at the horizon.
	t := fy / horizon
	return color.RGBA{R: uint8(40 + 170*t), G: uint8(90 + 130*t), B: uint8(200 + 50*t), A: 255}
}

// withEXIFOrientation inserts an APP1 Exif segment holding one IFD0 entry (Orientation) right
// after the JPEG's SOI marker.
func withEXIFOrientation(jpg []byte, orientation uint16) []byte {
	var tiff bytes.Buffer
	tiff.WriteString("MM\x00\x2a")                        // big-endian TIFF header
	binary.Write(&tiff, binary.BigEndian, uint32(8))      // offset of IFD0
	binary.Write(&tiff, binary.BigEndian, uint16(1))      // one entry
	binary.Write(&tiff, binary.BigEndian, uint16(0x0112)) // Orientation
	binary.Write(&tiff, binary.BigEndian, uint16(3))      // SHORT
	binary.Write(&tiff, binary.BigEndian, uint32(1))      // count
	binary.Write(&tiff, binary.BigEndian, orientation)    // value, left-justified
	binary.Write(&tiff, binary.BigEndian, uint16(0))
	binary.Write(&tiff, binary.BigEndian, uint32(0)) // no next IFD
	payload := append([]byte("Exif\x00\x00"), tiff.Bytes()...)
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	seg = append(seg, payload...)
	out := make([]byte, 0, len(jpg)+len(seg))
	out = append(out, jpg[:2]...)
	out = append(out, seg...)
	return append(out, jpg[2:]...)
}

// EXIFOrientation reads the Orientation tag from a JPEG's APP1 Exif segment; 0 when absent.
// Tests use it to prove the photo carries the tag.
func EXIFOrientation(jpg []byte) int {
	if len(jpg) < 4 || jpg[0] != 0xFF || jpg[1] != 0xD8 {
		return 0
	}
	i := 2
	for i+4 <= len(jpg) && jpg[i] == 0xFF {
		marker := jpg[i+1]
		n := int(binary.BigEndian.Uint16(jpg[i+2:]))
		if marker == 0xDA || i+2+n > len(jpg) {
			return 0
		}
		seg := jpg[i+4 : i+2+n]
		if marker == 0xE1 && len(seg) > 14 && string(seg[:6]) == "Exif\x00\x00" {
			return orientationFromTIFF(seg[6:])
		}
		i += 2 + n
	}
	return 0
}

func orientationFromTIFF(t []byte) int {
	if len(t) < 8 {
		return 0
	}
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "MM":
		bo = binary.BigEndian
	case "II":
		bo = binary.LittleEndian
	default:
		return 0
	}
	off := int(bo.Uint32(t[4:]))
	if off+2 > len(t) {
		return 0
	}
	n := int(bo.Uint16(t[off:]))
	for k := 0; k < n; k++ {
		e := off + 2 + 12*k
		if e+12 > len(t) {
			return 0
		}
		if bo.Uint16(t[e:]) == 0x0112 {
			return int(bo.Uint16(t[e+8:]))
		}
	}
	return 0
}

// makeChart draws a 300x200 bar chart.
func makeChart() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 300, 200))
	bars := []int{60, 110, 85, 150, 130}
	cols := []color.RGBA{{66, 133, 244, 255}, {219, 68, 55, 255}, {244, 180, 0, 255}, {15, 157, 88, 255}, {171, 71, 188, 255}}
	for y := 0; y < 200; y++ {
		for x := 0; x < 300; x++ {
			c := color.RGBA{250, 250, 250, 255}
			if y == 180 || x == 20 {
				c = color.RGBA{60, 60, 60, 255}
			}
			for i, h := range bars {
				x0 := 35 + i*52
				if x >= x0 && x < x0+38 && y < 180 && y >= 180-h {
					c = cols[i]
				}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic("encode chart: " + err.Error())
	}
	return buf.Bytes()
}

// makeGIF draws a 96x64 animation of a dot moving along a wave, 8 frames.
func makeGIF() []byte {
	g := &gif.GIF{}
	for f := 0; f < 8; f++ {
		img := image.NewPaletted(image.Rect(0, 0, 96, 64), palette.Plan9)
		for y := 0; y < 64; y++ {
			for x := 0; x < 96; x++ {
				img.Set(x, y, color.RGBA{232, 240, 254, 255})
			}
		}
		cx := 8 + f*11
		cy := 32 + int(18*math.Sin(float64(f)*math.Pi/4))
		for y := cy - 6; y <= cy+6; y++ {
			for x := cx - 6; x <= cx+6; x++ {
				if (x-cx)*(x-cx)+(y-cy)*(y-cy) <= 36 {
					img.Set(x, y, color.RGBA{26, 115, 232, 255})
				}
			}
		}
		g.Image = append(g.Image, img)
		g.Delay = append(g.Delay, 12)
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, g); err != nil {
		panic("encode gif: " + err.Error())
	}
	return buf.Bytes()
}
