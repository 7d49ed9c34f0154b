package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Settings keys in the settings table.
const (
	keySettings = "settings"
	keyAPIKey   = "api_key"
)

// Revision names: one counter for settings (including the API key), one for
// changes to conversations made outside the normal message flow (purges,
// deactivate all, model overrides) that the running app must reload.
const (
	revSettings      = "settings"
	revConversations = "conversations"
	revMemoryEdits   = "memory_edits"
)

// Settings loads the saved settings. Fields missing from the stored JSON (an
// older version wrote it) keep their defaults, and out-of-range values are
// clamped, so the app always gets something it can run with. Nothing saved
// yet gives engine.DefaultSettings().
func (s *Store) Settings(ctx context.Context) (engine.Settings, error) {
	out := engine.DefaultSettings()
	var raw string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, keySettings).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("load settings: %w", err)
	}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		// The stored row is left as it is, so nothing is lost; the caller
		// gets defaults and an error it can show.
		return engine.DefaultSettings(), fmt.Errorf("stored settings are unreadable (%v); using defaults until they are saved again", err)
	}
	out.Clamp()
	return out, nil
}

// SaveSettings validates and stores the settings, and bumps the settings
// revision so other processes see the change. Invalid settings are refused
// with engine.FieldErrors and nothing is written.
func (s *Store) SaveSettings(ctx context.Context, st engine.Settings) (engine.Settings, error) {
	st.Normalize()
	if err := st.Validate(); err != nil {
		return st, err
	}
	b, err := json.Marshal(st)
	if err != nil {
		return st, fmt.Errorf("encode settings: %w", err)
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if err := putSetting(ctx, tx, keySettings, string(b), s.now()); err != nil {
			return err
		}
		return bump(ctx, tx, revSettings)
	})
	if err != nil {
		return st, fmt.Errorf("save settings: %w", err)
	}
	return st, nil
}

func putSetting(ctx context.Context, tx *sql.Tx, key, value string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		key, value, ms(now))
	return err
}

func bump(ctx context.Context, tx *sql.Tx, name string) error {
	_, err := tx.ExecContext(ctx, `UPDATE revisions SET value = value + 1 WHERE name = ?`, name)
	return err
}

// Change tells a watcher what another writer changed.
type Change struct {
	// Settings is true when settings or the API key changed: reload both.
	Settings bool
	// Conversations is true when stored conversations changed outside the
	// message flow (purge, deactivate all, model override): reload the
	// foreground conversation's stored data.
	Conversations bool
	// MemoryEdits is true when the settings window asked for a memory edit: carry out
	// the pending ones (PendingMemoryEdits) through the engine.
	MemoryEdits bool
}

type revs struct{ settings, conversations, memoryEdits int64 }

func (s *Store) revisions(ctx context.Context) (revs, error) {
	var r revs
	rows, err := s.db.QueryContext(ctx, `SELECT name, value FROM revisions`)
	if err != nil {
		return r, err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var v int64
		if err := rows.Scan(&name, &v); err != nil {
			return r, err
		}
		switch name {
		case revSettings:
			r.settings = v
		case revConversations:
			r.conversations = v
		case revMemoryEdits:
			r.memoryEdits = v
		}
	}
	return r, rows.Err()
}

// Watch polls the change counters every interval and reports changes on the
// returned channel until ctx ends, when the channel is closed. A poll is one
// tiny indexed read, so an interval of a few hundred milliseconds is cheap
// and gets a change saved in the settings window to the running app within a
// second. Changes made through this same Store are reported too; reloading
// is idempotent, so that is harmless. Changes that pile up while the
// receiver is busy are merged into one.
func (s *Store) Watch(ctx context.Context, interval time.Duration) (<-chan Change, error) {
	if interval <= 0 {
		return nil, fmt.Errorf("watch interval must be positive, got %v", interval)
	}
	last, err := s.revisions(ctx)
	if err != nil {
		return nil, fmt.Errorf("watch: read revisions: %w", err)
	}
	ch := make(chan Change)
	go func() {
		defer close(ch)
		t := time.NewTicker(interval)
		defer t.Stop()
		var pending Change
		for {
			var out chan<- Change
			if pending.Settings || pending.Conversations || pending.MemoryEdits {
				out = ch
			}
			select {
			case <-ctx.Done():
				return
			case out <- pending:
				pending = Change{}
			case <-t.C:
				cur, err := s.revisions(ctx)
				if err != nil {
					if ctx.Err() == nil && s.Log != nil {
						s.Log.Warn("watch: read revisions failed; will retry", "err", err)
					}
					continue
				}
				if cur.settings != last.settings {
					pending.Settings = true
				}
				if cur.conversations != last.conversations {
					pending.Conversations = true
				}
				if cur.memoryEdits != last.memoryEdits {
					pending.MemoryEdits = true
				}
				last = cur
			}
		}
	}()
	return ch, nil
}
