// Package sqlite is Clanker's durable store: settings, per-conversation data,
// the image cache and token usage, in one SQLite file (modernc.org/sqlite, no
// cgo).
//
// The running app and the settings window are separate processes that open
// the same file; WAL mode lets them read while the other writes, and Watch
// tells one about the other's changes. Everything the app relies on is written
// here before it is relied on, so a crash loses nothing that was acknowledged.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
	msqlite "modernc.org/sqlite"
)

// FileName is the database file's name inside the data directory.
const FileName = "clanker.db"

// busyTimeout is how long a statement waits for the other process's write
// lock before failing; writes are small, so a few seconds is generous.
const busyTimeout = 5 * time.Second

//go:embed migrations/*.sql
var migrationFS embed.FS

// Store is an open Clanker database. Its methods are safe for concurrent use.
type Store struct {
	db   *sql.DB
	path string

	// Now is the clock used for timestamps; tests replace it to pin time.
	// Set it before using the store, not concurrently with calls.
	Now func() time.Time

	// Secrets is the keychain the API key is kept in. Open leaves it nil, which
	// means "no keychain": the key is then kept in the database's own row. The
	// app sets the OS keychain (app/keychain) unless the user chose not to.
	Secrets engine.SecretStore

	// Log receives warnings (keychain fallback, watch errors). It never
	// receives the API key or message text.
	Log *slog.Logger

	recovery *Recovery
	readOnly bool

	// keyMu guards keychainErr, the keychain's failure at the last use of the API key.
	keyMu       sync.Mutex
	keychainErr error
}

// Recovery describes a damaged database that Open moved aside before
// creating a fresh one. The old file is kept so nothing is silently lost.
type Recovery struct {
	// MovedTo is where the damaged file now is.
	MovedTo string
	// Reason says what was wrong, for logs and the diagnostics page.
	Reason string
	// At is when the move happened.
	At time.Time
	// Salvaged says what was read from the damaged file into the new one.
	Salvaged Salvaged
}

// Message is a sentence for the user explaining what happened: what was saved from the
// damaged file, what could not be read, and where the old file was kept.
func (r Recovery) Message() string {
	var saved []string
	sv := r.Salvaged
	if sv.Settings {
		saved = append(saved, "your settings")
	}
	if sv.APIKey {
		saved = append(saved, "the API key")
	}
	if sv.Conversations > 0 {
		saved = append(saved, plural(sv.Conversations, "conversation")+" (modes and memory)")
	}
	if sv.Usage > 0 {
		saved = append(saved, plural(sv.Usage, "usage record"))
	}
	var b strings.Builder
	b.WriteString("Clanker's database was damaged, so Clanker started a new one. ")
	if len(saved) > 0 {
		b.WriteString("Saved from the old one: " + joinList(saved) + ". ")
	}
	if len(sv.Lost) > 0 {
		b.WriteString("Could not be read: " + joinList(sv.Lost) + ". ")
	} else if len(saved) == 0 {
		b.WriteString("Nothing had to be saved from it. ")
	}
	b.WriteString("The old file was kept at " + r.MovedTo + ".")
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// joinList joins phrases as "a, b and c"; phrases containing commas are joined with
// semicolons so the list stays readable.
func joinList(items []string) string {
	sep := ", "
	for _, it := range items {
		if strings.Contains(it, ",") {
			sep = "; "
		}
	}
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], sep) + " and " + items[len(items)-1]
}

// DefaultDir is the per-user config directory Clanker uses when no data
// directory is given: Clanker inside os.UserConfigDir.
func DefaultDir() (string, error) {
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the user config directory: %w", err)
	}
	return filepath.Join(base, "Clanker"), nil
}

