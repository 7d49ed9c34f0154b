package macos

import "math"

// Rect is an AppKit rectangle: origin at the bottom left of the main screen, y upwards.
type Rect struct{ X, Y, Width, Height float64 }

// TopLeft converts a window frame to the geometry Wails uses on macOS for
// WindowSetPosition and WindowGetPosition: x and y of the window's top left corner,
// measured from the top left of the visible frame of the screen it is on (below the
// menu bar), y downwards. Reporting geometry this way means a saved position comes back
// to the same place at the next start.
func TopLeft(window, screenVisible Rect) (x, y, width, height int) {
	x = int(math.Round(window.X - screenVisible.X))
	top := screenVisible.Y + screenVisible.Height
	y = int(math.Round(top - (window.Y + window.Height)))
	return x, y, int(math.Round(window.Width)), int(math.Round(window.Height))
}

// Popup window size: a sign-in page's own request (window.open's width and height) is
// honoured within these bounds; without one the popup gets the default.
const (
	popupDefaultWidth  = 520
	popupDefaultHeight = 680
	popupMin           = 300
	popupMaxWidth      = 1600
	popupMaxHeight     = 1200
)

// PopupSize is the content size of a popup window, from the width and height the page
// asked for (0 when it asked for none: WKWindowFeatures leaves them nil).
func PopupSize(width, height float64) (float64, float64) {
	fit := func(v, def, max float64) float64 {
		if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return def
		}
		return math.Min(math.Max(v, popupMin), max)
	}
	return fit(width, popupDefaultWidth, popupMaxWidth), fit(height, popupDefaultHeight, popupMaxHeight)
}
