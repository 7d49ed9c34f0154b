package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Mode is a conversation's stored participation mode. Uninitialized is not
// stored: it is derived from incomplete settings.
type Mode string

// Stored modes. The strings are what the database holds, so they never change.
const (
	ModeDeactivated Mode = "deactivated"
	ModeAvailable   Mode = "available"
	ModeActive      Mode = "active"
)

// Valid reports whether m is one of the stored modes.
func (m Mode) Valid() bool {
	return m == ModeDeactivated || m == ModeAvailable || m == ModeActive
}

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

// LastMessage is the last processed message, used to find messages that
// arrived while the app was away (matched by ID, else by sender and text).
type LastMessage struct {
	ID     string `json:"id"`
	Sender string `json:"sender"`
	Text   string `json:"text"`
}

// NewsState is the idle-time news search bookkeeping for one conversation,
// kept per conversation so it survives restarts and switching conversations.
type NewsState struct {
	LastCheck   time.Time `json:"lastCheck,omitzero"`
	LastMessage time.Time `json:"lastMessage,omitzero"`
}

// Conversation is everything stored about one conversation.
type Conversation struct {
	ID            string
	Mode          Mode
	Summary       string
	Customization string
	// Profiles maps a participant name to the model's notes about them.
	Profiles      map[string]string
	LastMessage   LastMessage
	News          NewsState
	ModelOverride string
	LastSeen      time.Time
	// Stored is false for a conversation that has never been written: it is
	// returned with defaults (Deactivated).
	Stored bool
}

