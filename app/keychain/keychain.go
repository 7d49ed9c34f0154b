// Package keychain keeps Clanker's API key in the operating system's keychain (macOS Keychain,
// Windows Credential Manager, the Secret Service on Linux) through github.com/zalando/go-keyring.
// It implements engine.SecretStore; app/run gives it to the store unless the user chose
// --no-keychain.
package keychain

import (
	"errors"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/zalando/go-keyring"
)

// The keychain entry under which the API key is kept. Changing either would orphan the keys
// of existing installs.
const (
	Service = "Clanker"
	User    = "api-key"
)

// System is the OS keychain.
type System struct{}

var _ engine.SecretStore = System{}

// GetSecret reads the key, mapping keyring's not-found error to engine.ErrNoSecret.
func (System) GetSecret() (string, error) {
	v, err := keyring.Get(Service, User)
	if errors.Is(err, keyring.ErrNotFound) {
		return "", engine.ErrNoSecret
	}
	return v, err
}

// SetSecret stores the key.
func (System) SetSecret(key string) error { return keyring.Set(Service, User, key) }

// DeleteSecret removes the key; a missing one is not an error.
func (System) DeleteSecret() error {
	err := keyring.Delete(Service, User)
	if errors.Is(err, keyring.ErrNotFound) {
		return nil
	}
	return err
}
