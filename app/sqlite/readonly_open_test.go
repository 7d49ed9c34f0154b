package sqlite

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"
)

// openReadOnlyAt opens the existing database in dir for reading only, as OpenNoRepair does
// when the user cannot write it: every write fails, and the store's CheckCanWrite says so.
// The app reaches that state only through OpenNoRepair on a database it cannot write, which
// a test running as root cannot make, so the tests open it directly.
func openReadOnlyAt(dir string) (*Store, error) {
	s := &Store{path: filepath.Join(dir, FileName), Now: time.Now, Log: slog.Default()}
	if _, err := os.Stat(s.path); err != nil {
		return nil, fmt.Errorf("open database read-only: %w", err)
	}
	if err := s.openReadOnly(); err != nil {
		return nil, err
	}
	return s, nil
}
