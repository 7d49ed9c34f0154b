package keychain

import (
	"errors"
	"testing"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/zalando/go-keyring"
)

// The tests use go-keyring's in-memory mock, so no test touches the real keychain.

func TestSystemKeychainRoundTripAndNotFound(t *testing.T) {
	keyring.MockInit()
	var k System
	if _, err := k.GetSecret(); !errors.Is(err, engine.ErrNoSecret) {
		t.Fatalf("empty keychain: err = %v, want engine.ErrNoSecret", err)
	}
	if err := k.SetSecret("sk-test-0123456789"); err != nil {
		t.Fatal(err)
	}
	if v, err := k.GetSecret(); err != nil || v != "sk-test-0123456789" {
		t.Fatalf("GetSecret = %q, %v; want the stored key", v, err)
	}
	if v, _ := keyring.Get(Service, User); v != "sk-test-0123456789" {
		t.Fatalf("the key is not under %s/%s, where existing installs keep it", Service, User)
	}
	if err := k.DeleteSecret(); err != nil {
		t.Fatal(err)
	}
	if err := k.DeleteSecret(); err != nil {
		t.Fatalf("deleting a missing key: %v, want no error", err)
	}
	if _, err := k.GetSecret(); !errors.Is(err, engine.ErrNoSecret) {
		t.Fatalf("after delete: err = %v, want engine.ErrNoSecret", err)
	}
}

func TestKeychainFailuresAreReported(t *testing.T) {
	keyring.MockInitWithError(errors.New("no secret service on this bus"))
	defer keyring.MockInit()
	var k System
	if err := k.SetSecret("sk-x"); err == nil {
		t.Fatal("SetSecret on a broken keychain: no error")
	}
	if _, err := k.GetSecret(); err == nil || errors.Is(err, engine.ErrNoSecret) {
		t.Fatalf("GetSecret on a broken keychain: err = %v, want a failure that is not 'not found'", err)
	}
}
