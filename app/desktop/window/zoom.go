package window

import (
	"context"
	"strconv"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/internal/native"
)

// The page's zoom level, stepped through the zoom steps browsers use.

// zoomSteps are the zoom levels Zoom In and Zoom Out step through, as browsers do.
var zoomSteps = []float64{0.5, 0.67, 0.75, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 1.75, 2, 2.5, 3}

// nextZoom is the next step above (dir > 0) or below cur, staying within the steps.
func nextZoom(cur float64, dir int) float64 {
	if dir > 0 {
		for _, z := range zoomSteps {
			if z > cur+0.001 {
				return z
			}
		}
		return zoomSteps[len(zoomSteps)-1]
	}
	for i := len(zoomSteps) - 1; i >= 0; i-- {
		if zoomSteps[i] < cur-0.001 {
			return zoomSteps[i]
		}
	}
	return zoomSteps[0]
}

// Zoom is the main view's zoom level (1 is actual size), as the web view reports it.
func (s *Shell) Zoom(ctx context.Context) (float64, error) {
	if mp, ok := s.plat.(native.MenuView); ok {
		return mp.ZoomLevel(ctx)
	}
	s.menuState.mu.Lock()
	defer s.menuState.mu.Unlock()
	return s.menuState.zoom, nil
}

// SetZoom sets the main view's zoom level, limited to the zoom steps' range.
func (s *Shell) SetZoom(level float64) error {
	level = max(zoomSteps[0], min(level, zoomSteps[len(zoomSteps)-1]))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if mp, ok := s.plat.(native.MenuView); ok {
		if err := mp.SetZoom(ctx, level); err != nil {
			return err
		}
	} else {
		// NOT TESTED (Windows, macOS): page zoom through CSS, lost on the next load.
		if err := s.ExecJS("document.body&&(document.body.style.zoom=" + strconv.FormatFloat(level, 'f', 2, 64) + ")"); err != nil {
			return err
		}
	}
	s.menuState.mu.Lock()
	s.menuState.zoom = level
	s.menuState.mu.Unlock()
	return nil
}

func (s *Shell) stepZoom(dir int) error {
	cur, err := s.Zoom(context.Background())
	if err != nil {
		return err
	}
	return s.SetZoom(nextZoom(cur, dir))
}
