package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// EngineStore is the store as the engine sees it: it implements engine.Store
// on top of a Store. It is a separate type, not more methods on Store,
// because the engine's contract (no context, int counts, engine types) is a
// narrower view of the same data than the one the settings window and the
// diagnostics use, and Store already has a DeactivateAll of its own shape.
type EngineStore struct {
	s *Store
	// Timeout bounds each call so a database held by another process cannot
	// stall the engine goroutine for longer than busy_timeout plus a little.
	Timeout time.Duration
}

var _ engine.Store = (*EngineStore)(nil)

// Engine returns the engine's view of this store.
func (s *Store) Engine() *EngineStore {
	return &EngineStore{s: s, Timeout: busyTimeout + 2*time.Second}
}

func (e *EngineStore) ctx() (context.Context, context.CancelFunc) {
	if e.Timeout <= 0 {
		return context.Background(), func() {}
	}
	return context.WithTimeout(context.Background(), e.Timeout)
}

func msOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// LoadConversation reads what is stored about id. A conversation never
// written reports ok=false, which the engine reads as Deactivated.
func (e *EngineStore) LoadConversation(id engine.ConversationID) (engine.Conversation, bool, error) {
	ctx, cancel := e.ctx()
	defer cancel()
	c, ok, err := e.s.Conversation(ctx, string(id))
	if err != nil || !ok {
		return engine.Conversation{}, false, err
	}
	return c, true, nil
}

// SaveConversation writes the whole engine record in one statement, creating
// the row when needed; memory and the model override are left alone.
//
// last_seen never moves backwards, so a record the engine loaded a while ago
// cannot undo a newer sighting, and a record with no LastSeen (a mode chosen
// from the tray for a conversation not on screen) counts as seen now: the user
// just acted on it, so housekeeping must not forget it.
func (e *EngineStore) SaveConversation(rec engine.Conversation) error {
	if err := checkID(string(rec.ID)); err != nil {
		return fmt.Errorf("save conversation: %w", err)
	}
	mode, err := storedMode(rec.Mode)
	if err != nil {
		return fmt.Errorf("save conversation %s: %w", rec.ID, err)
	}
	announced := rec.Announced
	if announced == "" {
		announced = engine.ModeDeactivated // never told anything reads as told nothing is on
	}
	announced, err = storedMode(announced)
	if err != nil {
		return fmt.Errorf("save conversation %s: %w", rec.ID, err)
	}
	lp, dc := rec.LastProcessed, rec.Decided
	if err := checkText("last processed message", lp.ID+lp.Sender+lp.Text); err != nil {
		return fmt.Errorf("save conversation %s: %w", rec.ID, err)
	}
	if err := checkText("decided message", dc.ID+dc.Sender+dc.Text); err != nil {
		return fmt.Errorf("save conversation %s: %w", rec.ID, err)
	}
	people, err := json.Marshal(append([]string{}, rec.Participants...))
	if err != nil {
		return fmt.Errorf("save conversation %s: encode participants: %w", rec.ID, err)
	}
	header, err := json.Marshal(append([]string{}, rec.Header...))
	if err != nil {
		return fmt.Errorf("save conversation %s: encode header: %w", rec.ID, err)
	}
	if err := checkText("name, header and participants", rec.Name+string(header)+string(people)); err != nil {
		return fmt.Errorf("save conversation %s: %w", rec.ID, err)
	}
	now := ms(e.s.now())
	seen := msOrZero(rec.LastSeen)
	if seen == 0 {
		seen = now
	}
	ctx, cancel := e.ctx()
	defer cancel()
	_, err = e.s.db.ExecContext(ctx, `INSERT INTO conversations (id, mode, last_message_id, last_message_sender,
		last_message_text, last_seen, last_message_at, last_news_check, decided_id, decided_sender, decided_text,
		announced, newest_at, name, header, participants, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET mode = excluded.mode, last_message_id = excluded.last_message_id,
		last_message_sender = excluded.last_message_sender, last_message_text = excluded.last_message_text,
		last_seen = max(conversations.last_seen, excluded.last_seen), last_message_at = excluded.last_message_at,
		last_news_check = excluded.last_news_check, decided_id = excluded.decided_id,
		decided_sender = excluded.decided_sender, decided_text = excluded.decided_text,
		announced = excluded.announced, newest_at = excluded.newest_at,
		name = CASE WHEN excluded.name = '' THEN conversations.name ELSE excluded.name END,
		header = CASE WHEN excluded.header = '[]' THEN conversations.header ELSE excluded.header END,
		participants = CASE WHEN excluded.participants = '[]' THEN conversations.participants ELSE excluded.participants END,
		updated_at = excluded.updated_at`,
		string(rec.ID), string(mode), lp.ID, lp.Sender, lp.Text, seen, msOrZero(rec.LastMessageAt),
		msOrZero(rec.LastNewsCheck), dc.ID, dc.Sender, dc.Text, string(announced), msOrZero(rec.NewestAt),
		rec.Name, string(header), string(people), now, now)
	if err != nil {
		return fmt.Errorf("save conversation %s: %w", rec.ID, err)
	}
	return nil
}