// Open opens (creating if needed) the database in dir, or in DefaultDir when
// dir is empty. The file is made private to the user (0600), runs in WAL mode
// with foreign keys on, and is migrated to the latest schema. It is for the app,
// the one process that may repair the database; commands that only read use
// OpenNoRepair.
//
// A file that is not a SQLite database, or that fails PRAGMA
// integrity_check, is salvaged (settings, the API key kept in the file,
// conversations and usage rows that still read), renamed aside with a
// timestamp, and the salvaged data written into a fresh database; Recovery
// then reports what was saved and lost so the app can tell the user. That
// happens at most once per call, so a file that keeps failing cannot cause a
// loop. A database the user cannot write is a *NotWritableError, and other
// errors that are not damage (a lock held too long, a full disk) are returned
// as they are; the file is left alone.
func Open(dir string) (*Store, error) {
	if dir == "" {
		d, err := DefaultDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory %s: %w", dir, err)
	}
	s := &Store{
		path: filepath.Join(dir, FileName),
		Now:  time.Now,
		Log:  slog.Default(),
	}
	if err := checkWritable(s.path); err != nil {
		return nil, err
	}
	s.dropStaleSharedMemory()
	var sv *salvageData
	if reason, err := checkFile(s.path); err != nil {
		// Not damage (say, a permission problem): leave the file alone and
		// let the normal open below report it, or succeed.
		s.warn("could not check the database before opening it", "err", err)
	} else if reason != "" {
		sv = salvage(s.path)
		if err := s.moveAside(reason); err != nil {
			return nil, err
		}
	}
	db, err := s.openAndMigrate()
	if err != nil && isDamage(err) && s.recovery == nil {
		sv = salvage(s.path)
		if err := s.moveAside(err.Error()); err != nil {
			return nil, err
		}
		db, err = s.openAndMigrate()
	}
	if err != nil {
		return nil, err
	}
	if sv != nil {
		if err := restore(context.Background(), db, sv, s.now().UnixMilli()); err != nil {
			// The old file is kept, so the data is not gone; the user is told nothing was carried over.
			s.warn("could not write the salvaged data into the new database", "err", err)
			sv.report = Salvaged{Lost: []string{"everything: the data read from it could not be written into the new database"}}
		}
		s.recovery.Salvaged = sv.report
	}
	s.db = db
	return s, nil
}

// Recovery reports whether Open replaced a damaged database (nil if not).
func (s *Store) Recovery() *Recovery { return s.recovery }

// Path is the database file's path.
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

func (s *Store) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// dsn builds the connection string. The pragmas run on every new pooled
// connection, which is where SQLite scopes them.
func dsn(path string) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// Write transactions take the write lock up front, so two processes never
	// deadlock upgrading read locks.
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

func (s *Store) openAndMigrate() (*sql.DB, error) {
	// Create the file ourselves so it is private from its first byte; SQLite
	// gives its -wal and -shm files the same permissions.
	f, err := os.OpenFile(s.path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open database file %s: %w", s.path, err)
	}
	f.Close()
	if err := os.Chmod(s.path, 0o600); err != nil {
		return nil, fmt.Errorf("make database file private: %w", err)
	}
	db, err := sql.Open("sqlite", dsn(s.path))
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", s.path, err)
	}
	db.SetMaxOpenConns(4)
	if err := migrate(context.Background(), db, "", s.now); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// sqliteHeader starts every SQLite 3 database file.
const sqliteHeader = "SQLite format 3\x00"

// checkFile returns a non-empty reason when the file at path exists and is
// damaged. A missing or empty file is fine (SQLite treats it as a new
// database).
func checkFile(path string) (reason string, err error) {
	return checkFileWith(path, readOnlyDSN(path, false))
}

