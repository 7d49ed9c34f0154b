// Package keychain keeps Clanker's API key in the operating system's keychain (macOS Keychain,
// Windows Credential Manager, the Secret Service on Linux) through github.com/zalando/go-keyring.
// It implements engine.SecretStore; app/run gives it to the store unless the user chose
// --no-keychain.
package keychain

import (
	"errors"
	"runtime"
	"strings"

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
	return v, explain(err)
}

// SetSecret stores the key, replacing any stored before.
func (System) SetSecret(key string) error { return explain(keyring.Set(Service, User, key)) }

// DeleteSecret removes the key; a missing one is not an error.
func (System) DeleteSecret() error {
	err := keyring.Delete(Service, User)
	if errors.Is(err, keyring.ErrNotFound) {
		return nil
	}
	return explain(err)
}

// ErrNoService is what the keychain's methods return (wrapped in an *UnavailableError) when
// no keychain service answers at all, as opposed to one that answered with a failure.
var ErrNoService = errors.New("no keychain service is running")

// UnavailableError says in one sentence that there is no keychain service to keep the key
// in, and keeps the library's own error for whoever needs the detail.
type UnavailableError struct {
	Cause error
}

// NoServiceSentence is the sentence an UnavailableError shows on Linux, where the keychain is
// whatever program owns the Secret Service's name on the session bus.
const NoServiceSentence = "no keychain service is running: no Secret Service (such as GNOME Keyring or KWallet) answers on this session's D-Bus"

func (e *UnavailableError) Error() string { return NoServiceSentence }

// Unwrap gives both ErrNoService and the library's error to errors.Is and errors.As.
func (e *UnavailableError) Unwrap() []error { return []error{ErrNoService, e.Cause} }

// explain turns the library's error for "nobody keeps secrets on this desktop" into an
// UnavailableError and returns every other error unchanged. go-keyring passes D-Bus's errors
// through as they come, and only the session bus's wording names what is missing: the bus
// daemon's "The name org.freedesktop.secrets was not provided by any .service files" (nothing
// owns the name and nothing can start it), an activation that failed or timed out (which names
// the service too), or no session bus to connect to at all. Windows and macOS always have
// their keychain, so their errors stay as they are.
func explain(err error) error {
	if err == nil || runtime.GOOS != "linux" {
		return err
	}
	msg := err.Error()
	for _, sign := range []string{
		"org.freedesktop.secrets",     // the Secret Service's bus name: not owned, not activatable, failed to start
		"session bus",                 // godbus: couldn't determine address of session bus
		"dial unix",                   // the session bus's socket is gone
		"connection refused",          // ... or nobody listens on it
		"dbus: authentication failed", // a bus that will not let this user in
	} {
		if strings.Contains(msg, sign) {
			return &UnavailableError{Cause: err}
		}
	}
	return err
}
