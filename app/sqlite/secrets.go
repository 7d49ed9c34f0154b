package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/zalando/go-keyring"
)

// Keychain entry under which the API key is kept.
const (
	keyringService = "Clanker"
	keyringUser    = "api-key"
)

// MaxAPIKeyLength bounds the key so a pasted document is refused, not stored.
const MaxAPIKeyLength = 4096

// ErrSecretNotFound is returned by a SecretStore that has no entry.
var ErrSecretNotFound = errors.New("secret not found")

// SecretStore keeps one secret per (service, user). It exists so tests can
// swap the OS keychain for keyring's mock, and so a machine without a
// keychain can fall back to the database.
type SecretStore interface {
	Get(service, user string) (string, error)
	Set(service, user, secret string) error
	Delete(service, user string) error
}

// SystemKeyring is the OS keychain (Keychain, Credential Manager, Secret
// Service) via github.com/zalando/go-keyring.
type SystemKeyring struct{}

// Get reads a secret, mapping keyring's not-found error to ErrSecretNotFound.
func (SystemKeyring) Get(service, user string) (string, error) {
	v, err := keyring.Get(service, user)
	if errors.Is(err, keyring.ErrNotFound) {
		return "", ErrSecretNotFound
	}
	return v, err
}

// Set stores a secret.
func (SystemKeyring) Set(service, user, secret string) error {
	return keyring.Set(service, user, secret)
}

// Delete removes a secret; a missing one is not an error.
func (SystemKeyring) Delete(service, user string) error {
	err := keyring.Delete(service, user)
	if errors.Is(err, keyring.ErrNotFound) {
		return nil
	}
	return err
}

// KeyLocation says where the API key is kept.
type KeyLocation string

// Where an API key can be.
const (
	KeyNone     KeyLocation = "none"
	KeyKeychain KeyLocation = "keychain"
	KeyDatabase KeyLocation = "database"
)

// SetAPIKey stores the API key in the keychain, or in the database when no
// keychain works (and says so in a warning that does not contain the key). An
// empty key removes it from both. It bumps the settings revision so the
// running app picks the new key up.
func (s *Store) SetAPIKey(ctx context.Context, key string) (KeyLocation, error) {
	key = strings.TrimSpace(key)
	if len(key) > MaxAPIKeyLength {
		return KeyNone, fmt.Errorf("the API key is too long (%d characters; at most %d)", len(key), MaxAPIKeyLength)
	}
	if strings.ContainsAny(key, " \t\r\n") {
		return KeyNone, errors.New("the API key must not contain spaces or line breaks")
	}
	loc := KeyNone
	if key != "" {
		loc = KeyDatabase
		if s.Secrets != nil {
			if err := s.Secrets.Set(keyringService, keyringUser, key); err != nil {
				s.warn("OS keychain unavailable; keeping the API key in the database file", "err", err)
			} else {
				loc = KeyKeychain
			}
		}
	} else if s.Secrets != nil {
		if err := s.Secrets.Delete(keyringService, keyringUser); err != nil {
			s.warn("could not remove the API key from the OS keychain", "err", err)
		}
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if loc == KeyDatabase {
			if err := putSetting(ctx, tx, keyAPIKey, key, s.now()); err != nil {
				return err
			}
		} else if _, err := tx.ExecContext(ctx, `DELETE FROM settings WHERE key = ?`, keyAPIKey); err != nil {
			return err
		}
		return bump(ctx, tx, revSettings)
	})
	if err != nil {
		return KeyNone, fmt.Errorf("save API key: %w", err)
	}
	return loc, nil
}

// APIKey returns the key and where it was found; ("", KeyNone) when there is
// none. This is the only function that returns the key: nothing that builds
// diagnostics or exports may call it.
func (s *Store) APIKey(ctx context.Context) (string, KeyLocation, error) {
	if s.Secrets != nil {
		v, err := s.Secrets.Get(keyringService, keyringUser)
		switch {
		case err == nil && v != "":
			return v, KeyKeychain, nil
		case err != nil && !errors.Is(err, ErrSecretNotFound):
			s.warn("OS keychain unavailable; looking for the API key in the database file", "err", err)
		}
	}
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, keyAPIKey).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && v == "") {
		return "", KeyNone, nil
	}
	if err != nil {
		return "", KeyNone, fmt.Errorf("load API key: %w", err)
	}
	return v, KeyDatabase, nil
}

// MaskedAPIKey returns the key in a form safe to show (see engine.MaskKey)
// and where it is kept.
func (s *Store) MaskedAPIKey(ctx context.Context) (string, KeyLocation, error) {
	k, loc, err := s.APIKey(ctx)
	return engine.MaskKey(k), loc, err
}

func (s *Store) warn(msg string, args ...any) {
	if s.Log != nil {
		s.Log.Warn(msg, args...)
	}
}
