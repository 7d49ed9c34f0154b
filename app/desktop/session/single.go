package session

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// ErrAlreadyRunning is returned by AcquireInstance in a second launch, after it has asked
// the first instance to show its window. The second process should then exit quietly.
var ErrAlreadyRunning = errors.New("clanker is already running; its window was brought to the front")

// Instance is the claim of the first running app on a data directory. A second launch
// finds it through a unix socket next to the database and asks it to come forward, so
// two apps never drive the same Messages session or write the same store.
type Instance struct {
	ln       net.Listener
	lock     *os.File
	sockPath string
	onWake   func()
	log      *slog.Logger

	mu        sync.Mutex // guards onWake
	closeOnce sync.Once
	done      chan struct{}
}

// activateRequest and activateReply are the whole protocol on the socket: one line each.
const (
	activateRequest = "clanker activate v1\n"
	activateReply   = "ok\n"
)

// AcquireInstance claims dataDir for this process. When another process holds it, it
// asks that process to show its window (onWake runs there) and returns ErrAlreadyRunning.
// onWake runs on its own goroutine for every later launch; it may be nil. Close releases
// the claim.
func AcquireInstance(dataDir string, onWake func(), log *slog.Logger) (*Instance, error) {
	if log == nil {
		log = slog.Default()
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("single instance: create data directory: %w", err)
	}
	sock := socketPath(dataDir)
	lock, err := lockFile(filepath.Join(dataDir, "instance.lock"))
	if err != nil {
		if !errors.Is(err, errLocked) {
			return nil, fmt.Errorf("single instance: %w", err)
		}
		// Another process holds the lock: it is (or is becoming) the first instance.
		// Its socket may not be listening yet, so give it a few seconds.
		var last error
		for range 40 {
			if last = wakeOther(sock); last == nil {
				return nil, ErrAlreadyRunning
			}
			time.Sleep(100 * time.Millisecond)
		}
		return nil, fmt.Errorf("single instance: another Clanker holds %s but does not answer (%v); if none is running, delete that file", dataDir, last)
	}
	// We hold the lock, so any socket file left behind belongs to a dead process.
	_ = os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		unlockFile(lock)
		return nil, fmt.Errorf("single instance: listen on %s: %w", sock, err)
	}
	_ = os.Chmod(sock, 0o600)
	in := &Instance{ln: ln, lock: lock, sockPath: sock, onWake: onWake, log: log, done: make(chan struct{})}
	go in.serve()
	return in, nil
}

// SetOnWake replaces the function run when a later launch asks this one to come forward
// (the app sets it once its window exists).
func (in *Instance) SetOnWake(fn func()) {
	in.mu.Lock()
	in.onWake = fn
	in.mu.Unlock()
}

func (in *Instance) serve() {
	for {
		c, err := in.ln.Accept()
		if err != nil {
			select {
			case <-in.done:
			default:
				in.log.Error("single instance: accept failed; later launches will not find this one", "err", err)
			}
			return
		}
		go in.handle(c)
	}
}

func (in *Instance) handle(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || line != activateRequest {
		in.log.Warn("single instance: ignored a malformed request on the socket")
		return
	}
	_, _ = c.Write([]byte(activateReply))
	in.log.Info("another launch asked this instance to come forward")
	in.mu.Lock()
	fn := in.onWake
	in.mu.Unlock()
	if fn != nil {
		go fn()
	}
}

// Close stops answering later launches and releases the data directory.
func (in *Instance) Close() error {
	var err error
	in.closeOnce.Do(func() {
		close(in.done)
		err = in.ln.Close()
		_ = os.Remove(in.sockPath)
		unlockFile(in.lock)
	})
	return err
}

func wakeOther(sock string) error {
	c, err := net.DialTimeout("unix", sock, 2*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := c.Write([]byte(activateRequest)); err != nil {
		return err
	}
	reply, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if reply != activateReply {
		return fmt.Errorf("unexpected reply %q", strings.TrimSpace(reply))
	}
	return nil
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