// checkFileWith is checkFile over the read-only connection string dsn.
func checkFileWith(path, dsn string) (reason string, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("open database file %s: %w", path, err)
	}
	defer f.Close()
	head := make([]byte, 100)
	n, err := io.ReadFull(f, head)
	switch {
	case n == 0 && (err == io.EOF || err == nil):
		return "", nil
	case err != nil && !errors.Is(err, io.ErrUnexpectedEOF):
		return "", fmt.Errorf("read database file %s: %w", path, err)
	case n < len(head) || string(head[:len(sqliteHeader)]) != sqliteHeader:
		return "not a SQLite database (bad header)", nil
	}
	// Read-only, and without the journal_mode pragma: checking a file must
	// not change it, so a damaged file is kept exactly as it was found.
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return "", fmt.Errorf("open database %s: %w", path, err)
	}
	defer db.Close()
	rows, err := db.Query("PRAGMA integrity_check")
	if err != nil {
		if isDamage(err) {
			return "integrity check failed: " + err.Error(), nil
		}
		return "", fmt.Errorf("check database %s: %w", path, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return "", fmt.Errorf("check database %s: %w", path, err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		if isDamage(err) {
			return "integrity check failed: " + err.Error(), nil
		}
		return "", fmt.Errorf("check database %s: %w", path, err)
	}
	if len(problems) > 0 {
		if len(problems) > 3 {
			problems = append(problems[:3], fmt.Sprintf("and %d more", len(problems)-3))
		}
		return "integrity check failed: " + strings.Join(problems, "; "), nil
	}
	return "", nil
}

// isDamage reports whether err means the file itself is bad (SQLITE_CORRUPT
// or SQLITE_NOTADB), as opposed to a problem moving it aside would not fix.
func isDamage(err error) bool {
	var se *msqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case 11, 26: // SQLITE_CORRUPT, SQLITE_NOTADB
			return true
		}
	}
	return false
}

// moveAside renames the database and its WAL and shared-memory files to
// names with a timestamp. Nothing is deleted.
func (s *Store) moveAside(reason string) error {
	at := s.now()
	stamp := at.UTC().Format("20060102T150405Z")
	target := s.path + ".damaged-" + stamp
	for i := 2; fileExists(target); i++ {
		target = fmt.Sprintf("%s.damaged-%s-%d", s.path, stamp, i)
	}
	if err := os.Rename(s.path, target); err != nil {
		return fmt.Errorf("database %s is damaged (%s) and could not be moved aside: %w", s.path, reason, err)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if fileExists(s.path + suffix) {
			if err := os.Rename(s.path+suffix, target+suffix); err != nil {
				return fmt.Errorf("move aside %s: %w", s.path+suffix, err)
			}
		}
	}
	s.recovery = &Recovery{MovedTo: target, Reason: reason, At: at}
	if s.Log != nil {
		s.Log.Warn("database was damaged; salvaged what could be read and moved it aside", "moved_to", target, "reason", reason)
	}
	return nil
}

func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// migration is one embedded schema step.
type migration struct {
	name string
	sql  string
}

func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, fmt.Errorf("read embedded migrations: %w", err)
	}
	var ms []migration
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		b, err := migrationFS.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", e.Name(), err)
		}
		ms = append(ms, migration{name: e.Name(), sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].name < ms[j].name })
	return ms, nil
}

// migrate applies every embedded migration not yet recorded in the
// migrations table, in lexical order, each in its own transaction together
// with its record, so a crash leaves the schema at a whole step. upTo, when
// not empty, stops after the migration with that name prefix (tests use it
// to build an older schema).
func migrate(ctx context.Context, db *sql.DB, upTo string, now func() time.Time) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS migrations (
		name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL) WITHOUT ROWID`); err != nil {
		return fmt.Errorf("create migrations table: %w", err)
	}
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	for _, m := range ms {
		if err := applyMigration(ctx, db, m, now); err != nil {
			return err
		}
		if upTo != "" && strings.HasPrefix(m.name, upTo) {
			break
		}
	}
	return nil
}

func applyMigration(ctx context.Context, db *sql.DB, m migration, now func() time.Time) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migration %s: begin: %w", m.name, err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM migrations WHERE name = ?`, m.name).Scan(&n); err != nil {
		return fmt.Errorf("migration %s: check: %w", m.name, err)
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO migrations (name, applied_at) VALUES (?, ?)`, m.name, now().UnixMilli()); err != nil {
		return fmt.Errorf("migration %s: record: %w", m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migration %s: commit: %w", m.name, err)
	}
	return nil
}

// AppliedMigrations lists the names of the migrations recorded in the
// database, in order; the diagnostics page shows it.
func (s *Store) AppliedMigrations(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name FROM migrations ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("list migrations: %w", err)
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

// inTx runs fn in a write transaction and commits it if fn returns nil.
func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v)
}