// maxLeftover bounds a stored leftover: it is a part of one message Clanker typed, and the
// page refuses to insert more than this at once.
const maxLeftover = 4000

// SaveLeftover records Clanker's partial text left in id's compose box, or clears the record
// when text is empty. A record is written even for a conversation with no row yet (one the
// user purged while Clanker typed), since the text is in the box either way; clearing a
// conversation without a row changes nothing.
func (e *EngineStore) SaveLeftover(id engine.ConversationID, text string) error {
	if err := checkID(string(id)); err != nil {
		return fmt.Errorf("save leftover text: %w", err)
	}
	if len(text) > maxLeftover {
		return fmt.Errorf("save leftover text of %s: %d bytes is more than the %d a message part may have", id, len(text), maxLeftover)
	}
	ctx, cancel := e.ctx()
	defer cancel()
	var err error
	if text == "" {
		_, err = e.s.db.ExecContext(ctx, `UPDATE conversations SET leftover_text = '' WHERE id = ? AND leftover_text != ''`, string(id))
	} else {
		now := ms(e.s.now())
		_, err = e.s.db.ExecContext(ctx, `INSERT INTO conversations (id, mode, leftover_text, last_seen, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET leftover_text = excluded.leftover_text`,
			string(id), string(engine.ModeDeactivated), text, now, now, now)
	}
	if err != nil {
		return fmt.Errorf("save leftover text of %s: %w", id, err)
	}
	return nil
}

