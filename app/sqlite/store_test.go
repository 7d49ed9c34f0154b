package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

var t0 = time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)

// clock is a settable clock for Store.Now.
type clock struct{ t time.Time }

func (c *clock) Now() time.Time { return c.t }

func openAt(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func openTest(t *testing.T) (*Store, *clock) {
	t.Helper()
	s := openAt(t, t.TempDir())
	c := &clock{t: t0}
	s.Now = c.Now
	return s, c
}

func TestOpenCreatesPrivateWALDatabaseWithAllMigrations(t *testing.T) {
	dir := t.TempDir()
	s := openAt(t, dir)
	ctx := context.Background()
	if s.Recovery() != nil {
		t.Errorf("fresh database reported a recovery: %+v", s.Recovery())
	}
	if _, err := s.SaveSettings(ctx, engine.DefaultSettings()); err != nil {
		t.Fatalf("save settings: %v", err)
	}
	files := []string{FileName, FileName + "-wal", FileName + "-shm"}
	for _, name := range files {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("expected %s to exist: %v", name, err)
		}
	}
	var journal string
	var fk int
	if err := s.db.QueryRow("PRAGMA journal_mode").Scan(&journal); err != nil || journal != "wal" {
		t.Errorf("journal_mode = %q (%v), want wal", journal, err)
	}
	if err := s.db.QueryRow("PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		t.Errorf("foreign_keys = %d (%v), want 1", fk, err)
	}
	got, err := s.AppliedMigrations(ctx)
	if want := embeddedMigrations(t); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("applied migrations = %v (%v), want %v", got, err, want)
	}
	// Last: under Wine this skips (see testkit.CheckPrivateFile).
	for _, name := range files {
		testkit.CheckPrivateFile(t, filepath.Join(dir, name))
	}
}

// On Unix a database file made world-readable is made private again; Windows has no
// such mode bits (Chmod only sets the read-only attribute), and there the file keeps
// the owner-only access of the folder it is in.
func TestOpenFixesTheModeOfAnExistingWorldReadableFile(t *testing.T) {
	dir := t.TempDir()
	openAt(t, dir).Close()
	path := filepath.Join(dir, FileName)
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	openAt(t, dir)
	testkit.CheckPrivateFile(t, path)
}

// userConfigVar is the environment variable os.UserConfigDir reads on this system.
func userConfigVar() string {
	switch runtime.GOOS {
	case "windows":
		return "AppData"
	case "darwin", "ios", "plan9":
		return "HOME" // $HOME/Library/Application Support, $home/lib
	}
	return "XDG_CONFIG_HOME"
}

func TestOpenWithoutDirUsesClankerInUserConfigDir(t *testing.T) {
	base := t.TempDir()
	t.Setenv(userConfigVar(), base)
	s := openAt(t, "")
	want, _ := DefaultDir()
	if !strings.HasPrefix(want, base) || s.Path() != filepath.Join(want, FileName) {
		t.Errorf("Open(\"\") path = %s, want %s inside %s", s.Path(), filepath.Join(want, FileName), base)
	}
}

func TestReopenKeepsDataAndDoesNotReapplyMigrations(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s := openAt(t, dir)
	if err := s.SetMode(ctx, "c1", engine.ModeActive); err != nil {
		t.Fatal(err)
	}
	var before int64
	s.db.QueryRow(`SELECT applied_at FROM migrations WHERE name = '0001_base.sql'`).Scan(&before)
	s.Close()

	s2 := openAt(t, dir)
	c, _, err := s2.Conversation(ctx, "c1")
	if err != nil || c.Mode != engine.ModeActive {
		t.Errorf("after reopen conversation c1 mode = %q (%v), want active", c.Mode, err)
	}
	var after, count int64
	s2.db.QueryRow(`SELECT applied_at FROM migrations WHERE name = '0001_base.sql'`).Scan(&after)
	s2.db.QueryRow(`SELECT count(*) FROM migrations`).Scan(&count)
	if want := len(embeddedMigrations(t)); after != before || count != int64(want) {
		t.Errorf("migrations re-run on reopen: applied_at %d -> %d, %d rows (want unchanged, %d rows)", before, after, count, want)
	}
}

