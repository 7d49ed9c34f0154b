package page

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"

	"github.com/clanker-desktop/clanker/app/engine"
)

// conn is the command connection to the bridge. It gives every command a fresh id, runs
// it in the page, remembers what each outstanding id stands for, and hands each result
// (and each image chunk) to whoever issued that id. The page can post results itself, so
// a result whose id conn did not issue, or already settled, is refused, never guessed at.
type conn struct {
	exec func(js string) error
	stop <-chan struct{}

	mu      sync.Mutex
	seq     uint64
	pending map[string]pendingCmd     // issued and not yet answered
	images  map[string]*ImageAssembly // chunks of the fetch_image commands among pending
	waiters map[string]chan Result    // the pending commands a call is waiting for
	sent    map[string]int            // commands run in the page, by type
}

// pendingCmd is what an outstanding bridge command answers: an engine command, or
// nothing (engineID 0) for the Link's own commands.
type pendingCmd struct {
	engineID uint64
	kind     engine.CommandKind
}

func newConn(exec func(js string) error, stop <-chan struct{}) *conn {
	return &conn{
		exec:    exec,
		stop:    stop,
		pending: map[string]pendingCmd{},
		images:  map[string]*ImageAssembly{},
		waiters: map[string]chan Result{},
		sent:    map[string]int{},
	}
}

func (c *conn) issue(p pendingCmd) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	id := "g" + strconv.FormatUint(c.seq, 10)
	c.pending[id] = p
	return id
}

func (c *conn) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, id)
	delete(c.images, id)
	delete(c.waiters, id)
}

// run encodes and executes one command under id.
func (c *conn) run(id string, args CommandArgs) error {
	js, err := EncodeCommand(id, args)
	if err != nil {
		return err
	}
	if err := c.exec(js); err != nil {
		return fmt.Errorf("run %s in the page: %w", args.CommandType(), err)
	}
	c.mu.Lock()
	c.sent[args.CommandType()]++
	c.mu.Unlock()
	return nil
}

// send runs a command whose result settle hands back as p. A fetch_image also collects
// its chunks. When the command cannot be run it is forgotten and the error returned.
func (c *conn) send(p pendingCmd, args CommandArgs) error {
	id := c.issue(p)
	if _, ok := args.(FetchImage); ok {
		c.mu.Lock()
		c.images[id] = NewImageAssembly(id)
		c.mu.Unlock()
	}
	if err := c.run(id, args); err != nil {
		c.forget(id)
		return err
	}
	return nil
}

// call runs a command and waits for its result.
func (c *conn) call(ctx context.Context, args CommandArgs) (Result, error) {
	ch := make(chan Result, 1)
	id := c.issue(pendingCmd{})
	c.mu.Lock()
	c.waiters[id] = ch
	c.mu.Unlock()
	defer c.forget(id)
	if err := c.run(id, args); err != nil {
		return Result{}, err
	}
	select {
	case r := <-ch:
		return r, nil
	case <-ctx.Done():
		return Result{}, fmt.Errorf("%s: no answer from the page: %w", args.CommandType(), ctx.Err())
	case <-c.stop:
		return Result{}, errors.New("page link closed")
	}
}

// settled is what a result answers, as settle found it.
type settled struct {
	pendingCmd
	image  *ImageAssembly // the chunks, when the command was a fetch_image
	waited bool           // a call was waiting and has the result; nothing else to do
}

// settle matches a result to the command it answers and forgets that command. ok is
// false for an id conn did not issue or already settled.
func (c *conn) settle(r Result) (s settled, ok bool) {
	c.mu.Lock()
	p, ok := c.pending[r.ID]
	w := c.waiters[r.ID]
	asm := c.images[r.ID]
	if ok {
		delete(c.pending, r.ID)
		delete(c.images, r.ID)
	}
	c.mu.Unlock()
	if !ok {
		return settled{}, false
	}
	if w != nil {
		w <- r // buffered, and each id settles once
		return settled{pendingCmd: p, waited: true}, true
	}
	return settled{pendingCmd: p, image: asm}, true
}

// addChunk hands an image chunk to the fetch it belongs to. known is false when no
// outstanding fetch_image has that id.
func (c *conn) addChunk(ch ImageChunk) (known bool, err error) {
	c.mu.Lock()
	asm := c.images[ch.ID]
	c.mu.Unlock()
	if asm == nil {
		return false, nil
	}
	return true, asm.Add(ch)
}

// dropSent forgets every command sent to a document that is gone and returns them in the
// engine's order, to be answered as lost. Commands a call waits for stay: the
// call ends by its own deadline.
func (c *conn) dropSent() []pendingCmd {
	c.mu.Lock()
	var lost []pendingCmd
	for id, p := range c.pending {
		if _, waited := c.waiters[id]; waited {
			continue
		}
		lost = append(lost, p)
		delete(c.pending, id)
		delete(c.images, id)
	}
	c.mu.Unlock()
	sort.Slice(lost, func(i, j int) bool { return lost[i].engineID < lost[j].engineID })
	return lost
}

// sentCounts copies the per-type counts of commands run so far.
func (c *conn) sentCounts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.sent))
	for k, v := range c.sent {
		out[k] = v
	}
	return out
}
