package sqlite

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// UsageTotal is a sum of usage rows.
type UsageTotal struct {
	// Key is the conversation ID, the day (YYYY-MM-DD) or the model,
	// depending on how the totals were grouped.
	Key      string
	Tokens   engine.Tokens
	Requests int
}

// RecordUsage stores the tokens of one request. It implements engine.UsageRecorder.
func (s *Store) RecordUsage(ctx context.Context, u engine.Usage) error {
	if u.Tokens.Prompt < 0 || u.Tokens.Completion < 0 {
		return fmt.Errorf("record usage: token counts must not be negative (prompt %d, completion %d)", u.Tokens.Prompt, u.Tokens.Completion)
	}
	if u.Model == "" {
		return errors.New("record usage: model is empty")
	}
	if u.At.IsZero() {
		u.At = s.now()
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO usage (conversation_id, model, prompt_tokens, completion_tokens, at)
		VALUES (?, ?, ?, ?, ?)`, string(u.Conversation), u.Model, u.Tokens.Prompt, u.Tokens.Completion, ms(u.At)); err != nil {
		return fmt.Errorf("record usage: %w", err)
	}
	return nil
}

// usageRows calls fn for every usage row with from <= at < to.
func (s *Store) usageRows(ctx context.Context, from, to time.Time, fn func(u engine.Usage)) error {
	rows, err := s.db.QueryContext(ctx, `SELECT conversation_id, model, prompt_tokens, completion_tokens, at
		FROM usage WHERE at >= ? AND at < ? ORDER BY at`, ms(from), ms(to))
	if err != nil {
		return fmt.Errorf("read usage: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var u engine.Usage
		var conv string
		var at int64
		if err := rows.Scan(&conv, &u.Model, &u.Tokens.Prompt, &u.Tokens.Completion, &at); err != nil {
			return fmt.Errorf("read usage: %w", err)
		}
		u.Conversation, u.At = engine.ConversationID(conv), fromMS(at)
		fn(u)
	}
	return rows.Err()
}

// Usage returns every usage row with from <= at < to, oldest first.
func (s *Store) Usage(ctx context.Context, from, to time.Time) ([]engine.Usage, error) {
	var out []engine.Usage
	err := s.usageRows(ctx, from, to, func(u engine.Usage) { out = append(out, u) })
	return out, err
}

func (s *Store) grouped(ctx context.Context, from, to time.Time, key func(engine.Usage) string) ([]UsageTotal, error) {
	m := map[string]*UsageTotal{}
	err := s.usageRows(ctx, from, to, func(u engine.Usage) {
		k := key(u)
		t := m[k]
		if t == nil {
			t = &UsageTotal{Key: k}
			m[k] = t
		}
		t.Tokens = t.Tokens.Add(u.Tokens)
		t.Requests++
	})
	if err != nil {
		return nil, err
	}
	out := make([]UsageTotal, 0, len(m))
	for _, t := range m {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// UsageByConversation totals usage per conversation for from <= at < to.
func (s *Store) UsageByConversation(ctx context.Context, from, to time.Time) ([]UsageTotal, error) {
	return s.grouped(ctx, from, to, func(u engine.Usage) string { return string(u.Conversation) })
}

// UsageByDay totals usage per calendar day in loc for from <= at < to. Days
// are computed in Go rather than SQL so daylight-saving changes are right.
func (s *Store) UsageByDay(ctx context.Context, from, to time.Time, loc *time.Location) ([]UsageTotal, error) {
	if loc == nil {
		loc = time.Local
	}
	return s.grouped(ctx, from, to, func(u engine.Usage) string { return u.At.In(loc).Format("2006-01-02") })
}

// MonthToDate totals usage per model from the start of the current month in
// loc until now, the input engine.Budget.Check expects.
func (s *Store) MonthToDate(ctx context.Context, loc *time.Location) (map[string]engine.Tokens, error) {
	if loc == nil {
		loc = time.Local
	}
	now := s.now().In(loc)
	start := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, loc)
	totals, err := s.grouped(ctx, start, now.Add(time.Millisecond), func(u engine.Usage) string { return u.Model })
	if err != nil {
		return nil, err
	}
	out := make(map[string]engine.Tokens, len(totals))
	for _, t := range totals {
		out[t.Key] = t.Tokens
	}
	return out, nil
}

// CheckBudget compares month-to-date usage with the budget in st.
func (s *Store) CheckBudget(ctx context.Context, st engine.Settings, loc *time.Location) (engine.BudgetStatus, error) {
	if st.Budget.Kind == engine.BudgetNone || st.Budget.Kind == "" {
		return engine.BudgetStatus{}, nil
	}
	used, err := s.MonthToDate(ctx, loc)
	if err != nil {
		return engine.BudgetStatus{}, err
	}
	return st.Budget.Check(used), nil
}