// Memory is the model-maintained part of a conversation. The LLM client
// decides how a reply changes it; the store saves the result as a whole.
type Memory struct {
	Summary       string
	Customization string
	Profiles      map[string]string
}

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
	last_message_sender, last_message_text, last_message_at, last_news_check, model_override, last_seen`

// Conversation returns the stored data for id, or defaults (Deactivated,
// Stored false) for a conversation never seen before. An unknown stored mode
// reads back as Deactivated, the safe choice.
func (s *Store) Conversation(ctx context.Context, id string) (Conversation, error) {
	if err := checkID(id); err != nil {
		return Conversation{}, err
	}
	row := s.db.QueryRowContext(ctx, `SELECT `+conversationColumns+` FROM conversations WHERE id = ?`, id)
	c, err := scanConversation(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Conversation{ID: id, Mode: ModeDeactivated, Profiles: map[string]string{}}, nil
	}
	if err != nil {
		return Conversation{}, fmt.Errorf("load conversation %s: %w", id, err)
	}
	return c, nil
}

// Conversations lists every stored conversation, most recently seen first.
func (s *Store) Conversations(ctx context.Context) ([]Conversation, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+conversationColumns+` FROM conversations ORDER BY last_seen DESC, id`)
	if err != nil {
		return nil, fmt.Errorf("list conversations: %w", err)
	}
	defer rows.Close()
	var out []Conversation
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

func scanConversation(r scanner) (Conversation, error) {
	var c Conversation
	var mode, profiles string
	var lastSeen, lastMessageAt, lastNewsCheck int64
	if err := r.Scan(&c.ID, &mode, &c.Summary, &c.Customization, &profiles, &c.LastMessage.ID,
		&c.LastMessage.Sender, &c.LastMessage.Text, &lastMessageAt, &lastNewsCheck, &c.ModelOverride, &lastSeen); err != nil {
		return c, err
	}
	c.Stored = true
	c.Mode = Mode(mode)
	if !c.Mode.Valid() {
		c.Mode = ModeDeactivated
	}
	c.LastSeen = fromMS(lastSeen)
	c.Profiles = map[string]string{}
	if err := json.Unmarshal([]byte(profiles), &c.Profiles); err != nil {
		return c, fmt.Errorf("conversation %s: stored profiles are not a JSON object of strings: %w", c.ID, err)
	}
	if c.Profiles == nil {
		c.Profiles = map[string]string{}
	}
	c.News = NewsState{LastCheck: fromMS(lastNewsCheck), LastMessage: fromMS(lastMessageAt)}
	return c, nil
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
func (s *Store) SetMode(ctx context.Context, id string, mode Mode) error {
	if !mode.Valid() {
		return fmt.Errorf("conversation %s: %q is not a mode (deactivated, available or active)", id, mode)
	}
	if err := s.upsert(ctx, id, ", mode", string(mode)); err != nil {
		return fmt.Errorf("save mode of conversation %s: %w", id, err)
	}
	return nil
}

// SaveMemory replaces the summary, customization and profiles of a
// conversation in one write.
func (s *Store) SaveMemory(ctx context.Context, id string, m Memory) error {
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
func (s *Store) SetLastMessage(ctx context.Context, id string, m LastMessage) error {
	if err := checkText("last message", m.ID+m.Sender+m.Text); err != nil {
		return fmt.Errorf("conversation %s: %w", id, err)
	}
	if err := s.upsert(ctx, id, ", last_message_id, last_message_sender, last_message_text", m.ID, m.Sender, m.Text); err != nil {
		return fmt.Errorf("save last message of conversation %s: %w", id, err)
	}
	return nil
}

// SetNewsState stores a conversation's news search bookkeeping. Since
// migration 0003 it lives in two columns shared with the engine's record.
func (s *Store) SetNewsState(ctx context.Context, id string, n NewsState) error {
	if err := s.upsert(ctx, id, ", last_message_at, last_news_check", msOrZero(n.LastMessage), msOrZero(n.LastCheck)); err != nil {
		return fmt.Errorf("save news state of conversation %s: %w", id, err)
	}
	return nil
}

// SetModelOverride sets the model used for one conversation ("" = the
// global model). It is a user setting, so other processes are told.
func (s *Store) SetModelOverride(ctx context.Context, id, model string) error {
	if len(model) > 200 {
		return fmt.Errorf("conversation %s: model name is too long", id)
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
// mode and model override (user choices, not memory): summary,
// customization, profiles, last message, news state and cached images.
func (s *Store) PurgeConversation(ctx context.Context, id string) error {
	if err := checkID(id); err != nil {
		return err
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE conversations SET summary = '', customization = '', profiles = '{}',
			last_message_id = '', last_message_sender = '', last_message_text = '', news_state = '{}',
			last_message_at = 0, last_news_check = 0, updated_at = ?
			WHERE id = ?`, ms(s.now()), id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM image_cache WHERE conversation_id = ?`, id); err != nil {
			return err
		}
		return bump(ctx, tx, revConversations)
	})
	if err != nil {
		return fmt.Errorf("purge conversation %s: %w", id, err)
	}
	return nil
}

// PurgeAll forgets every conversation and cached image. Settings, the API key
// and usage are kept, and so is currentID's mode (and model override), so the
// conversation the user is looking at does not silently change mode. An
// empty currentID keeps no mode.
func (s *Store) PurgeAll(ctx context.Context, currentID string) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var mode, override string
		keep := false
		if currentID != "" {
			err := tx.QueryRowContext(ctx, `SELECT mode, model_override FROM conversations WHERE id = ?`, currentID).Scan(&mode, &override)
			switch {
			case err == nil:
				keep = true
			case !errors.Is(err, sql.ErrNoRows):
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM image_cache`); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM conversations`); err != nil {
			return err
		}
		if keep {
			now := ms(s.now())
			if _, err := tx.ExecContext(ctx, `INSERT INTO conversations (id, mode, model_override, last_seen, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?)`, currentID, mode, override, now, now, now); err != nil {
				return err
			}
		}
		return bump(ctx, tx, revConversations)
	})
	if err != nil {
		return fmt.Errorf("purge all conversations: %w", err)
	}
	return nil
}

// DeactivateAll sets every stored conversation to Deactivated, not only the
// current one, and returns how many changed.
func (s *Store) DeactivateAll(ctx context.Context) (int64, error) {
	var n int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE conversations SET mode = ?, updated_at = ? WHERE mode != ?`,
			ModeDeactivated, ms(s.now()), ModeDeactivated)
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
		n, err = res.RowsAffected()
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