// ApplyContext applies the model's context update to conversation id under
// the engine's ContextUpdate contract: a non-empty summary replaces the old
// one (an empty one changes nothing, so a model that forgets the field
// cannot wipe the memory), CustomizationSet sets or (with nil) clears the
// customization, and ProfilesSet replaces or (nil or empty) clears the
// profiles. The read and the write are one transaction, so a concurrent
// writer (the settings window purging memory) cannot be half-overwritten.
func (e *EngineStore) ApplyContext(id engine.ConversationID, upd engine.ContextUpdate) error {
	if err := checkID(string(id)); err != nil {
		return fmt.Errorf("apply context: %w", err)
	}
	if upd.Empty() {
		return nil
	}
	ctx, cancel := e.ctx()
	defer cancel()
	err := e.s.inTx(ctx, func(tx *sql.Tx) error {
		var mem engine.Memory
		var profiles string
		err := tx.QueryRowContext(ctx, `SELECT summary, customization, profiles FROM conversations WHERE id = ?`, string(id)).
			Scan(&mem.Summary, &mem.Customization, &profiles)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			profiles = "{}"
		case err != nil:
			return err
		}
		if upd.Summary != nil && *upd.Summary != "" {
			mem.Summary = *upd.Summary
		}
		if upd.CustomizationSet {
			mem.Customization = ""
			if upd.Customization != nil {
				mem.Customization = *upd.Customization
			}
		}
		// Profiles not in the update are written back exactly as found, even
		// if they are unreadable, so nothing is lost.
		encoded := profiles
		if upd.ProfilesSet {
			p := maps.Clone(upd.Profiles)
			if p == nil {
				p = map[string]string{}
			}
			b, err := json.Marshal(p)
			if err != nil {
				return fmt.Errorf("encode profiles: %w", err)
			}
			encoded = string(b)
		}
		for field, v := range map[string]string{"summary": mem.Summary, "customization": mem.Customization, "profiles": encoded} {
			if err := checkText(field, v); err != nil {
				return err
			}
		}
		now := ms(e.s.now())
		_, err = tx.ExecContext(ctx, `INSERT INTO conversations (id, summary, customization, profiles, last_seen, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET summary = excluded.summary, customization = excluded.customization,
			profiles = excluded.profiles, updated_at = excluded.updated_at`,
			string(id), mem.Summary, mem.Customization, encoded, now, now, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("apply context to conversation %s: %w", id, err)
	}
	return nil
}

// DeactivateAll sets every stored conversation to Deactivated.
func (e *EngineStore) DeactivateAll() (int, error) {
	ctx, cancel := e.ctx()
	defer cancel()
	n, err := e.s.DeactivateAll(ctx)
	return int(n), err
}

// MarkSeen moves last_seen forward for the stored conversations among ids.
// Conversations with no row are not created: a sidebar row that was merely
// visible has nothing to remember, and creating rows for every one would
// fill the table with defaults.
func (e *EngineStore) MarkSeen(ids []engine.ConversationID, t time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	ctx, cancel := e.ctx()
	defer cancel()
	at := msOrZero(t)
	err := e.s.inTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `UPDATE conversations SET last_seen = max(last_seen, ?) WHERE id = ?`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, id := range ids {
			if err := checkID(string(id)); err != nil {
				return err
			}
			if _, err := stmt.ExecContext(ctx, at, string(id)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("mark %d conversations seen: %w", len(ids), err)
	}
	return nil
}

// ForgetUnseen deletes every conversation (and its cached images) last seen
// before the cutoff.
func (e *EngineStore) ForgetUnseen(before time.Time) (int, error) {
	ctx, cancel := e.ctx()
	defer cancel()
	n, err := e.s.ForgetUnseenSince(ctx, before)
	return int(n), err
}

// maxSeenPerConversation is how many message ids the store keeps per conversation: far more
// than a conversation pane ever draws, so an id that scrolls back into view is still known,
// and small (a few hundred KiB in all) next to the rest of the database.
const maxSeenPerConversation = 3000

// RecordMessages remembers that the messages ids were seen in conversation id, keeping the
// newest maxSeenPerConversation. An id recorded before keeps its place (and its
// conversation: the first sighting wins, so a view that mixed conversations cannot move an
// id to the wrong one). Pending ids (tmp_) are not recorded: the page replaces them.
func (e *EngineStore) RecordMessages(id engine.ConversationID, ids []string) error {
	if err := checkID(string(id)); err != nil {
		return fmt.Errorf("record message ids: %w", err)
	}
	ctx, cancel := e.ctx()
	defer cancel()
	base := e.s.now().UnixMicro()
	err := e.s.inTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO seen_messages (conversation_id, message_id, seq) VALUES (?, ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		added := false
		for i, m := range ids {
			if m == "" || len(m) > MaxIDLength || strings.HasPrefix(m, "tmp_") {
				continue
			}
			res, err := stmt.ExecContext(ctx, string(id), m, base+int64(i))
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n > 0 {
				added = true
			}
		}
		if !added {
			return nil
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM seen_messages WHERE conversation_id = ?1 AND seq <
			(SELECT seq FROM seen_messages WHERE conversation_id = ?1 ORDER BY seq DESC LIMIT 1 OFFSET ?2)`,
			string(id), maxSeenPerConversation-1)
		return err
	})
	if err != nil {
		return fmt.Errorf("record %d message ids of %s: %w", len(ids), id, err)
	}
	return nil
}

// MessageOwners reports, for each of ids recorded before, the conversation it was seen in
// first. Ids never recorded are absent from the map.
func (e *EngineStore) MessageOwners(ids []string) (map[string]engine.ConversationID, error) {
	out := map[string]engine.ConversationID{}
	ctx, cancel := e.ctx()
	defer cancel()
	for len(ids) > 0 {
		n := min(len(ids), 400) // well under SQLite's limit on bound parameters
		args := make([]any, n)
		for i, m := range ids[:n] {
			args[i] = m
		}
		rows, err := e.s.db.QueryContext(ctx, `SELECT message_id, conversation_id FROM seen_messages
			WHERE message_id IN (`+strings.TrimPrefix(placeholders(n), ", ")+`) ORDER BY seq`, args...)
		if err != nil {
			return nil, fmt.Errorf("look up %d message ids: %w", len(ids), err)
		}
		for rows.Next() {
			var m, c string
			if err := rows.Scan(&m, &c); err != nil {
				rows.Close()
				return nil, fmt.Errorf("look up message ids: %w", err)
			}
			if _, ok := out[m]; !ok {
				out[m] = engine.ConversationID(c)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("look up message ids: %w", err)
		}
		ids = ids[n:]
	}
	return out, nil
}

// HistoryRepair says what RepairHistory changed.
type HistoryRepair struct {
	// ForeignIDs is how many message ids were removed from a conversation they had been
	// recorded in after another conversation (where they were seen first).
	ForeignIDs int
	// Pointers is how many conversations had their last-processed or decided message cleared
	// because it was another conversation's message.
	Pointers int
}

// RepairHistory removes from each conversation's stored history what belongs to another
// conversation: message ids recorded there after they were first seen elsewhere (a view that
// mixed two conversations, taken as one by an earlier version), and last-processed or decided
// pointers that name such a message (the next view of the conversation places them afresh).
// It is safe to run at any time and changes nothing on a clean database.
func (s *Store) RepairHistory(ctx context.Context) (HistoryRepair, error) {
	var r HistoryRepair
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM seen_messages AS s WHERE EXISTS (
			SELECT 1 FROM seen_messages AS f WHERE f.message_id = s.message_id AND f.conversation_id != s.conversation_id
			AND (f.seq < s.seq OR (f.seq = s.seq AND f.conversation_id < s.conversation_id)))`)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		r.ForeignIDs = int(n)
		res, err = tx.ExecContext(ctx, `UPDATE conversations AS c SET
			last_message_id = CASE WHEN c.last_message_id IN (SELECT message_id FROM seen_messages WHERE conversation_id != c.id) THEN '' ELSE c.last_message_id END,
			last_message_sender = CASE WHEN c.last_message_id IN (SELECT message_id FROM seen_messages WHERE conversation_id != c.id) THEN '' ELSE c.last_message_sender END,
			last_message_text = CASE WHEN c.last_message_id IN (SELECT message_id FROM seen_messages WHERE conversation_id != c.id) THEN '' ELSE c.last_message_text END,
			decided_id = CASE WHEN c.decided_id IN (SELECT message_id FROM seen_messages WHERE conversation_id != c.id) THEN '' ELSE c.decided_id END,
			decided_sender = CASE WHEN c.decided_id IN (SELECT message_id FROM seen_messages WHERE conversation_id != c.id) THEN '' ELSE c.decided_sender END,
			decided_text = CASE WHEN c.decided_id IN (SELECT message_id FROM seen_messages WHERE conversation_id != c.id) THEN '' ELSE c.decided_text END
			WHERE c.last_message_id IN (SELECT message_id FROM seen_messages WHERE conversation_id != c.id)
			OR c.decided_id IN (SELECT message_id FROM seen_messages WHERE conversation_id != c.id)`)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		r.Pointers = int(n)
		return err
	})
	if err != nil {
		return HistoryRepair{}, fmt.Errorf("repair stored message history: %w", err)
	}
	return r, nil
}
