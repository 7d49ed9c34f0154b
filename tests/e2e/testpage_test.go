//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// report is one thing the test page told its server.
type report struct {
	Kind string          `json:"kind"`
	Data json.RawMessage `json:"data"`
	// Header values the server saw with the report or page request.
	UserAgent string `json:"-"`
	Cookie    string `json:"-"`
}

// testPage serves the page the shell shows in these tests. The page accepts only
// trusted input (event.isTrusted), like Google Messages, and reports everything it sees
// to the server, so the test knows what the page saw without trusting the shell.
type testPage struct {
	mu      sync.Mutex
	reports []report
	srv     *http.Server
	ln      net.Listener
	Addr    string // host:port on 127.0.0.1
}

// newTestPage serves on addr ("127.0.0.1:0" for any port).
func newTestPage(t *testing.T, addr string) *testPage {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen for the test page on %s: %v", addr, err)
	}
	p := &testPage{ln: ln, Addr: ln.Addr().String()}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /app/", p.serveHTML(appHTML))
	mux.HandleFunc("GET /popup", p.serveHTML(popupHTML))
	mux.HandleFunc("GET /other", p.serveHTML(otherHTML))
	mux.HandleFunc("POST /report", func(w http.ResponseWriter, r *http.Request) {
		var rep report
		b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err := json.Unmarshal(b, &rep); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rep.UserAgent = r.UserAgent()
		p.add(rep)
		w.WriteHeader(http.StatusNoContent)
	})
	p.srv = &http.Server{Handler: mux}
	go p.srv.Serve(ln) //nolint:errcheck // ends at Close
	t.Cleanup(p.Close)
	return p
}

func (p *testPage) serveHTML(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		cookie := ""
		if c, err := r.Cookie("session"); err == nil {
			cookie = c.Value
		}
		d, _ := json.Marshal(map[string]string{"path": r.URL.Path})
		p.add(report{Kind: "http-get", Data: d, UserAgent: r.UserAgent(), Cookie: cookie})
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, body)
	}
}

func (p *testPage) add(r report) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reports = append(p.reports, r)
}

// Close stops serving; the port becomes free.
func (p *testPage) Close() { _ = p.srv.Close() }

// URL is the app page's address.
func (p *testPage) URL() string { return "http://" + p.Addr + "/app/" }

// Reports returns the reports of the given kind, in order.
func (p *testPage) Reports(kind string) []report {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []report
	for _, r := range p.reports {
		if r.Kind == kind {
			out = append(out, r)
		}
	}
	return out
}

// Kinds summarises the reports for failure messages.
func (p *testPage) Kinds() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var k []string
	for _, r := range p.reports {
		k = append(k, r.Kind)
	}
	if len(k) > 40 {
		k = append(k[:10], append([]string{"..."}, k[len(k)-30:]...)...)
	}
	return strings.Join(k, ",")
}

// The page's shared helpers: report() to the server, emit() to the shell over the raw
// Wails IPC the way the bridge does.
const pageHelpers = `
function report(kind, data) {
  fetch('/report', {method: 'POST', body: JSON.stringify({kind: kind, data: data || {}}), keepalive: true});
}
function emit(obj) {
  window.webkit.messageHandlers.external.postMessage('EE' + JSON.stringify({name: 'clanker:event', data: [JSON.stringify(obj)]}));
}
`

const appHTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>Shell test page</title>
<script>` + pageHelpers + `
window.__pageScriptRan = true;
document.cookie = 'session=s3cret; path=/';
</script>
<style>body{font:16px sans-serif;margin:2em} textarea{width:30em;height:5em;display:block;margin:1em 0}</style>
</head><body>
<h1>Shell test page</h1>
<p>Only trusted input counts here.</p>
<textarea id="box" aria-label="Compose"></textarea>
<button id="signin" type="button">Sign in</button>
<button id="external" type="button">Elsewhere</button>
<ul id="log"></ul>
<script>
var box = document.getElementById('box');
['keydown', 'keyup', 'beforeinput', 'input'].forEach(function (type) {
  box.addEventListener(type, function (e) {
    report('box-event', {type: e.type, key: e.key || '', trusted: e.isTrusted, inputType: e.inputType || '', data: e.data || '', shift: !!e.shiftKey});
  });
});
box.addEventListener('keydown', function (e) {
  if (e.key !== 'Enter' || e.shiftKey) return;
  e.preventDefault();
  if (!e.isTrusted) { report('ignored-untrusted-enter', {}); return; }
  report('sent', {text: box.value, hidden: document.hidden});
  box.value = '';
});
document.getElementById('signin').addEventListener('click', function (e) {
  if (!e.isTrusted) { report('ignored-untrusted-click', {}); return; }
  var w = window.open('/popup', 'signin', 'width=480,height=560');
  report('popup-requested', {opened: !!w});
});
document.getElementById('external').addEventListener('click', function (e) {
  if (!e.isTrusted) return;
  var w = window.open(location.protocol + '//localhost:' + location.port + '/other', '_blank');
  report('external-requested', {opened: !!w});
});
window.addEventListener('message', function (e) {
  report('opener-message', {data: String(e.data), origin: e.origin});
});
document.addEventListener('visibilitychange', function () { report('visibility', {hidden: document.hidden}); });
// A stand-in for the bridge's one entry point: it echoes the text of the command it is given.
window.__clanker = {command: function (c) {
  var s = JSON.parse(c).args.text;
  emit({kind: 'echo', text: s});
  report('echo', {text: s});
}};
// insertText puts text in the focused box the way the bridge does (execCommand), then reports.
window.__insertText = function (s) {
  document.execCommand('insertText', false, s);
  report('inserted', {text: box.value});
};
window.__goSpa = function (path) { history.pushState({}, '', path); };
emit({kind: 'from-page', href: location.href});
report('app-loaded', {href: location.href});
</script>
</body></html>`

const popupHTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>Test sign-in</title>
<script>` + pageHelpers + `</script></head>
<body><h1>Signing in…</h1>
<script>
report('popup-loaded', {hasOpener: !!window.opener, cookie: document.cookie});
try { emit({kind: 'from-popup'}); report('popup-emit-threw', {threw: false}); }
catch (e) { report('popup-emit-threw', {threw: true}); }
setTimeout(function () {
  window.opener.postMessage('signed-in', location.origin);
  window.close();
}, 300);
</script></body></html>`

const otherHTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>Other origin</title>
<script>` + pageHelpers + `</script></head>
<body><h1>Another origin</h1>
<script>
var ok = true;
try { emit({kind: 'from-other-origin', href: location.href}); } catch (e) { ok = false; }
report('other-loaded', {href: location.href, posted: ok, injected: Object.keys(window).some(function (k) { return k.indexOf('__clankerInjected_') === 0; })});
</script></body></html>`

// userScript is the test's stand-in for the bridge: it reports when and where it ran and
// follows SPA navigations by hooking history.pushState, as the bridge must.
const userScript = `
var s = {kind: 'script-ran', readyState: document.readyState, pageScriptRan: !!window.__pageScriptRan,
         href: location.href, ua: navigator.userAgent, hidden: document.hidden};
function emitFromScript(o) {
  window.webkit.messageHandlers.external.postMessage('EE' + JSON.stringify({name: 'clanker:event', data: [JSON.stringify(o)]}));
}
emitFromScript(s);
var push = history.pushState;
history.pushState = function () {
  var r = push.apply(this, arguments);
  emitFromScript({kind: 'navigated', href: location.href});
  return r;
};
`
