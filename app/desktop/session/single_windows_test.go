//go:build windows

package session

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestALoopbackRequestWithoutTheSecretIsRefused(t *testing.T) {
	dir := testDir(t)
	woke := make(chan struct{}, 4)
	first, err := AcquireInstance(dir, func() { woke <- struct{}{} }, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	ep, err := findEndpoint(dir)
	if err != nil {
		t.Fatalf("the first instance wrote no usable %s: %v", addrFile, err)
	}
	// Any local process can connect to the port; without the secret it gets nothing.
	c, err := net.DialTimeout("tcp", ep.address, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte(activateRequest)); err != nil {
		t.Fatal(err)
	}
	reply, err := io.ReadAll(c)
	c.Close()
	if len(reply) != 0 {
		t.Fatalf("a request without the secret got %q; want the connection closed unanswered (%v)", reply, err)
	}
	// A real second launch (which reads the secret) wakes it exactly once.
	if _, err := AcquireInstance(dir, nil, nil); !errors.Is(err, ErrAlreadyRunning) {
		t.Fatalf("second launch: want ErrAlreadyRunning, got %v", err)
	}
	select {
	case <-woke:
	case <-time.After(5 * time.Second):
		t.Fatal("the second launch did not wake the first instance")
	}
	select {
	case <-woke:
		t.Fatal("the instance woke twice: the request without the secret was acted on")
	default:
	}
}

func TestTheLoopbackAddressFileGoesWithTheInstance(t *testing.T) {
	dir := testDir(t)
	in, err := AcquireInstance(dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, addrFile)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no %s while the instance runs: %v", addrFile, err)
	}
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("%s left behind after Close (stat: %v)", addrFile, err)
	}
}

func TestADamagedAddressFileIsAnError(t *testing.T) {
	dir := testDir(t)
	for _, content := range []string{"", "127.0.0.1:1\n", "10.0.0.1:80\n0123456789abcdef0123456789abcdef\n", "127.0.0.1:80\nshort\n"} {
		if err := os.WriteFile(filepath.Join(dir, addrFile), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if ep, err := findEndpoint(dir); err == nil {
			t.Errorf("content %q gave endpoint %+v; want an error", content, ep)
		}
	}
}
