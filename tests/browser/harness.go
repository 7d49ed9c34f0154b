// Package browser starts Debian's headless Chromium for tests and hands out tabs.
//
// Every browser test in Clanker goes through this package so that the flags that keep
// Chromium quiet on a closed network (no background networking, no component updates,
// no sync) and the fresh profile directory are set in exactly one place.
package browser

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/chromedp"
)

// ExecPath returns the Chromium binary tests use: $CLANKER_CHROMIUM if set, else the
// first of Debian's chromium or a chromium/chrome found on PATH.
func ExecPath() (string, error) {
	if p := os.Getenv("CLANKER_CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium found: install Debian's chromium (make deps does) or set CLANKER_CHROMIUM")
}

// Browser is one headless Chromium process with its own throw-away profile.
type Browser struct {
	allocCtx context.Context
	ctx      context.Context
	cancel   func()
}

// Options tune a browser; the zero value is what most tests want.
type Options struct {
	// ExtraFlags are added to the standard flag set, e.g. {"window-size": "1280,900"}.
	ExtraFlags map[string]any
	// Logf, when set, receives chromedp's protocol logs (noisy; for debugging).
	Logf func(string, ...any)
}

// New starts Chromium for the test and stops it when the test ends. It fails the test
// (it never skips) when Chromium is missing, because a skipped browser test would hide
// a missing install step.
func New(t testing.TB, opts ...Options) *Browser {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	path, err := ExecPath()
	if err != nil {
		t.Fatal(err)
	}
	// The profile lives in a directory of our own rather than t.TempDir: Chromium's helper
	// processes can still be writing to it for a moment after the browser exits, and
	// t.TempDir would fail the test over that.
	profile, err := os.MkdirTemp("", "clanker-chromium-")
	if err != nil {
		t.Fatalf("create Chromium profile dir: %v", err)
	}
	flags := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(profile),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-popup-blocking", true),
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints"),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
		chromedp.Flag("disable-quic", true),
		chromedp.WindowSize(1280, 900),
	}
	for k, v := range o.ExtraFlags {
		flags = append(flags, chromedp.Flag(k, v))
	}
	// Chromium's own output is kept (its tail) for a failing test: a browser that died under
	// the test ends every chromedp call with "context canceled", and says why only there.
	out := &tailBuffer{max: 16 << 10}
	flags = append(flags, chromedp.CombinedOutput(out))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), flags...)
	var ctxOpts []chromedp.ContextOption
	if o.Logf != nil {
		ctxOpts = append(ctxOpts, chromedp.WithLogf(o.Logf))
	}
	ctx, cancelCtx := chromedp.NewContext(allocCtx, ctxOpts...)
	// Start the browser now so a broken install fails here with a clear message. The first
	// Run must use ctx itself: the browser lives as long as the context it was started on.
	if err := chromedp.Run(ctx); err != nil {
		cancelCtx()
		cancelAlloc()
		os.RemoveAll(profile)
		t.Fatalf("start Chromium (%s): %v", path, err)
	}
	b := &Browser{allocCtx: allocCtx, ctx: ctx, cancel: func() {
		// Close the browser gracefully (chromedp.Cancel waits for it), then make sure the
		// process is gone, then remove the profile, retrying while stragglers finish.
		// A test may have cancelled the browser itself; chromedp.Cancel must run only once.
		if ctx.Err() == nil {
			_ = chromedp.Cancel(ctx)
		}
		cancelCtx()
		cancelAlloc()
		for i := 0; i < 20; i++ {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}}
	t.Cleanup(b.cancel)
	// Runs before b.cancel (cleanups run last in, first out), so a browser that is already
	// gone is one that ended during the test.
	t.Cleanup(func() {
		if t.Failed() && ctx.Err() != nil {
			t.Logf("Chromium ended during the test; the last of its output:\n%s", out.String())
		}
	})
	return b
}

// tailBuffer keeps the last max bytes written to it; safe for concurrent use.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (w *tailBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b = append(w.b, p...)
	if over := len(w.b) - w.max; over > 0 {
		w.b = append(w.b[:0], w.b[over:]...)
	}
	return len(p), nil
}

func (w *tailBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.b)
}

// Context is the browser's first tab. Use it with chromedp.Run.
func (b *Browser) Context() context.Context { return b.ctx }

