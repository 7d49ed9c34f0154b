package run

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// LogFileName is Clanker's log in its data folder. Launched from a desktop menu the app
// has no terminal, so what it reports (errors above all) would vanish without it.
const LogFileName = "clanker.log"

// Log rotation: the file is renamed to clanker.log.1 when it would grow past logMaxBytes,
// and logKeep old files are kept (clanker.log.1 newest), so the log never grows without
// bound.
const (
	logMaxBytes = 1 << 20
	logKeep     = 3
)

// LogPath is the log file of a data directory.
func LogPath(dir string) string { return filepath.Join(dir, LogFileName) }

// RotatingFile is an append-only log file that rotates itself by size. It is safe for
// concurrent use. What goes in is up to the logger: the app logs no API key ever, and
// message text only at debug level.
type RotatingFile struct {
	path string
	max  int64
	keep int

	mu   sync.Mutex
	f    *os.File
	size int64
}

// OpenLog opens (or creates, readable by the user only) the log file in dir.
func OpenLog(dir string) (*RotatingFile, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the log folder %s: %w", dir, err)
	}
	r := &RotatingFile{path: LogPath(dir), max: logMaxBytes, keep: logKeep}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *RotatingFile) open() error {
	f, err := os.OpenFile(r.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open the log file: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("open the log file: %w", err)
	}
	r.f, r.size = f, st.Size()
	return nil
}

// Write appends p, rotating first when p would take the file past its limit. A failed
// rotation keeps writing to the current file: losing the rotation beats losing the log.
func (r *RotatingFile) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return 0, os.ErrClosed
	}
	if r.size > 0 && r.size+int64(len(p)) > r.max {
		r.rotate()
	}
	n, err := r.f.Write(p)
	r.size += int64(n)
	return n, err
}

func (r *RotatingFile) rotate() {
	if err := r.f.Close(); err != nil {
		return
	}
	_ = os.Remove(fmt.Sprintf("%s.%d", r.path, r.keep))
	for i := r.keep - 1; i >= 1; i-- {
		_ = os.Rename(fmt.Sprintf("%s.%d", r.path, i), fmt.Sprintf("%s.%d", r.path, i+1))
	}
	_ = os.Rename(r.path, r.path+".1")
	if err := r.open(); err != nil {
		// Reopen whatever is there so later writes still land somewhere.
		r.f, _ = os.OpenFile(r.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		r.size = 0
	}
}

// Close closes the file.
func (r *RotatingFile) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}
