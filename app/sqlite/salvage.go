package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Salvaged says what Open could read from a damaged database and carried into the new one,
// and what it could not. Damage is usually local (a page or two), so the settings, the API
// key kept in the file, the conversations' modes and memory and the usage records on the
// pages that still read are worth more than a clean start.
type Salvaged struct {
	// Settings is true when the saved settings were read and carried over.
	Settings bool
	// APIKey is true when an API key kept in the database (no keychain) was carried over.
	APIKey bool
	// Conversations is how many conversations (mode, memory, model override) were carried over.
	Conversations int
	// Usage is how many usage records were carried over.
	Usage int
	// Lost lists, as phrases for the user, what could not be read.
	Lost []string
}

// salvageTables are the tables copied row by row, with the phrase shown when some rows of
// one could not be read. The image cache is left out: it is refilled from the page.
var salvageTables = []struct{ name, lost string }{
	{"conversations", "some conversations' modes and memory (those conversations start Deactivated)"},
	{"usage", "some usage records (this month's budget may count fewer tokens)"},
}

// salvageData is what was read from the damaged file, waiting to be written into the new one.
type salvageData struct {
	settings map[string]string // settings table rows by key
	tables   map[string]*tableRows
	report   Salvaged
}

type tableRows struct {
	cols []string
	rows [][]any
}

// salvage reads what it can from the damaged database at path. It works on a copy in a
// temporary folder, so the damaged file is kept exactly as it was found; a copy whose
// header is unreadable gets a standard header first, since the header holds no data of
// its own and the pages behind it may be intact.
func salvage(path string) *salvageData {
	out := &salvageData{settings: map[string]string{}, tables: map[string]*tableRows{}}
	lostAll := func() *salvageData {
		out.report = Salvaged{Lost: []string{"everything: the file could not be read as a database"}}
		return out
	}
	tmp, err := os.MkdirTemp("", "clanker-salvage-")
	if err != nil {
		return lostAll()
	}
	defer os.RemoveAll(tmp)
	cp := filepath.Join(tmp, FileName)
	for _, suffix := range []string{"", "-wal"} {
		if err := copyFile(path+suffix, cp+suffix); err != nil && !(suffix != "" && errors.Is(err, os.ErrNotExist)) {
			return lostAll()
		}
	}
	if err := repairHeader(cp); err != nil {
		return lostAll()
	}
	db, err := sql.Open("sqlite", "file:"+cp+"?mode=ro")
	if err != nil {
		return lostAll()
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	var tables int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&tables); err != nil {
		return lostAll() // not even the list of tables reads
	}

	for _, key := range []string{keySettings, keyAPIKey} {
		var v string
		err := db.QueryRowContext(ctx, `SELECT value FROM settings NOT INDEXED WHERE key = ?`, key).Scan(&v)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil || (key == keySettings && !json.Valid([]byte(v))):
			if key == keySettings {
				out.report.Lost = append(out.report.Lost, "your settings (open Settings to enter them again)")
			} else {
				out.report.Lost = append(out.report.Lost, "the API key kept in the database, if there was one (enter it again in Settings)")
			}
		case key == keySettings:
			out.settings[key], out.report.Settings = v, true
		case strings.TrimSpace(v) != "" && !strings.ContainsAny(v, " \t\r\n"):
			out.settings[key], out.report.APIKey = v, true
		}
	}
	for _, t := range salvageTables {
		rows, complete := readTable(ctx, db, t.name)
		if rows != nil {
			out.tables[t.name] = rows
			switch t.name {
			case "conversations":
				out.report.Conversations = len(rows.rows)
			case "usage":
				out.report.Usage = len(rows.rows)
			}
		}
		if !complete {
			out.report.Lost = append(out.report.Lost, t.lost)
		}
	}
	return out
}

// readTable reads every row of a rowid table it can: in rowid order up to the first
// unreadable page, then backwards from the end up to the same damage, so the rows behind a
// damaged page are kept too. NOT INDEXED keeps a damaged index out of the way. complete is
// false when some rows could not be read.
func readTable(ctx context.Context, db *sql.DB, table string) (*tableRows, bool) {
	out := &tableRows{}
	seen := map[int64]bool{}
	complete := true
	for _, order := range []string{"ASC", "DESC"} {
		rows, err := db.QueryContext(ctx, `SELECT rowid, * FROM `+table+` NOT INDEXED ORDER BY rowid `+order)
		if err != nil {
			complete = false // the driver steps to the first row here, so damage can show now
			continue
		}
		cols, err := rows.Columns()
		if err != nil || len(cols) < 2 {
			rows.Close()
			complete = false
			continue
		}
		out.cols = cols[1:]
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				break
			}
			id, ok := vals[0].(int64)
			if !ok || seen[id] {
				continue
			}
			seen[id] = true
			out.rows = append(out.rows, vals[1:])
		}
		err = rows.Err()
		rows.Close()
		if err == nil {
			return out, true // a whole pass in one direction read every row
		}
		complete = false
	}
	if out.cols == nil {
		return nil, false
	}
	return out, complete
}

