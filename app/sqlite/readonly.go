package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"time"
)

// DamagedError is returned by OpenNoRepair for a damaged database: commands that only read
// never repair or replace it, so the user's data stays exactly where it is until the app
// salvages it.
type DamagedError struct {
	Path   string
	Reason string
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("Clanker's database at %s is damaged (%s). Nothing was changed: start Clanker, "+
		"which saves what can still be read into a new database and keeps the old file.", e.Path, e.Reason)
}

// NotWritableError is returned by Open when the user cannot write the database or its folder:
// the app needs to write (modes, memory, usage), and a half-working app would lose them.
type NotWritableError struct {
	// Path is the file or folder that cannot be written.
	Path string
	Err  error
}

func (e *NotWritableError) Error() string {
	return fmt.Sprintf("Clanker cannot write its database: %s is read-only for you (%v). Make the data folder and "+
		"the files in it writable, or start Clanker with --data-dir set to a folder you can write. Reading still works: "+
		"clanker config list and clanker diag show the stored data.", e.Path, e.Err)
}

func (e *NotWritableError) Unwrap() error { return e.Err }

// ErrReadOnlyStore is returned by writes on a store opened read-only.
var ErrReadOnlyStore = errors.New("the database is read-only for you, so nothing was changed")

// ReadOnly reports whether the store was opened read-only (OpenNoRepair on a database the
// user cannot write); every write then fails.
func (s *Store) ReadOnly() bool { return s.readOnly }

// CheckWritable returns a *NotWritableError when the data folder dir (if it exists) or the
// database in it (if it exists) cannot be written by this user. The app calls it before it
// takes anything else in the folder, so the first thing the user reads is why.
func CheckWritable(dir string) error {
	return checkWritable(filepath.Join(dir, FileName))
}

func checkWritable(path string) error {
	for _, p := range []string{filepath.Dir(path), path, path + "-wal"} {
		if err := canWrite(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return &NotWritableError{Path: p, Err: err}
		}
	}
	return nil
}

// readOnlyDSN is the connection string for reading path without writing it. When the file or
// its folder cannot be written, SQLite could not keep a shared-memory index beside it (and an
// earlier version of Clanker left a read-only one there, which broke every later open), so
// the file is opened as immutable: no -shm or -wal is created. Nobody can be writing such a
// file through this user, and a WAL that was never checkpointed could not have been written
// without write access either.
func readOnlyDSN(path string, immutable bool) string {
	q := url.Values{}
	q.Set("mode", "ro")
	if immutable {
		q.Set("immutable", "1")
	}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	return "file:" + path + "?" + q.Encode()
}

// dropStaleSharedMemory removes a -shm this user cannot write when there is no WAL content
// to lose: SQLite rebuilds the index from the WAL, and a read-only one left behind (by an
// earlier read of a read-only database) otherwise makes every open fail with a misleading
// "attempt to write a readonly database".
func (s *Store) dropStaleSharedMemory() {
	shm := s.path + "-shm"
	if _, err := os.Lstat(shm); err != nil || canWrite(shm) == nil {
		return
	}
	if fi, err := os.Stat(s.path + "-wal"); err == nil && fi.Size() > 0 {
		return
	}
	if err := os.Remove(shm); err != nil {
		s.warn("a read-only shared-memory file is in the way and could not be removed", "path", shm, "err", err)
		return
	}
	if fi, err := os.Stat(s.path + "-wal"); err == nil && fi.Size() == 0 {
		os.Remove(s.path + "-wal")
	}
	s.warn("removed a stale read-only shared-memory file left beside the database", "path", shm)
}

// OpenNoRepair opens the database in dir (DefaultDir when empty) for commands other than the
// app: config, diag and the settings window. It never repairs, replaces or moves anything: a
// damaged file is a *DamagedError. A database the user cannot write (file or folder) is opened
// read-only without creating any file beside it, so reading commands still work there and
// writes fail with ErrReadOnlyStore. A missing database is created as Open would (a fresh
// install), since nothing can be lost by that.
func OpenNoRepair(dir string) (*Store, error) {
	if dir == "" {
		d, err := DefaultDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	path := filepath.Join(dir, FileName)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return Open(dir)
	}
	s := &Store{path: path, Now: time.Now, Log: slog.Default()}
	writable := checkWritable(path) == nil
	if writable {
		s.dropStaleSharedMemory()
	}
	reason, err := checkFileWith(path, readOnlyDSN(path, !writable))
	if err != nil {
		return nil, fmt.Errorf("check database %s: %w", path, err)
	}
	if reason != "" {
		return nil, &DamagedError{Path: path, Reason: reason}
	}
	if writable {
		db, err := s.openAndMigrate()
		if err != nil {
			return nil, err
		}
		s.db = db
		return s, nil
	}
	return s, s.openReadOnly()
}

func (s *Store) openReadOnly() error {
	db, err := sql.Open("sqlite", readOnlyDSN(s.path, true))
	if err != nil {
		return fmt.Errorf("open database %s read-only: %w", s.path, err)
	}
	if err := checkMigrated(context.Background(), db); err != nil {
		db.Close()
		return fmt.Errorf("database %s: %w", s.path, err)
	}
	s.db, s.readOnly = db, true
	return nil
}

// CheckCanWrite returns a *NotWritableError when this store cannot be written: it was
// opened read-only, or the database or its folder has become read-only for this user
// since. Callers that show errors to the user check it before (and after a failed) write,
// so the user reads where the database is and what to do rather than SQLite's message.
func (s *Store) CheckCanWrite() error {
	if s.readOnly {
		return &NotWritableError{Path: s.path, Err: ErrReadOnlyStore}
	}
	return checkWritable(s.path)
}

// checkMigrated fails when the file lacks a migration this version has: it cannot be
// updated without write access, and reading it with this version's queries would fail less
// clearly.
func checkMigrated(ctx context.Context, db *sql.DB) error {
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	have := map[string]bool{}
	rows, err := db.QueryContext(ctx, `SELECT name FROM migrations`)
	if err != nil {
		return fmt.Errorf("read its schema version: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return err
		}
		have[n] = true
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, m := range ms {
		if !have[m.name] {
			return errors.New("it was written by an older Clanker and needs an update, which needs write access; make it writable and run Clanker once")
		}
	}
	return nil
}
