package window

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"strconv"
)

// The unread badge is drawn onto the tray icon itself: many panels hide the tray's
// title text, but every one shows the icon.

// badgeGlyphs are 3x5 pixel digits (and "+"), one string per row, drawn scaled to the
// icon's size.
var badgeGlyphs = map[rune][5]string{
	'0': {"###", "#.#", "#.#", "#.#", "###"},
	'1': {".#.", "##.", ".#.", ".#.", "###"},
	'2': {"###", "..#", "###", "#..", "###"},
	'3': {"###", "..#", ".##", "..#", "###"},
	'4': {"#.#", "#.#", "###", "..#", "..#"},
	'5': {"###", "#..", "###", "..#", "###"},
	'6': {"###", "#..", "###", "#.#", "###"},
	'7': {"###", "..#", ".#.", ".#.", ".#."},
	'8': {"###", "#.#", "###", "#.#", "###"},
	'9': {"###", "#.#", "###", "..#", "###"},
	'+': {"...", ".#.", "###", ".#.", "..."},
}

// badgeRed is the badge's fill.
var badgeRed = color.RGBA{R: 0xd9, G: 0x30, B: 0x25, A: 0xff}

// badgeText is what the badge says for n unread messages: the number, or "9+".
func badgeText(n int) string {
	if n > 9 {
		return "9+"
	}
	return strconv.Itoa(n)
}

// badgedIcon returns the PNG icon base with a red badge in its top-right corner that
// shows n. n <= 0, or an icon that cannot be decoded, gives base unchanged.
func badgedIcon(base []byte, n int) []byte {
	if n <= 0 {
		return base
	}
	src, err := png.Decode(bytes.NewReader(base))
	if err != nil {
		return base
	}
	b := src.Bounds()
	img := image.NewRGBA(b)
	draw.Draw(img, b, src, b.Min, draw.Src)
	size := b.Dx()
	if b.Dy() < size {
		size = b.Dy()
	}
	// The badge is a disc over the top-right 60% of the icon.
	d := size * 6 / 10
	cx, cy := b.Max.X-d/2-1, b.Min.Y+d/2
	r := d / 2
	for y := cy - r; y <= cy+r; y++ {
		for x := cx - r; x <= cx+r; x++ {
			if (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r && image.Pt(x, y).In(b) {
				img.SetRGBA(x, y, badgeRed)
			}
		}
	}
	text := badgeText(n)
	// Each glyph is 3 cells wide with one cell between glyphs; 5 cells high.
	cols := 4*len(text) - 1
	cell := (d * 7 / 10) / cols
	if c := (d * 6 / 10) / 5; c < cell {
		cell = c
	}
	if cell < 1 {
		cell = 1
	}
	x0, y0 := cx-cols*cell/2, cy-5*cell/2
	for i, ch := range text {
		g := badgeGlyphs[ch]
		for row, line := range g {
			for col, px := range line {
				if px != '#' {
					continue
				}
				fill := image.Rect(0, 0, cell, cell).Add(image.Pt(x0+(4*i+col)*cell, y0+row*cell))
				draw.Draw(img, fill.Intersect(b), image.NewUniform(color.White), image.Point{}, draw.Src)
			}
		}
	}
	var out bytes.Buffer
	if err := png.Encode(&out, img); err != nil {
		return base
	}
	return out.Bytes()
}