// restore writes the salvaged rows into the new database in one transaction, copying the
// columns both schemas have (an older file lacks newer columns, which keep their defaults).
// Rows the new schema refuses are skipped and counted as lost.
func restore(ctx context.Context, db *sql.DB, d *salvageData, now int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for key, v := range d.settings {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO settings (key, value, updated_at) VALUES (?, ?, ?)`, key, v, now); err != nil {
			return fmt.Errorf("restore setting %s: %w", key, err)
		}
	}
	for _, t := range salvageTables {
		rows := d.tables[t.name]
		if rows == nil || len(rows.rows) == 0 {
			continue
		}
		have, err := columnsOf(ctx, tx, t.name)
		if err != nil {
			return err
		}
		var cols []string
		var idx []int
		for i, c := range rows.cols {
			if have[c] {
				cols, idx = append(cols, c), append(idx, i)
			}
		}
		q := `INSERT OR IGNORE INTO ` + t.name + ` (` + strings.Join(cols, ", ") + `) VALUES (?` + strings.Repeat(", ?", len(cols)-1) + `)`
		kept := 0
		for _, r := range rows.rows {
			args := make([]any, len(idx))
			for j, i := range idx {
				args[j] = r[i]
			}
			res, err := tx.ExecContext(ctx, q, args...)
			if err != nil {
				return fmt.Errorf("restore %s: %w", t.name, err)
			}
			if n, _ := res.RowsAffected(); n == 1 {
				kept++
			}
		}
		if kept < len(rows.rows) {
			d.report.Lost = appendOnce(d.report.Lost, t.lost)
		}
		switch t.name {
		case "conversations":
			d.report.Conversations = kept
		case "usage":
			d.report.Usage = kept
		}
	}
	if err := bump(ctx, tx, revSettings); err != nil {
		return err
	}
	if err := bump(ctx, tx, revConversations); err != nil {
		return err
	}
	return tx.Commit()
}

func columnsOf(ctx context.Context, tx *sql.Tx, table string) (map[string]bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, fmt.Errorf("list the columns of %s: %w", table, err)
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		have[n] = true
	}
	return have, rows.Err()
}

func appendOnce(list []string, s string) []string {
	for _, v := range list {
		if v == s {
			return list
		}
	}
	return append(list, s)
}

// repairHeader makes the header of the copy at path readable. A header that is not SQLite's
// is replaced by a standard one.
// The fields that matter for reading are the page size (guessed as the default 4096 bytes,
// which Clanker never changes), a format SQLite reads, and a page count it must take from the
// file size; the freelist is dropped, which only loses free space.
func repairHeader(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 100)
	if _, err := io.ReadFull(f, head); err != nil {
		return err // shorter than a header: nothing to read behind it
	}
	if string(head[:len(sqliteHeader)]) == sqliteHeader {
		// A truncated file has fewer pages than its header says, which SQLite refuses as a
		// whole; the page count is set to what the file holds, so the pages left can be read.
		ps := int64(binary.BigEndian.Uint16(head[16:18]))
		if ps == 1 {
			ps = 65536
		}
		fi, err := f.Stat()
		if err != nil || ps < 512 {
			return err
		}
		if have := uint32(fi.Size() / ps); have < binary.BigEndian.Uint32(head[28:32]) {
			binary.BigEndian.PutUint32(head[28:32], have)
			_, err = f.WriteAt(head[28:32], 28)
		}
		return err
	}
	h := make([]byte, 100)
	copy(h, sqliteHeader)
	h[16], h[17] = 0x10, 0x00 // page size 4096
	h[18], h[19] = 1, 1       // rollback journal: the copy has no WAL index to trust
	h[21], h[22], h[23] = 64, 32, 32
	h[24] = 1           // change counter 1 with version-valid-for 0: the page count below is ignored
	h[40] = 1           // schema cookie
	h[47] = 4           // schema format 4
	h[59] = 1           // UTF-8
	h[96], h[99] = 0, 1 // any SQLite version number
	_, err = f.WriteAt(h, 0)
	return err
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
