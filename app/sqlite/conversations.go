package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Size limits. They are far above what the LLM client keeps (it caps the
// summary and profiles much lower); they exist so a runaway value gets a
// clear error instead of bloating every later read.
const (
	MaxIDLength   = 512
	MaxTextBytes  = 256 << 10
	MaxImageBytes = 16 << 20
	// MaxImagesPerConversation is how many optimised images are kept per
	// conversation; older ones are dropped when a new one is cached.
	MaxImagesPerConversation = 4
)

func checkID(id string) error {
	if id == "" {
		return errors.New("conversation id is empty")
	}
	if len(id) > MaxIDLength {
		return fmt.Errorf("conversation id is too long (%d bytes; at most %d)", len(id), MaxIDLength)
	}
	return nil
}

func checkText(field, v string) error {
	if len(v) > MaxTextBytes {
		return fmt.Errorf("%s is too large (%d bytes; at most %d)", field, len(v), MaxTextBytes)
	}
	return nil
}

const conversationColumns = `id, mode, summary, customization, profiles, last_message_id,
	last_message_sender, last_message_text, last_message_at, last_news_check, model_override, last_seen, leftover_text,
	decided_id, decided_sender, decided_text, announced, newest_at, name, header, participants`

// Conversation returns the stored data for id and stored=true, or defaults
// (Deactivated, empty memory) and stored=false for a conversation never seen
// before. An unknown stored mode reads back as Deactivated, the safe choice.
func (s *Store) Conversation(ctx context.Context, id string) (c engine.Conversation, stored bool, err error) {
	if err := checkID(id); err != nil {
		return engine.Conversation{}, false, err
	}
	row := s.db.QueryRowContext(ctx, `SELECT `+conversationColumns+` FROM conversations WHERE id = ?`, id)
	c, err = scanConversation(row)
	if errors.Is(err, sql.ErrNoRows) {
		return engine.Conversation{ID: engine.ConversationID(id), Mode: engine.ModeDeactivated,
			Memory: engine.Memory{Profiles: map[string]string{}}}, false, nil
	}
	if err != nil {
		return engine.Conversation{}, false, fmt.Errorf("load conversation %s: %w", id, err)
	}
	return c, true, nil
}

// Conversations lists every stored conversation, most recently seen first.
func (s *Store) Conversations(ctx context.Context) ([]engine.Conversation, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+conversationColumns+` FROM conversations ORDER BY last_seen DESC, id`)
	if err != nil {
		return nil, fmt.Errorf("list conversations: %w", err)
	}
	defer rows.Close()
	var out []engine.Conversation
	for rows.Next() {
		c, err := scanConversation(rows)
		if err != nil {
			return nil, fmt.Errorf("list conversations: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

type scanner interface{ Scan(...any) error }

func scanConversation(r scanner) (engine.Conversation, error) {
	var c engine.Conversation
	var id, mode, announced, profiles, header, participants string
	var lastSeen, lastMessageAt, lastNewsCheck, newestAt int64
	m := &c.Memory
	if err := r.Scan(&id, &mode, &m.Summary, &m.Customization, &profiles, &c.LastProcessed.ID,
		&c.LastProcessed.Sender, &c.LastProcessed.Text, &lastMessageAt, &lastNewsCheck, &c.ModelOverride, &lastSeen, &c.Leftover,
		&c.Decided.ID, &c.Decided.Sender, &c.Decided.Text, &announced, &newestAt, &c.Name, &header, &participants); err != nil {
		return c, err
	}
	c.ID = engine.ConversationID(id)
	c.Mode = loadedMode(mode)
	c.Announced = loadedMode(announced)
	c.NewestAt = fromMS(newestAt)
	// A list that does not read back is only a lost cross-check: the next view the engine
	// accepts writes it again.
	if json.Unmarshal([]byte(participants), &c.Participants) != nil || len(c.Participants) == 0 {
		c.Participants = nil
	}
	if json.Unmarshal([]byte(header), &c.Header) != nil || len(c.Header) == 0 {
		c.Header = nil
	}
	c.LastSeen = fromMS(lastSeen)
	c.LastMessageAt, c.LastNewsCheck = fromMS(lastMessageAt), fromMS(lastNewsCheck)
	m.Profiles = map[string]string{}
	if err := json.Unmarshal([]byte(profiles), &m.Profiles); err != nil {
		return c, fmt.Errorf("conversation %s: stored profiles are not a JSON object of strings: %w", c.ID, err)
	}
	if m.Profiles == nil {
		m.Profiles = map[string]string{}
	}
	return c, nil
}

// loadedMode reads a stored mode; anything unexpected (a value written by a newer version, or
// edited by hand) is Deactivated, the only safe reading.
func loadedMode(s string) engine.Mode {
	switch m := engine.Mode(s); m {
	case engine.ModeAvailable, engine.ModeActive:
		return m
	}
	return engine.ModeDeactivated
}

// storedMode maps a mode to the value stored. Uninitialized is a display state derived from
// the settings, never a choice to store.
func storedMode(m engine.Mode) (engine.Mode, error) {
	switch m {
	case "", engine.ModeDeactivated:
		return engine.ModeDeactivated, nil
	case engine.ModeAvailable, engine.ModeActive:
		return m, nil
	}
	return "", fmt.Errorf("mode %q cannot be stored (want deactivated, available or active)", m)
}

// upsert sets columns of one conversation, creating its row (Deactivated)
// when needed. Every write also marks the conversation as seen now, since
// the app only writes about conversations it is looking at.
func (s *Store) upsert(ctx context.Context, id string, set string, args ...any) error {
	if err := checkID(id); err != nil {
		return err
	}
	now := ms(s.now())
	// excluded.* carries the new values into the update branch.
	q := `INSERT INTO conversations (id, last_seen, created_at, updated_at` + set + `)
		VALUES (?, ?, ?, ?` + placeholders(len(args)) + `)
		ON CONFLICT (id) DO UPDATE SET last_seen = excluded.last_seen, updated_at = excluded.updated_at` +
		updateList(set)
	all := append([]any{id, now, now, now}, args...)
	_, err := s.db.ExecContext(ctx, q, all...)
	return err
}

// SetMode stores a conversation's mode.
func (s *Store) SetMode(ctx context.Context, id string, mode engine.Mode) error {
	mode, err := storedMode(mode)
	if err != nil {
		return fmt.Errorf("conversation %s: %w", id, err)
	}
	if err := s.upsert(ctx, id, ", mode", string(mode)); err != nil {
		return fmt.Errorf("save mode of conversation %s: %w", id, err)
	}
	return nil
}

// SaveMemory replaces the summary, customization and profiles of a
// conversation in one write.
func (s *Store) SaveMemory(ctx context.Context, id string, m engine.Memory) error {
	if err := checkText("summary", m.Summary); err != nil {
		return fmt.Errorf("conversation %s: %w", id, err)
	}
	if err := checkText("customization", m.Customization); err != nil {
		return fmt.Errorf("conversation %s: %w", id, err)
	}
	if m.Profiles == nil {
		m.Profiles = map[string]string{}
	}
	p, err := json.Marshal(m.Profiles)
	if err != nil {
		return fmt.Errorf("conversation %s: encode profiles: %w", id, err)
	}
	if err := checkText("profiles", string(p)); err != nil {
		return fmt.Errorf("conversation %s: %w", id, err)
	}
	if err := s.upsert(ctx, id, ", summary, customization, profiles", m.Summary, m.Customization, string(p)); err != nil {
		return fmt.Errorf("save memory of conversation %s: %w", id, err)
	}
	return nil
}

// SetLastMessage stores the last processed message of a conversation.
func (s *Store) SetLastMessage(ctx context.Context, id string, m engine.MessageRef) error {
	if err := checkText("last message", m.ID+m.Sender+m.Text); err != nil {
		return fmt.Errorf("conversation %s: %w", id, err)
	}
	if err := s.upsert(ctx, id, ", last_message_id, last_message_sender, last_message_text", m.ID, m.Sender, m.Text); err != nil {
		return fmt.Errorf("save last message of conversation %s: %w", id, err)
	}
	return nil
}

// SetNewsTimes stores when a conversation last had a new message and when news was last
// checked for it (the idle-time news bookkeeping).
func (s *Store) SetNewsTimes(ctx context.Context, id string, lastMessageAt, lastNewsCheck time.Time) error {
	if err := s.upsert(ctx, id, ", last_message_at, last_news_check", msOrZero(lastMessageAt), msOrZero(lastNewsCheck)); err != nil {
		return fmt.Errorf("save news state of conversation %s: %w", id, err)
	}
	return nil
}

// SetModelOverride sets the model used for one conversation ("" = the
// global model). It is a user setting, so other processes are told.
func (s *Store) SetModelOverride(ctx context.Context, id, model string) error {
	if utf8.RuneCountInString(model) > engine.MaxModelLength {
		return fmt.Errorf("conversation %s: model name is too long (at most %d characters)", id, engine.MaxModelLength)
	}
	if err := checkID(id); err != nil {
		return err
	}
	now := ms(s.now())
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO conversations (id, last_seen, created_at, updated_at, model_override)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET model_override = excluded.model_override,
			updated_at = excluded.updated_at`, id, now, now, now, model); err != nil {
			return err
		}
		return bump(ctx, tx, revConversations)
	})
	if err != nil {
		return fmt.Errorf("save model override of conversation %s: %w", id, err)
	}
	return nil
}

// Touch marks a conversation as seen now (it was opened or showed activity),
// which keeps ForgetUnseenSince from removing it.
func (s *Store) Touch(ctx context.Context, id string) error {
	if err := s.upsert(ctx, id, ""); err != nil {
		return fmt.Errorf("touch conversation %s: %w", id, err)
	}
	return nil
}

// PurgeConversation forgets everything stored about a conversation except its
// mode and model override (user choices, not memory) and what the people there
// were told (the announced mode): summary, customization, profiles, last
// message, news state, what was decided there, the message ids seen there and
// cached images.
func (s *Store) PurgeConversation(ctx context.Context, id string) error {
	if err := checkID(id); err != nil {
		return err
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE conversations SET summary = '', customization = '', profiles = '{}',
			last_message_id = '', last_message_sender = '', last_message_text = '', news_state = '{}',
			last_message_at = 0, last_news_check = 0, decided_id = '', decided_sender = '', decided_text = '',
			newest_at = 0, updated_at = ?
			WHERE id = ?`, ms(s.now()), id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM image_cache WHERE conversation_id = ?`, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM seen_messages WHERE conversation_id = ?`, id); err != nil {
			return err
		}
		return bump(ctx, tx, revConversations)
	})
	if err != nil {
		return fmt.Errorf("purge conversation %s: %w", id, err)
	}
	return nil
}

// PurgeAll forgets what Clanker remembers about every conversation, as
// PurgeConversation does for one: summaries, customizations, profiles, last
// message and news tracking, and every cached image. Modes and model overrides
// are user choices, not memory, and are kept for every conversation (the purge
// never switches Clanker on or off anywhere), as are the settings, the API key
// and usage records (they feed the budget). It reports how many conversations
// were stored.
func (s *Store) PurgeAll(ctx context.Context) (int, error) {
	var n int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE conversations SET summary = '', customization = '', profiles = '{}',
			last_message_id = '', last_message_sender = '', last_message_text = '', news_state = '{}',
			last_message_at = 0, last_news_check = 0, decided_id = '', decided_sender = '', decided_text = '',
			newest_at = 0, updated_at = ?`, ms(s.now()))
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM image_cache`); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM seen_messages`); err != nil {
			return err
		}
		return bump(ctx, tx, revConversations)
	})
	if err != nil {
		return 0, fmt.Errorf("purge all conversations: %w", err)
	}
	return int(n), nil
}

// DeactivateAll sets every stored conversation to Deactivated, not only the
// current one, and returns how many changed.
func (s *Store) DeactivateAll(ctx context.Context) (int64, error) {
	var n int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		// Deactivating everything is an emergency stop: no farewell is owed anywhere (the
		// engine posts one where the user is looking).
		now := ms(s.now())
		if _, err := tx.ExecContext(ctx, `UPDATE conversations SET announced = ?, updated_at = ? WHERE announced IN (?, ?)`,
			engine.ModeDeactivated, now, engine.ModeAvailable, engine.ModeActive); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE conversations SET mode = ?, updated_at = ? WHERE mode != ?`,
			engine.ModeDeactivated, now, engine.ModeDeactivated)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		return bump(ctx, tx, revConversations)
	})
	if err != nil {
		return 0, fmt.Errorf("deactivate all conversations: %w", err)
	}
	return n, nil
}

// ForgetUnseenSince deletes conversations (and their images) last seen before
// cutoff, returning how many went. The engine decides the cutoff (30 days)
// and when to call it; keep is never deleted (the foreground conversation).
func (s *Store) ForgetUnseenSince(ctx context.Context, cutoff time.Time, keep ...string) (int64, error) {
	var n int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		q := `DELETE FROM conversations WHERE last_seen < ?`
		args := []any{ms(cutoff)}
		for _, id := range keep {
			q += ` AND id != ?`
			args = append(args, id)
		}
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM seen_messages WHERE conversation_id NOT IN (SELECT id FROM conversations)`)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("forget old conversations: %w", err)
	}
	return n, nil
}

func placeholders(n int) string {
	s := ""
	for i := 0; i < n; i++ {
		s += ", ?"
	}
	return s
}

// updateList turns ", a, b" into ", a = excluded.a, b = excluded.b".
func updateList(set string) string {
	out := ""
	col := ""
	flush := func() {
		if col != "" {
			out += ", " + col + " = excluded." + col
		}
		col = ""
	}
	for _, r := range set {
		switch r {
		case ',':
			flush()
		case ' ', '\n', '\t':
		default:
			col += string(r)
		}
	}
	flush()
	return out
}
