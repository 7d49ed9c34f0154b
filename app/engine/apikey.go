package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// KeyLocation says where the API key is kept.
type KeyLocation string

// Where an API key can be.
const (
	KeyNone     KeyLocation = "none"
	KeyKeychain KeyLocation = "keychain"
	KeyDatabase KeyLocation = "database"
)

// MaxAPIKeyLength bounds the key so a pasted document is refused, not stored.
const MaxAPIKeyLength = 4096

// CheckAPIKey refuses a key that cannot be right: too long, or with white space inside (the
// caller trims the ends). The empty key is valid: it means "remove the key".
func CheckAPIKey(key string) error {
	if len(key) > MaxAPIKeyLength {
		return fmt.Errorf("the API key is too long (%d characters; at most %d)", len(key), MaxAPIKeyLength)
	}
	if strings.ContainsAny(key, " \t\r\n") {
		return errors.New("the API key must not contain spaces or line breaks")
	}
	return nil
}

// ErrNoSecret is returned by a SecretStore that holds no API key.
var ErrNoSecret = errors.New("no API key stored")

// SecretStore keeps the API key outside the database: the OS keychain (app/keychain). It is
// a port so the store can run with no keychain at all (--no-keychain, a desktop without a
// secret service, tests), and then keeps the key in its own database row instead.
type SecretStore interface {
	// GetSecret returns the key, or ErrNoSecret when none is stored.
	GetSecret() (string, error)
	SetSecret(key string) error
	// DeleteSecret removes the key; a missing key is not an error.
	DeleteSecret() error
}

// APIKeyStore keeps the API key: in the OS keychain when one works, otherwise in the database's
// own row, and says where. The SQLite store implements it. Nothing that builds diagnostics or
// exports may call APIKey; MaskedAPIKey is what a view shows.
type APIKeyStore interface {
	// SetAPIKey stores the key (trimmed; "" removes it) and reports where it went.
	SetAPIKey(ctx context.Context, key string) (KeyLocation, error)
	APIKey(ctx context.Context) (string, KeyLocation, error)
	MaskedAPIKey(ctx context.Context) (string, KeyLocation, error)
}

// SettingsStore loads and saves the user's settings. The SQLite store implements it; the
// settings window and `clanker config` go through it.
type SettingsStore interface {
	// Settings returns the saved settings (defaults for anything missing, numbers clamped).
	Settings(ctx context.Context) (Settings, error)
	// SaveSettings normalises and validates st and stores it; invalid settings are refused
	// with FieldErrors and nothing is written.
	SaveSettings(ctx context.Context, st Settings) (Settings, error)
}
