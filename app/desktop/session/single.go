package session

import (
	"bufio"
	"crypto/subtle"
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
// finds it through the data directory (a unix socket next to the database; on Windows a
// loopback port and a secret written there) and asks it to come forward, so two apps
// never drive the same Messages session or write the same store.
type Instance struct {
	ln     net.Listener
	ep     endpoint
	lock   *os.File
	onWake func()
	log    *slog.Logger

	mu        sync.Mutex // guards onWake
	closeOnce sync.Once
	done      chan struct{}
}

// activateRequest and activateReply are the whole protocol on the socket: one line each.
const (
	activateRequest = "clanker activate v1\n"
	activateReply   = "ok\n"
)

// InstanceRunning reports whether an app holds dataDir's claim, without waking it. The
// settings window asks it to know whether a running app (and its engine) must carry out a
// change, or whether it may write the store itself. Its own brief hold of the lock is
// released at once.
func InstanceRunning(dataDir string) bool {
	lock, err := lockFile(filepath.Join(dataDir, "instance.lock"))
	if err != nil {
		return errors.Is(err, errLocked)
	}
	unlockFile(lock)
	return false
}

// AcquireInstance claims dataDir for this process. When another process holds it, it
// asks that process to show its window (onWake runs there) and returns ErrAlreadyRunning.
// onWake runs on its own goroutine for every later launch; it may be nil. Close releases
// the claim. A process started to take over from a predecessor (PredecessorEnv) first
// waits for that one to end.
func AcquireInstance(dataDir string, onWake func(), log *slog.Logger) (*Instance, error) {
	if log == nil {
		log = slog.Default()
	}
	waitForPredecessor(log)
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("single instance: create data directory: %w", err)
	}
	lock, err := lockFile(filepath.Join(dataDir, "instance.lock"))
	if err != nil {
		if !errors.Is(err, errLocked) {
			return nil, fmt.Errorf("single instance: %w", err)
		}
		// Another process holds the lock: it is (or is becoming) the first instance.
		// Its socket may not be listening yet, so give it a few seconds.
		var last error
		for range 40 {
			if last = wakeOther(dataDir); last == nil {
				return nil, ErrAlreadyRunning
			}
			time.Sleep(100 * time.Millisecond)
		}
		return nil, fmt.Errorf("single instance: another Clanker holds %s but does not answer (%v); if none is running, delete that file", dataDir, last)
	}
	// We hold the lock, so whatever an earlier instance left behind belongs to a dead
	// process; listen replaces it.
	ln, ep, err := listen(dataDir)
	if err != nil {
		unlockFile(lock)
		return nil, fmt.Errorf("single instance: %w", err)
	}
	in := &Instance{ln: ln, ep: ep, lock: lock, onWake: onWake, log: log, done: make(chan struct{})}
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
	r := bufio.NewReader(c)
	if in.ep.secret != "" {
		// Where the endpoint is open to every local process (a loopback port), only
		// one that could read the data directory knows the secret.
		line, err := r.ReadString('\n')
		if err != nil || subtle.ConstantTimeCompare([]byte(line), []byte(in.ep.secret+"\n")) != 1 {
			in.log.Warn("single instance: ignored a request without the data directory's secret")
			return
		}
	}
	line, err := r.ReadString('\n')
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
		in.ep.remove()
		unlockFile(in.lock)
	})
	return err
}

func wakeOther(dataDir string) error {
	ep, err := findEndpoint(dataDir)
	if err != nil {
		return err
	}
	c, err := net.DialTimeout(ep.network, ep.address, 2*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(3 * time.Second))
	req := activateRequest
	if ep.secret != "" {
		req = ep.secret + "\n" + req
	}
	if _, err := c.Write([]byte(req)); err != nil {
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

// endpoint is where the first instance listens: its network and address for net.Dial,
// the secret a request must start with ("" where the endpoint itself is private), and
// what to remove when the instance closes.
type endpoint struct {
	network, address string
	secret           string
	remove           func()
}
