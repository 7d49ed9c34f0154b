package native

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// The Windows view hands exactly these CDP calls to WebView2, which is Chromium. This
// test hands them to Debian's headless Chromium instead, over the same protocol, to a
// page in a tab behind another one (as the Clanker window may be behind another program
// or hidden), and checks what the page sees: a trusted Enter, with the page focused,
// that its own keydown handler acts on. It proves the messages, not WebView2's
// CallDevToolsProtocolMethod (the Windows workflow does that on a real Windows runner).

const cdpTestPage = `<!doctype html><title>cdp</title>
<textarea id="box"></textarea>
<script>
window.log = [];
const box = document.getElementById('box');
for (const type of ['keydown', 'keyup']) {
  box.addEventListener(type, e => log.push({type: e.type, key: e.key, code: e.code, keyCode: e.keyCode,
    trusted: e.isTrusted, focused: document.hasFocus()}));
}
// Like the Messages compose box: a trusted Enter sends the draft and clears the box.
box.addEventListener('keydown', e => {
  if (e.key === 'Enter' && e.isTrusted) { e.preventDefault(); window.sent = box.value; box.value = ''; }
});
</script>`

// chromiumInstalls are where the Chromium-based browsers are installed on each system
// when they are not on PATH (GitHub's hosted Windows and macOS images put Chrome there;
// Edge, which is Chromium too, comes with every Windows).
func chromiumInstalls() []string {
	switch runtime.GOOS {
	case "windows":
		var out []string
		for _, env := range []string{"ProgramFiles", "ProgramFiles(x86)", "LocalAppData"} {
			if dir := os.Getenv(env); dir != "" {
				out = append(out,
					filepath.Join(dir, "Google", "Chrome", "Application", "chrome.exe"),
					filepath.Join(dir, "Chromium", "Application", "chrome.exe"),
					filepath.Join(dir, "Microsoft", "Edge", "Application", "msedge.exe"))
			}
		}
		return out
	case "darwin":
		return []string{
			"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
			"/Applications/Chromium.app/Contents/MacOS/Chromium",
			"/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
		}
	}
	return nil
}

// chromiumPath finds a Chromium-based browser: CLANKER_CHROMIUM, then PATH, then the
// system's usual install folders. Linux machines that run make test have Debian's
// chromium (make deps installs it), so there a missing browser fails the test; on
// Windows and macOS, where nothing installs one for the tests, it skips and says where
// it looked.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CLANKER_CHROMIUM"); p != "" {
		return p
	}
	names := []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "msedge"}
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	installs := chromiumInstalls()
	for _, p := range installs {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	if runtime.GOOS == "linux" {
		t.Fatal("no Chromium found: install Debian's chromium (make deps does) or set CLANKER_CHROMIUM")
	}
	t.Skipf("no Chromium-based browser (Chrome, Chromium, Edge) on PATH (%s) or at %s; set CLANKER_CHROMIUM to one",
		strings.Join(names, ", "), strings.Join(installs, ", "))
	return ""
}

func TestTheEnterCallsGiveChromiumPagesATrustedEnter(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium; the CDP messages themselves are checked by TestEnterIsAKeyDownWithCarriageReturnThenAKeyUp")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(cdpTestPage))
	}))
	defer srv.Close()

	profile, err := os.MkdirTemp("", "clanker-cdp-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(profile)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(profile),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	defer cancelTimeout()

	// The bridge focuses the compose box and types the reply before the Enter; here a
	// script does both.
	if err := chromedp.Run(ctx,
		chromedp.Navigate(srv.URL),
		chromedp.WaitReady("#box", chromedp.ByID),
		chromedp.Evaluate(`box.focus(); box.value = 'hello from Windows'; true`, nil),
	); err != nil {
		t.Fatalf("load the test page: %v", err)
	}
	// Another tab in front takes the focus from the page, as another program in front
	// (or the tray) takes it from the Clanker window.
	other, cancelOther := chromedp.NewContext(ctx)
	defer cancelOther()
	var focused bool
	if err := chromedp.Run(other, chromedp.Navigate("about:blank"), page.BringToFront()); err != nil {
		t.Fatalf("open a second tab: %v", err)
	}
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.hasFocus()`, &focused)); err != nil {
		t.Fatal(err)
	}
	if focused {
		t.Fatal("the test page still has the focus with another tab in front; the test cannot tell whether focus emulation works")
	}
	for _, c := range pressKeyCalls(keyEnter) {
		err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
			return cdp.Execute(ctx, c.Method, json.RawMessage(c.Params), nil)
		}))
		if err != nil {
			t.Fatalf("Chromium refused %s %s: %v", c.Method, c.Params, err)
		}
	}
	var got struct {
		Log []struct {
			Type, Key, Code string
			KeyCode         int
			Trusted         bool
			Focused         bool
		}
		Sent *string
	}
	if err := chromedp.Run(ctx, chromedp.Evaluate(`({log: window.log, sent: window.sent ?? null})`, &got)); err != nil {
		t.Fatal(err)
	}
	if got.Sent == nil || *got.Sent != "hello from Windows" {
		t.Fatalf("the page's Enter handler did not send the draft; it saw %+v", got.Log)
	}
	if len(got.Log) != 2 || got.Log[0].Type != "keydown" || got.Log[1].Type != "keyup" {
		t.Fatalf("want keydown then keyup, the page saw %+v", got.Log)
	}
	for _, e := range got.Log {
		if !e.Trusted || e.Key != "Enter" || e.Code != "Enter" || e.KeyCode != 13 {
			t.Errorf("%s: key %q code %q keyCode %d trusted %v; want a trusted Enter (13)", e.Type, e.Key, e.Code, e.KeyCode, e.Trusted)
		}
		if !e.Focused {
			t.Errorf("%s: document.hasFocus() was false; focus emulation should make the page focused while it types", e.Type)
		}
	}
}