func TestUpgradeFromBaseSchemaKeepsDataAndAddsModelOverride(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	raw, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(context.Background(), raw, "0001", time.Now); err != nil {
		t.Fatalf("build 0001-only database: %v", err)
	}
	stmts := []string{
		`INSERT INTO conversations (id, mode, summary, profiles, last_seen, created_at, updated_at)
		 VALUES ('old', 'available', 'they like chess', '{"Ann":"plays chess"}', 1, 1, 1)`,
		`INSERT INTO settings (key, value, updated_at) VALUES ('settings', '{"endpoint":"https://api.x.ai/v1","model":"grok","historySize":50}', 1)`,
		`INSERT INTO usage (conversation_id, model, prompt_tokens, completion_tokens, at) VALUES ('old', 'grok', 10, 5, 1)`,
	}
	for _, q := range stmts {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("seed 0001 data: %v", err)
		}
	}
	var cols int
	raw.QueryRow(`SELECT count(*) FROM pragma_table_info('conversations') WHERE name = 'model_override'`).Scan(&cols)
	if cols != 0 {
		t.Fatalf("0001-only schema already has model_override")
	}
	raw.Close()

	s := openAt(t, dir)
	ctx := context.Background()
	if s.Recovery() != nil {
		t.Fatalf("upgrade must not be treated as damage: %+v", s.Recovery())
	}
	c, _, err := s.Conversation(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	if c.Mode != engine.ModeAvailable || c.Memory.Summary != "they like chess" || c.Memory.Profiles["Ann"] != "plays chess" || c.ModelOverride != "" {
		t.Errorf("upgraded conversation = %+v; want available, summary and profile kept, no override", c)
	}
	if err := s.SetModelOverride(ctx, "old", "grok-4-fast"); err != nil {
		t.Fatalf("model override after upgrade: %v", err)
	}
	if c, _, _ := s.Conversation(ctx, "old"); c.ModelOverride != "grok-4-fast" || c.Mode != engine.ModeAvailable {
		t.Errorf("after override: %+v", c)
	}
	st, err := s.Settings(ctx)
	if err != nil || st.HistorySize != 50 || st.Model != "grok" || !st.RelaxedResponsiveness {
		t.Errorf("upgraded settings = %+v (%v); want history 50, model grok, relaxed default true", st, err)
	}
	totals, err := s.UsageByConversation(ctx, time.UnixMilli(0), time.UnixMilli(2))
	if err != nil || len(totals) != 1 || totals[0].Tokens.Total() != 15 {
		t.Errorf("usage after upgrade = %+v (%v), want 15 tokens for old", totals, err)
	}
	if got, _ := s.AppliedMigrations(ctx); !reflect.DeepEqual(got, embeddedMigrations(t)) {
		t.Errorf("applied migrations after upgrade = %v", got)
	}
}

