package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// CachedImage is an optimised image kept so that a second request for the
// same picture does not fetch and re-encode it.
type CachedImage struct {
	ConversationID string
	// Source is the image's src in the page (a blob: URL), the cache key.
	Source    string
	MIME      string
	Width     int
	Height    int
	Data      []byte
	CreatedAt time.Time
}

// PutImage caches an image for a conversation, replacing one with the same
// source, and drops the oldest beyond MaxImagesPerConversation.
func (s *Store) PutImage(ctx context.Context, img CachedImage) error {
	if err := checkID(img.ConversationID); err != nil {
		return err
	}
	switch {
	case img.Source == "" || len(img.Source) > 8192:
		return fmt.Errorf("cache image for %s: source must be 1 to 8192 bytes", img.ConversationID)
	case !strings.HasPrefix(img.MIME, "image/"):
		return fmt.Errorf("cache image for %s: %q is not an image MIME type", img.ConversationID, img.MIME)
	case len(img.Data) == 0 || len(img.Data) > MaxImageBytes:
		return fmt.Errorf("cache image for %s: size %d bytes is outside 1..%d", img.ConversationID, len(img.Data), MaxImageBytes)
	case img.Width <= 0 || img.Height <= 0:
		return fmt.Errorf("cache image for %s: dimensions %dx%d are not positive", img.ConversationID, img.Width, img.Height)
	}
	now := s.now()
	if img.CreatedAt.IsZero() {
		img.CreatedAt = now
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		// The conversation row must exist for the foreign key; creating it
		// here leaves an existing mode untouched.
		if _, err := tx.ExecContext(ctx, `INSERT INTO conversations (id, last_seen, created_at, updated_at)
			VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET last_seen = excluded.last_seen`,
			img.ConversationID, ms(now), ms(now), ms(now)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO image_cache
			(conversation_id, source, mime, width, height, size, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (conversation_id, source) DO UPDATE SET mime = excluded.mime, width = excluded.width,
			height = excluded.height, size = excluded.size, data = excluded.data, created_at = excluded.created_at`,
			img.ConversationID, img.Source, img.MIME, img.Width, img.Height, len(img.Data), img.Data, ms(img.CreatedAt)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM image_cache WHERE conversation_id = ? AND source NOT IN (
			SELECT source FROM image_cache WHERE conversation_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?)`,
			img.ConversationID, img.ConversationID, MaxImagesPerConversation)
		return err
	})
	if err != nil {
		return fmt.Errorf("cache image for %s: %w", img.ConversationID, err)
	}
	return nil
}

// Image returns a cached image, with ok false when there is none.
func (s *Store) Image(ctx context.Context, conversationID, source string) (img CachedImage, ok bool, err error) {
	var created int64
	err = s.db.QueryRowContext(ctx, `SELECT conversation_id, source, mime, width, height, data, created_at
		FROM image_cache WHERE conversation_id = ? AND source = ?`, conversationID, source).
		Scan(&img.ConversationID, &img.Source, &img.MIME, &img.Width, &img.Height, &img.Data, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return CachedImage{}, false, nil
	}
	if err != nil {
		return CachedImage{}, false, fmt.Errorf("load cached image for %s: %w", conversationID, err)
	}
	img.CreatedAt = fromMS(created)
	return img, true, nil
}
