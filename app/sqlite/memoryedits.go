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

// States of a memory edit (the memory_edits table).
const (
	EditPending   = "pending"
	EditDone      = "done"
	EditFailed    = "failed"
	EditCancelled = "cancelled"
)

// MemoryEdit is a memory edit the settings window asked for and the running app carries
// out through its engine. An empty Memory clears the conversation's memory.
type MemoryEdit struct {
	ID           int64
	Conversation engine.ConversationID
	Memory       engine.Memory
	At           time.Time
}

// encodeMemory checks the sizes of m and returns its profiles as stored.
func encodeMemory(id string, m engine.Memory) (string, error) {
	if err := checkID(id); err != nil {
		return "", err
	}
	if m.Profiles == nil {
		m.Profiles = map[string]string{}
	}
	p, err := json.Marshal(m.Profiles)
	if err != nil {
		return "", fmt.Errorf("conversation %s: encode profiles: %w", id, err)
	}
	for field, v := range map[string]string{"summary": m.Summary, "customization": m.Customization, "profiles": string(p)} {
		if err := checkText(field, v); err != nil {
			return "", fmt.Errorf("conversation %s: %w", id, err)
		}
	}
	return string(p), nil
}

// RequestMemoryEdit records an edit of conversation id's memory for the running app to
// carry out, and tells the app through the memory_edits revision. Finished requests are
// removed at the same time, so the table only ever holds a few rows.
func (s *Store) RequestMemoryEdit(ctx context.Context, id string, m engine.Memory) (int64, error) {
	profiles, err := encodeMemory(id, m)
	if err != nil {
		return 0, err
	}
	var editID int64
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM memory_edits WHERE state != ?`, EditPending); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO memory_edits (conversation_id, summary, customization, profiles, created_at)
			VALUES (?, ?, ?, ?, ?)`, id, m.Summary, m.Customization, profiles, ms(s.now()))
		if err != nil {
			return err
		}
		if editID, err = res.LastInsertId(); err != nil {
			return err
		}
		return bump(ctx, tx, revMemoryEdits)
	})
	if err != nil {
		return 0, fmt.Errorf("ask for a memory edit of conversation %s: %w", id, err)
	}
	return editID, nil
}

// PendingMemoryEdits lists the edits not yet carried out, oldest first.
func (s *Store) PendingMemoryEdits(ctx context.Context) ([]MemoryEdit, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, conversation_id, summary, customization, profiles, created_at
		FROM memory_edits WHERE state = ? ORDER BY id`, EditPending)
	if err != nil {
		return nil, fmt.Errorf("list memory edits: %w", err)
	}
	defer rows.Close()
	var out []MemoryEdit
	for rows.Next() {
		var e MemoryEdit
		var conv, profiles string
		var at int64
		if err := rows.Scan(&e.ID, &conv, &e.Memory.Summary, &e.Memory.Customization, &profiles, &at); err != nil {
			return nil, fmt.Errorf("list memory edits: %w", err)
		}
		e.Conversation, e.At = engine.ConversationID(conv), fromMS(at)
		if err := json.Unmarshal([]byte(profiles), &e.Memory.Profiles); err != nil {
			return nil, fmt.Errorf("memory edit %d: profiles are not a JSON object of strings: %w", e.ID, err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// ApplyMemoryEdit writes the memory of a pending edit and marks it done, in one
// transaction. An edit that is no longer pending (the window stopped waiting for it, or it
// was carried out already) is left alone and reports applied=false.
func (s *Store) ApplyMemoryEdit(ctx context.Context, editID int64) (applied bool, err error) {
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		var conv, summary, customization, profiles string
		err := tx.QueryRowContext(ctx, `SELECT conversation_id, summary, customization, profiles FROM memory_edits
			WHERE id = ? AND state = ?`, editID, EditPending).Scan(&conv, &summary, &customization, &profiles)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		now := ms(s.now())
		if _, err := tx.ExecContext(ctx, `INSERT INTO conversations (id, summary, customization, profiles, last_seen, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET summary = excluded.summary, customization = excluded.customization,
			profiles = excluded.profiles, updated_at = excluded.updated_at`,
			conv, summary, customization, profiles, now, now, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE memory_edits SET state = ? WHERE id = ?`, EditDone, editID); err != nil {
			return err
		}
		applied = true
		return bump(ctx, tx, revConversations)
	})
	if err != nil {
		return false, fmt.Errorf("apply memory edit %d: %w", editID, err)
	}
	return applied, nil
}

// FailMemoryEdit marks a pending edit failed, with the reason the window shows.
func (s *Store) FailMemoryEdit(ctx context.Context, editID int64, reason string) error {
	if len(reason) > 2000 {
		reason = reason[:2000]
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE memory_edits SET state = ?, error = ? WHERE id = ? AND state = ?`,
		EditFailed, reason, editID, EditPending); err != nil {
		return fmt.Errorf("mark memory edit %d failed: %w", editID, err)
	}
	return nil
}

// CancelMemoryEdit withdraws an edit the app has not carried out yet and reports whether
// it was still pending; false means the app got to it first (read its state).
func (s *Store) CancelMemoryEdit(ctx context.Context, editID int64) (bool, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE memory_edits SET state = ? WHERE id = ? AND state = ?`,
		EditCancelled, editID, EditPending)
	if err != nil {
		return false, fmt.Errorf("withdraw memory edit %d: %w", editID, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// MemoryEditState returns the state of an edit and, when it failed, why.
func (s *Store) MemoryEditState(ctx context.Context, editID int64) (state, reason string, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT state, error FROM memory_edits WHERE id = ?`, editID).Scan(&state, &reason)
	if err != nil {
		return "", "", fmt.Errorf("read memory edit %d: %w", editID, err)
	}
	return state, reason, nil
}
