package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
)

// The app's one-time things (a hint the user has dismissed, a guide they have
// finished) are remembered in the settings table under "seen.<name>". They belong to
// the app, not to the page (whose storage a page script could read or clear), and they
// are not settings: marking one does not bump the settings revision, so the settings
// window and the running app do not reload for it.
const seenPrefix = "seen."

var seenName = regexp.MustCompile(`^[a-z0-9_-]{1,40}$`)

// Seen reports whether the one-time thing name has been marked with MarkSeen.
func (s *Store) Seen(ctx context.Context, name string) (bool, error) {
	if !seenName.MatchString(name) {
		return false, fmt.Errorf("seen %q: a name is 1-40 of a-z 0-9 _ -", name)
	}
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, seenPrefix+name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read whether %s was seen: %w", name, err)
	}
	return true, nil
}

// MarkSeen remembers for good that the one-time thing name was seen. Marking it again
// is harmless.
func (s *Store) MarkSeen(ctx context.Context, name string) error {
	if !seenName.MatchString(name) {
		return fmt.Errorf("mark %q seen: a name is 1-40 of a-z 0-9 _ -", name)
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		return putSetting(ctx, tx, seenPrefix+name, "1", s.now())
	})
	if err != nil {
		return fmt.Errorf("remember that %s was seen: %w", name, err)
	}
	return nil
}