// makeDB builds a healthy database with some data and returns its bytes.
func makeDB(t *testing.T, dir string) []byte {
	t.Helper()
	s := openAt(t, dir)
	ctx := context.Background()
	for i := 0; i < 300; i++ {
		id := "conv-" + strings.Repeat("x", i%50) + string(rune('a'+i%26))
		if err := s.SaveMemory(ctx, id+string(rune('0'+i%10)), engine.Memory{Summary: strings.Repeat("summary ", 40)}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close() // the last close checkpoints the WAL into the main file
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDamagedDatabaseIsMovedAsideAndReplaced(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, dir, path string)
	}{
		{"garbage file", func(t *testing.T, dir, path string) {
			os.WriteFile(path, bytes.Repeat([]byte("not a database! "), 512), 0o600)
		}},
		{"short garbage", func(t *testing.T, dir, path string) {
			os.WriteFile(path, []byte("hello"), 0o600)
		}},
		{"truncated database", func(t *testing.T, dir, path string) {
			b := makeDB(t, dir)
			os.WriteFile(path, b[:len(b)*2/5], 0o600)
		}},
		{"database failing integrity check", func(t *testing.T, dir, path string) {
			// A schema that says the index covers a different column than
			// the one it was built from: the file opens fine, but
			// integrity_check finds index entries that do not match rows.
			db, err := sql.Open("sqlite", "file:"+path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, q := range []string{
				`CREATE TABLE t (x INTEGER, y INTEGER)`,
				`CREATE INDEX t_x ON t (x)`,
				`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
				 INSERT INTO t SELECT i, 1000 - i FROM n`,
				`PRAGMA writable_schema = ON`,
				`UPDATE sqlite_schema SET sql = 'CREATE INDEX t_x ON t (y)' WHERE name = 't_x'`,
			} {
				if _, err := db.Exec(q); err != nil {
					t.Fatalf("build inconsistent database: %s: %v", q, err)
				}
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, FileName)
			c.damage(t, dir, path)
			damaged, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			s := openAt(t, dir)
			rec := s.Recovery()
			if rec == nil {
				t.Fatalf("Open accepted a damaged database without recovering")
			}
			kept, err := os.ReadFile(rec.MovedTo)
			if err != nil || !bytes.Equal(kept, damaged) {
				t.Errorf("damaged file not kept byte-for-byte at %s (err %v, %d vs %d bytes)", rec.MovedTo, err, len(kept), len(damaged))
			}
			if !strings.Contains(rec.Message(), rec.MovedTo) || rec.Reason == "" {
				t.Errorf("recovery should explain itself and say where the file went: %+v / %q", rec, rec.Message())
			}
			t.Logf("reason: %s", rec.Reason)
			ctx := context.Background()
			if err := s.SetMode(ctx, "fresh", engine.ModeActive); err != nil {
				t.Fatalf("fresh database unusable: %v", err)
			}
			s.Close()
			again := openAt(t, dir)
			if again.Recovery() != nil {
				t.Errorf("second open recovered again (loop): %+v", again.Recovery())
			}
			if c, _, _ := again.Conversation(ctx, "fresh"); c.Mode != engine.ModeActive {
				t.Errorf("data written after recovery lost: mode %q", c.Mode)
			}
			matches, _ := filepath.Glob(filepath.Join(dir, FileName+".damaged-*"))
			if len(matches) == 0 {
				t.Errorf("no damaged-* file left in %s", dir)
			}
		})
	}
}

func TestHealthyDatabaseIsNeverMovedAside(t *testing.T) {
	dir := t.TempDir()
	makeDB(t, dir)
	s := openAt(t, dir)
	if s.Recovery() != nil {
		t.Fatalf("healthy database was treated as damaged: %+v", s.Recovery())
	}
	if cs, err := s.Conversations(context.Background()); err != nil || len(cs) < 200 {
		t.Errorf("healthy data missing after reopen: %d conversations (%v)", len(cs), err)
	}
}

func TestEmptyFileIsANewDatabaseNotDamage(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, FileName), nil, 0o600)
	if s := openAt(t, dir); s.Recovery() != nil {
		t.Errorf("empty file was treated as damage: %+v", s.Recovery())
	}
}

func TestUnreadableDirectoryIsAnErrorNotARecovery(t *testing.T) {
	if os.Geteuid() == 0 || runtime.GOOS == "windows" {
		// root ignores permission bits, and Windows has none for directories (Chmod only
		// sets the read-only attribute, which Windows ignores on a folder): use a path
		// under a regular file instead, which no system can create.
		f := filepath.Join(t.TempDir(), "file")
		os.WriteFile(f, nil, 0o600)
		if _, err := Open(filepath.Join(f, "sub")); err == nil {
			t.Errorf("Open under a regular file should fail")
		}
		return
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o500)
	defer os.Chmod(dir, 0o700)
	if _, err := Open(filepath.Join(dir, "sub")); err == nil {
		t.Errorf("Open in an unwritable directory should fail")
	}
}

func TestIsDamageIgnoresOrdinaryErrors(t *testing.T) {
	if isDamage(errors.New("disk full")) || isDamage(nil) {
		t.Errorf("plain errors must not count as damage")
	}
}

// embeddedMigrations lists the migration files compiled into the store, in order; the list
// starts with the five every later test of an upgrade relies on.
func embeddedMigrations(t *testing.T) []string {
	t.Helper()
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.name)
	}
	if len(names) < 6 || names[0] != "0001_base.sql" || names[5] != "0006_decisions.sql" {
		t.Fatalf("embedded migrations = %v, want 0001_base.sql .. 0006_decisions.sql first", names)
	}
	return names
}
