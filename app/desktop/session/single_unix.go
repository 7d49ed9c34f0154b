//go:build unix

package session

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
)

var errLocked = errors.New("data directory is in use by another Clanker")

// lockFile takes an exclusive, non-blocking flock on path. The kernel drops it when the
// process dies, so a crash never leaves the data directory claimed.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errLocked
		}
		return nil, err
	}
	return f, nil
}

func unlockFile(f *os.File) {
	if f != nil {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}

// listen listens on a unix socket in the data directory (mode 0600), replacing the one a
// dead instance left behind.
func listen(dataDir string) (net.Listener, endpoint, error) {
	sock := socketPath(dataDir)
	_ = os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return nil, endpoint{}, fmt.Errorf("listen on %s: %w", sock, err)
	}
	_ = os.Chmod(sock, 0o600)
	return ln, endpoint{network: "unix", address: sock, remove: func() { _ = os.Remove(sock) }}, nil
}

// findEndpoint is where the first instance of dataDir listens.
func findEndpoint(dataDir string) (endpoint, error) {
	return endpoint{network: "unix", address: socketPath(dataDir)}, nil
}

// socketPath is the socket in the data directory, or, when that path is too long for a
// unix socket address (about 104 bytes on macOS, 108 on Linux), a per-directory name in
// the runtime or temp directory.
func socketPath(dataDir string) string {
	p := filepath.Join(dataDir, "instance.sock")
	if len(p) < 100 {
		return p
	}
	sum := sha256.Sum256([]byte(dataDir))
	base := os.Getenv("XDG_RUNTIME_DIR")
	if base == "" {
		base = os.TempDir()
	}
	return filepath.Join(base, "clanker-"+hex.EncodeToString(sum[:8])+".sock")
}
