//go:build !windows

package testkit

import (
	"fmt"
	"os"
)

func privateFileUnknowable() string { return "" }

func checkPrivate(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if m := st.Mode().Perm(); m != 0o600 {
		return fmt.Errorf("mode %o, want 600", m)
	}
	return nil
}
