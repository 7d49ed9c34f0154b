package window

import (
	goruntime "runtime"
	"strings"
	"testing"
	"time"
)

func TestTargetOriginAcceptsHTTPSAndLoopbackHTTPOnly(t *testing.T) {
	good := map[string]string{
		"https://messages.google.com/web":           "https://messages.google.com",
		"https://Messages.Google.com:443/web/x?y=1": "https://messages.google.com:443",
		"http://127.0.0.1:8080/app/":                "http://127.0.0.1:8080",
		"http://localhost:9/":                       "http://localhost:9",
		"http://[::1]:7000/":                        "http://[::1]:7000",
	}
	for in, want := range good {
		got, err := targetOrigin(in)
		if err != nil || got != want {
			t.Errorf("targetOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "http://messages.google.com/web", "ftp://127.0.0.1/", "javascript:alert(1)",
		"https://user:pw@messages.google.com/", "https://*.google.com/", "/relative", "https://a.com,https://b.com/"} {
		if got, err := targetOrigin(in); err == nil {
			t.Errorf("targetOrigin(%q) = %q; want an error", in, got)
		}
	}
}

func TestAppOptionsBindNothingAndAllowExactlyTheTargetOrigin(t *testing.T) {
	s, err := New(Options{TargetURL: "https://messages.google.com/web/conversations"})
	if err != nil {
		t.Fatal(err)
	}
	o := s.appOptions()
	if len(o.Bind) != 0 || len(o.EnumBind) != 0 {
		t.Fatalf("main window binds %d objects and %d enums; want none (the page could call them)", len(o.Bind), len(o.EnumBind))
	}
	if o.BindingsAllowedOrigins != "https://messages.google.com" {
		t.Fatalf("BindingsAllowedOrigins = %q; want exactly https://messages.google.com", o.BindingsAllowedOrigins)
	}
	if o.Width != DefaultWidth || o.Height != DefaultHeight {
		t.Fatalf("default size %dx%d; want %dx%d", o.Width, o.Height, DefaultWidth, DefaultHeight)
	}
}

func TestSavedGeometryIsUsedOnlyWhenSane(t *testing.T) {
	s, _ := New(Options{TargetURL: "https://x.test/", Geometry: &Geometry{X: 10, Y: 20, Width: 800, Height: 600}})
	if o := s.appOptions(); o.Width != 800 || o.Height != 600 {
		t.Fatalf("saved 800x600 gave %dx%d", o.Width, o.Height)
	}
	s, _ = New(Options{TargetURL: "https://x.test/", Geometry: &Geometry{Width: 5, Height: 99999}})
	if o := s.appOptions(); o.Width != DefaultWidth || o.Height != DefaultHeight {
		t.Fatalf("garbage geometry gave %dx%d; want the default", o.Width, o.Height)
	}
}

func TestGuardedScriptRunsOnlyOnTheOriginAndOncePerDocument(t *testing.T) {
	g := guardedScript("https://messages.google.com", "doThing();")
	for _, want := range []string{`location.origin !== "https://messages.google.com"`, "window.opener", "hasOwnProperty", "\ndoThing();\n})();"} {
		if !strings.Contains(g, want) {
			t.Fatalf("guarded script lacks %q:\n%s", want, g)
		}
	}
	if guardedScript("https://x.test", "") != "" {
		t.Fatal("an empty user script must stay empty (nothing to inject)")
	}
	// A trailing line comment in the user script must not swallow the wrapper's end.
	if g := guardedScript("https://x.test", "a(); // end"); !strings.HasSuffix(g, "// end\n})();\n") {
		t.Fatalf("wrapper end not on its own line:\n%s", g)
	}
}

func TestCrashReloadsBackOffWhenTheProcessKeepsDying(t *testing.T) {
	want := []time.Duration{200 * time.Millisecond, 200 * time.Millisecond, 200 * time.Millisecond,
		5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second, time.Minute, time.Minute}
	for i, w := range want {
		if got := reloadDelay(i + 1); got != w {
			t.Errorf("reloadDelay(%d) = %v; want %v", i+1, got, w)
		}
	}
	if got := reloadDelay(200); got != time.Minute {
		t.Errorf("reloadDelay(200) = %v; want the one-minute cap", got)
	}
}

func TestPopupsOpenInAppOnlyForListedOrigins(t *testing.T) {
	external := make(chan string, 10)
	s, err := New(Options{TargetURL: "https://messages.google.com/web", OpenExternal: func(u string) { external <- u }})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"https://messages.google.com/web/x", "https://accounts.google.com/o/oauth2"} {
		if !s.popupAllowed(u) {
			t.Errorf("popup %s refused; want it in-app", u)
		}
	}
	for _, u := range []string{"https://evil.test/", "http://messages.google.com/", "https://accounts.google.com.evil.test/", "about:blank", "javascript:1", ""} {
		if s.popupAllowed(u) {
			t.Errorf("popup %q allowed in-app; want it refused", u)
		}
	}
	// Refused http(s) popups go to the system browser; other schemes are dropped.
	got := map[string]bool{}
	for range 3 {
		select {
		case u := <-external:
			got[u] = true
		case <-time.After(5 * time.Second):
			t.Fatalf("OpenExternal got %v; want the three refused http(s) URLs", got)
		}
	}
	for _, u := range []string{"https://evil.test/", "http://messages.google.com/", "https://accounts.google.com.evil.test/"} {
		if !got[u] {
			t.Errorf("refused popup %s was not handed to OpenExternal (got %v)", u, got)
		}
	}
	select {
	case u := <-external:
		t.Fatalf("OpenExternal also got %q; non-http(s) URLs must be dropped", u)
	case <-time.After(100 * time.Millisecond):
	}
}

func TestZoomStepsLikeABrowserAndStopAtTheEnds(t *testing.T) {
	cases := []struct {
		cur  float64
		dir  int
		want float64
	}{{1, 1, 1.1}, {1, -1, 0.9}, {1.1, 1, 1.25}, {0.5, -1, 0.5}, {3, 1, 3}, {1.3, -1, 1.25}, {1.3, 1, 1.5}}
	for _, c := range cases {
		if got := nextZoom(c.cur, c.dir); got != c.want {
			t.Errorf("nextZoom(%v, %d) = %v; want %v", c.cur, c.dir, got, c.want)
		}
	}
}

func TestWindowsOptionsReloadAfterResumeAndKeepZoom(t *testing.T) {
	s, err := New(Options{TargetURL: "https://messages.google.com/web"})
	if err != nil {
		t.Fatal(err)
	}
	w := s.appOptions().Windows
	if w == nil || w.OnResume == nil {
		t.Fatal("no Windows OnResume: the page would not reload after sleep on Windows")
	}
	if !w.IsZoomControlEnabled {
		t.Error("a Windows options block turns WebView2's zoom keys off unless IsZoomControlEnabled is set")
	}
}

func TestTheUserAgentDefaultsToSafariExceptOnWindows(t *testing.T) {
	s, err := New(Options{TargetURL: "https://messages.google.com/web"})
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultUserAgent
	if goruntime.GOOS == "windows" {
		want = "" // WebView2 keeps Edge's own
	}
	if s.opts.UserAgent != want {
		t.Fatalf("user agent on %s = %q; want %q", goruntime.GOOS, s.opts.UserAgent, want)
	}
	s, _ = New(Options{TargetURL: "https://messages.google.com/web", UserAgent: "X/1"})
	if s.opts.UserAgent != "X/1" {
		t.Fatalf("a given user agent was replaced: %q", s.opts.UserAgent)
	}
}
