//go:build windows

package session

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
)

var errLocked = errors.New("data directory is in use by another Clanker")

// lockFile on Windows relies on the file being opened without sharing: while the first
// process lives, a second open fails and the file cannot be deleted. Windows closes the
// handle when the process dies, so a crash never leaves the directory claimed. Run under
// Wine by make test-windows.
func lockFile(path string) (*os.File, error) {
	_ = os.Remove(path) // fails while another process has it open, which is the point
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if os.IsExist(err) {
			return nil, errLocked
		}
		return nil, err
	}
	return f, nil
}

func unlockFile(f *os.File) {
	if f != nil {
		name := f.Name()
		f.Close()
		_ = os.Remove(name)
	}
}

// addrFile names the loopback address and the secret of the first instance, in the data
// directory (the user's own %AppData%\Clanker).
const addrFile = "instance.addr"

// listen listens on a loopback port and writes its address and a fresh secret into the
// data directory. Windows 10 has unix sockets too, but a loopback port works on every
// Windows (and under Wine, which tests this); since any local process can connect to a
// port, a request counts only with the secret, which only the user's own processes can
// read.
func listen(dataDir string) (net.Listener, endpoint, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, endpoint{}, err
	}
	secret := hex.EncodeToString(b[:])
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, endpoint{}, fmt.Errorf("listen on loopback: %w", err)
	}
	path := filepath.Join(dataDir, addrFile)
	tmp := path + ".tmp"
	data := ln.Addr().String() + "\n" + secret + "\n"
	if err := os.WriteFile(tmp, []byte(data), 0o600); err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		ln.Close()
		_ = os.Remove(tmp)
		return nil, endpoint{}, fmt.Errorf("write %s: %w", path, err)
	}
	return ln, endpoint{network: "tcp", address: ln.Addr().String(), secret: secret,
		remove: func() { _ = os.Remove(path) }}, nil
}

// findEndpoint reads where the first instance of dataDir listens.
func findEndpoint(dataDir string) (endpoint, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, addrFile))
	if err != nil {
		return endpoint{}, err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 {
		return endpoint{}, fmt.Errorf("%s is damaged", addrFile)
	}
	addr, secret := strings.TrimSpace(lines[0]), strings.TrimSpace(lines[1])
	if host, _, err := net.SplitHostPort(addr); err != nil || host != "127.0.0.1" || len(secret) != 32 {
		return endpoint{}, fmt.Errorf("%s is damaged", addrFile)
	}
	return endpoint{network: "tcp", address: addr, secret: secret}, nil
}
