// Package images turns the bytes of an image from a conversation into the
// small JPEG a vision model is sent: decoded (JPEG, PNG, GIF, WebP), turned
// upright by its EXIF orientation, scaled so the long edge is a multiple of
// the 448-pixel vision tile (at most three tiles) and never enlarged, and
// re-encoded as JPEG quality 80. Re-encoding also drops metadata such as GPS
// positions before anything leaves the machine.
package images

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	_ "image/gif" // registers the GIF decoder
	"image/jpeg"
	_ "image/png" // registers the PNG decoder

	"github.com/disintegration/imaging"
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

// Result is an optimised image.
type Result struct {
	JPEG          []byte
	Width, Height int
	// SourceFormat is the decoder that read the input ("jpeg", "png", ...).
	SourceFormat string
}

// DataURL returns the image as a data: URL for a vision request.
func (r Result) DataURL() string {
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(r.JPEG)
}

// Optimizer holds the limits. The zero value uses the defaults.
type Optimizer struct {
	MaxPixels     int
	MaxInputBytes int
}

// Optimize decodes, orients, scales and re-encodes one image.
func Optimize(data []byte) (Result, error) { return Optimizer{}.Optimize(data) }

// Optimize decodes, orients, scales and re-encodes one image.
func (o Optimizer) Optimize(data []byte) (Result, error) {
	img, format, err := o.decode(data)
	if err != nil {
		return Result{}, err
	}
	b := img.Bounds()
	w, h := TargetSize(b.Dx(), b.Dy())
	if w != b.Dx() || h != b.Dy() {
		img = imaging.Resize(img, w, h, imaging.Linear)
	}
	img = flatten(img)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: Quality}); err != nil {
		return Result{}, fmt.Errorf("encode jpeg: %w", err)
	}
	return Result{JPEG: buf.Bytes(), Width: w, Height: h, SourceFormat: format}, nil
}

// decode checks the header first: the format must be known and the claimed
// dimensions within the pixel cap, and only then is the image decoded, with
// its EXIF orientation applied.
func (o Optimizer) decode(data []byte) (image.Image, string, error) {
	maxPixels, maxBytes := o.MaxPixels, o.MaxInputBytes
	if maxPixels <= 0 {
		maxPixels = DefaultMaxPixels
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxInputBytes
	}
	if len(data) == 0 {
		return nil, "", fmt.Errorf("%w: no bytes", ErrCorrupt)
	}
	if len(data) > maxBytes {
		return nil, "", fmt.Errorf("%w: %d bytes exceeds the %d byte limit", ErrTooLarge, len(data), maxBytes)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if errors.Is(err, image.ErrFormat) {
		return nil, "", fmt.Errorf("%w: %s", ErrUnsupportedFormat, Sniff(data))
	}
	if err != nil {
		return nil, format, fmt.Errorf("%w: read %s header: %v", ErrCorrupt, format, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, format, fmt.Errorf("%w: %s header claims %dx%d", ErrCorrupt, format, cfg.Width, cfg.Height)
	}
	if int64(cfg.Width)*int64(cfg.Height) > int64(maxPixels) {
		return nil, format, fmt.Errorf("%w: %s of %dx%d exceeds the %d pixel limit", ErrTooLarge, format, cfg.Width, cfg.Height, maxPixels)
	}
	img, err := imaging.Decode(bytes.NewReader(data), imaging.AutoOrientation(true))
	if err != nil {
		return nil, format, fmt.Errorf("%w: decode %s: %v", ErrCorrupt, format, err)
	}
	return img, format, nil
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

// flatten lays a non-opaque image over white, because JPEG has no alpha and
// transparent pixels would otherwise turn black.
// An opaque NRGBA (what imaging returns) has the same bytes as an RGBA, so it
// is re-labelled without copying: image/jpeg has a fast path for *RGBA and
// none for *NRGBA (a million allocations per 12 MP photo without this).
func flatten(img image.Image) image.Image {
	if o, ok := img.(interface{ Opaque() bool }); ok && o.Opaque() {
		if n, ok := img.(*image.NRGBA); ok {
			return &image.RGBA{Pix: n.Pix, Stride: n.Stride, Rect: n.Rect}
		}
		return img
	}
	b := img.Bounds()
	dst := image.NewRGBA(b)
	draw.Draw(dst, b, image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(dst, b, img, b.Min, draw.Over)
	return dst
}

// Sniff names the format of bytes the decoders do not know, for the log and
// the "unavailable" note (HEIC, AVIF, SVG), or "unknown". TIFF and BMP are
// decodable because imaging registers their decoders.
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
