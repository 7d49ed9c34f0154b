package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// The sidebar list as the running app last saw it (conversation id to a print of the
// row's snippet, never the text) is kept in the settings table under keySidebarList, so
// the next run can tell which rows changed while it was not looking. Like the one-time
// marks it is not a setting: saving it does not bump the settings revision.
const keySidebarList = "state.sidebar_list"

// maxSidebarList bounds the rows kept; the page link remembers at most 1000.
const maxSidebarList = 2000

// SidebarList returns the list SaveSidebarList kept last, or nil when there is none. A
// kept value that does not read as one is reported as an error with nil.
func (s *Store) SidebarList(ctx context.Context) (map[string]string, error) {
	var raw string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, keySidebarList).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the kept sidebar list: %w", err)
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return nil, fmt.Errorf("read the kept sidebar list: %w", err)
	}
	return m, nil
}

// SaveSidebarList keeps list for the next run, replacing the one kept before.
func (s *Store) SaveSidebarList(ctx context.Context, list map[string]string) error {
	if len(list) > maxSidebarList {
		return fmt.Errorf("keep the sidebar list: %d rows, the limit is %d", len(list), maxSidebarList)
	}
	raw, err := json.Marshal(list)
	if err != nil {
		return fmt.Errorf("keep the sidebar list: %w", err)
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		return putSetting(ctx, tx, keySidebarList, string(raw), s.now())
	})
	if err != nil {
		return fmt.Errorf("keep the sidebar list: %w", err)
	}
	return nil
}
