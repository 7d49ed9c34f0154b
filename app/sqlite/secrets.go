package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/clanker-desktop/clanker/app/engine"
)

var (
	_ engine.APIKeyStore   = (*Store)(nil)
	_ engine.SettingsStore = (*Store)(nil)
)

// SetAPIKey stores the API key in the keychain (Secrets), or in the database's
// own row when there is no keychain or it fails (and says so in a warning that
// does not contain the key). An empty key removes it from both. It bumps the
// settings revision so the running app picks the new key up.
func (s *Store) SetAPIKey(ctx context.Context, key string) (engine.KeyLocation, error) {
	key = strings.TrimSpace(key)
	if err := engine.CheckAPIKey(key); err != nil {
		return engine.KeyNone, err
	}
	loc := engine.KeyNone
	if key != "" {
		loc = engine.KeyDatabase
		if s.Secrets != nil {
			err := s.Secrets.SetSecret(key)
			s.noteKeychain(err)
			if err != nil {
				s.warn("OS keychain unavailable; keeping the API key in the database file", "err", err)
			} else {
				loc = engine.KeyKeychain
			}
		}
	} else if s.Secrets != nil {
		err := s.Secrets.DeleteSecret()
		s.noteKeychain(err)
		if err != nil {
			s.warn("could not remove the API key from the OS keychain", "err", err)
		}
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if loc == engine.KeyDatabase {
			if err := putSetting(ctx, tx, keyAPIKey, key, s.now()); err != nil {
				return err
			}
		} else if _, err := tx.ExecContext(ctx, `DELETE FROM settings WHERE key = ?`, keyAPIKey); err != nil {
			return err
		}
		return bump(ctx, tx, revSettings)
	})
	if err != nil {
		return engine.KeyNone, fmt.Errorf("save API key: %w", err)
	}
	return loc, nil
}

// APIKey returns the key and where it was found; ("", KeyNone) when there is
// none. This is the only function that returns the key: nothing that builds
// diagnostics or exports may call it.
func (s *Store) APIKey(ctx context.Context) (string, engine.KeyLocation, error) {
	if s.Secrets != nil {
		v, err := s.Secrets.GetSecret()
		if errors.Is(err, engine.ErrNoSecret) {
			s.noteKeychain(nil)
		} else {
			s.noteKeychain(err)
		}
		switch {
		case err == nil && v != "":
			return v, engine.KeyKeychain, nil
		case err != nil && !errors.Is(err, engine.ErrNoSecret):
			s.warn("OS keychain unavailable; looking for the API key in the database file", "err", err)
		}
	}
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, keyAPIKey).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && v == "") {
		return "", engine.KeyNone, nil
	}
	if err != nil {
		return "", engine.KeyNone, fmt.Errorf("load API key: %w", err)
	}
	return v, engine.KeyDatabase, nil
}

// MaskedAPIKey returns the key in a form safe to show (see engine.MaskKey)
// and where it is kept.
func (s *Store) MaskedAPIKey(ctx context.Context) (string, engine.KeyLocation, error) {
	k, loc, err := s.APIKey(ctx)
	return engine.MaskKey(k), loc, err
}

// KeychainProblem is the keychain's failure at the last use of the API key (nil when the
// keychain answered, or when there is none by choice): why a key that was meant for the
// keychain sits in the database file. The settings window and `clanker config` say it.
func (s *Store) KeychainProblem() error {
	s.keyMu.Lock()
	defer s.keyMu.Unlock()
	return s.keychainErr
}

func (s *Store) noteKeychain(err error) {
	s.keyMu.Lock()
	s.keychainErr = err
	s.keyMu.Unlock()
}

func (s *Store) warn(msg string, args ...any) {
	if s.Log != nil {
		s.Log.Warn(msg, args...)
	}
}
