package keychain

import (
	"errors"
	"runtime"
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

// What go-keyring passes through from D-Bus when nothing keeps secrets on the desktop becomes
// one sentence (on Linux, where the Secret Service is an ordinary program that may be
// missing); a keychain that answered with a failure keeps its own error. The real daemon and
// a bus without it are tested in main_keychain_linux_test.go.
func TestNoServiceErrorsBecomeOneSentence(t *testing.T) {
	keyring.MockInit()
	defer keyring.MockInit()
	for _, c := range []struct {
		err       string
		noService bool
	}{
		{"The name org.freedesktop.secrets was not provided by any .service files", true},
		{"Failed to activate service 'org.freedesktop.secrets': timed out (service_start_timeout=120000ms)", true},
		{"dbus: couldn't determine address of session bus", true},
		{"dial unix /run/user/1000/bus: connect: no such file or directory", true},
		{"dial unix /tmp/bus: connect: connection refused", true},
		{"Cannot create an item in a locked collection", false},
		{"data is too big", false},
	} {
		keyring.MockInitWithError(errors.New(c.err))
		var k System
		err := k.SetSecret("sk-x")
		if runtime.GOOS != "linux" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: on %s the error must stay as it is, got %v", c.err, runtime.GOOS, err)
			}
			continue
		}
		var ue *UnavailableError
		if got := errors.As(err, &ue); got != c.noService {
			t.Errorf("%q: an UnavailableError = %v, want %v (err %v)", c.err, got, c.noService, err)
			continue
		}
		if !c.noService {
			if err.Error() != c.err {
				t.Errorf("%q: the keychain's own failure must pass through unchanged, got %q", c.err, err)
			}
			continue
		}
		if err.Error() != NoServiceSentence || !errors.Is(err, ErrNoService) || ue.Cause == nil || ue.Cause.Error() != c.err {
			t.Errorf("%q: got %q (is ErrNoService: %v), want the sentence wrapping the cause", c.err, err, errors.Is(err, ErrNoService))
		}
		for _, op := range []func() error{func() error { _, err := k.GetSecret(); return err }, k.DeleteSecret} {
			if err := op(); !errors.Is(err, ErrNoService) {
				t.Errorf("%q: GetSecret/DeleteSecret gave %v, want the same sentence as SetSecret", c.err, err)
			}
		}
	}
}