// NewTab opens another tab in the same browser (same profile and cookies).
func (b *Browser) NewTab(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx)
	t.Cleanup(cancel)
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("open tab: %v", err)
	}
	return ctx
}

// Run runs actions in ctx with a timeout and fails the test with what was being done.
func Run(t testing.TB, ctx context.Context, what string, actions ...chromedp.Action) {
	t.Helper()
	runCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Run(runCtx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// WaitJS polls a JavaScript boolean expression until it is true or the timeout passes.
// Browser tests wait on conditions like this instead of sleeping for a fixed time.
func WaitJS(t testing.TB, ctx context.Context, expr string, timeout time.Duration) {
	t.Helper()
	if err := PollJS(ctx, expr, timeout); err != nil {
		t.Fatal(err)
	}
}

// PollJS is WaitJS returning an error instead of failing the test.
func PollJS(ctx context.Context, expr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		var ok bool
		runCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		last = chromedp.Run(runCtx, chromedp.Evaluate("!!("+expr+")", &ok))
		cancel()
		if last == nil && ok {
			return nil
		}
		if time.Now().After(deadline) {
			if last != nil {
				return fmt.Errorf("waited %v for %s: last error: %v", timeout, expr, last)
			}
			return fmt.Errorf("waited %v for %s: still false", timeout, expr)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// ArtifactsDir is where browser and full-app tests keep screenshots for people to look at:
// $CLANKER_ARTIFACTS if set, else artifacts/ at the repository root (git-ignored).
func ArtifactsDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("CLANKER_ARTIFACTS")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("create artifacts dir: %v", err)
	}
	return dir
}

// SaveScreenshot captures the whole page of ctx into the artifacts folder as name.png
// and returns the file's path.
func SaveScreenshot(t testing.TB, ctx context.Context, name string) string {
	t.Helper()
	var png []byte
	Run(t, ctx, "screenshot "+name, chromedp.FullScreenshot(&png, 100))
	if !strings.HasSuffix(name, ".png") {
		name += ".png"
	}
	path := filepath.Join(ArtifactsDir(t), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatalf("save screenshot: %v", err)
	}
	return path
}

// FindPart finds an element of Clanker's page UI by its data-part attribute. The UI lives in
// a closed shadow root, so the DOM is read with shadow roots pierced, as DevTools does. It
// returns nil when no element has that part.
func FindPart(ctx context.Context, part string) (*cdp.Node, error) {
	var root *cdp.Node
	if err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		root, err = dom.GetDocument().WithDepth(-1).WithPierce(true).Do(ctx)
		return err
	})); err != nil {
		return nil, fmt.Errorf("read the DOM with shadow roots: %w", err)
	}
	var walk func(n *cdp.Node) *cdp.Node
	walk = func(n *cdp.Node) *cdp.Node {
		if n.AttributeValue("data-part") == part {
			return n
		}
		for _, kids := range [][]*cdp.Node{n.ShadowRoots, n.Children} {
			for _, c := range kids {
				if f := walk(c); f != nil {
					return f
				}
			}
		}
		return nil
	}
	return walk(root), nil
}

// WailsHost returns a script for page.AddScriptToEvaluateOnNewDocument, to run before the
// bridge: it stands in the message handler Wails gives the page on Linux and macOS
// (window.webkit.messageHandlers.external), the channel the bridge posts its events on in
// the app, so tests see the bridge's traffic the way the app does. Each message is taken
// out of Wails' envelope ('EE' + JSON of {name: "clanker:event", data: [event]}) and its
// event text handed to deliver, a JavaScript expression evaluated once, when the script
// runs (so a page script cannot swap it later), to a function of one string. A message
// that is not such an envelope is handed on whole.
func WailsHost(deliver string) string {
	return `(function(){
  var deliver = (` + deliver + `);
  var parse = JSON.parse;
  function post(m) {
    var s = String(m);
    if (s.slice(0, 2) === 'EE') {
      try {
        var w = parse(s.slice(2));
        if (w && w.name === 'clanker:event' && w.data && w.data.length === 1) { deliver(String(w.data[0])); return; }
      } catch (e) { /* not an envelope */ }
    }
    deliver(s);
  }
  window.webkit = { messageHandlers: { external: { postMessage: post } } };
})();`
}
