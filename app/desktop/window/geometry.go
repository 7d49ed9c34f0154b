package window

import (
	"time"
)

// Where the window is and how big: the last geometry reported, saved after a move
// or resize settles.

// Geometry is the last window geometry seen (zero before the first report).
func (s *Shell) Geometry() Geometry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.geometry
}

// geometryDebounce groups the stream of configure events of one move or resize.
const geometryDebounce = 500 * time.Millisecond

func (s *Shell) geometryChanged(g Geometry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g == s.geometry {
		return
	}
	s.geometry = g
	if s.opts.OnGeometry == nil || !g.Valid() {
		return
	}
	if s.geomTimer != nil {
		s.geomTimer.Stop()
	}
	s.geomTimer = time.AfterFunc(geometryDebounce, func() {
		s.mu.Lock()
		cur := s.geometry
		s.mu.Unlock()
		s.opts.OnGeometry(cur)
	})
}
