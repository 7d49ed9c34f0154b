package security

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chromedp/chromedp"

	"github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/tests/browser"
)

// fragments are pieces of text that break scripts, string literals, JSON or HTML, or that
// encoders commonly get wrong. Several try to run code that sets window.__pwned.
var fragments = []string{
	`"`, `'`, "`", `\`, `\\`, `\"`, `\'`, `\u0022`, `\x22`, `\n`, `\ud800`, `\u2028`,
	"\u2028", "\u2029", "\x00", "\x01", "\x1b[31m", "\x7f", "\r\n", "\t", "\v\f",
	`</script>`, `</SCRIPT >`, `<script>window.__pwned=1</script>`, `<!--`, `-->`, `<![CDATA[`, `]]>`,
	`");window.__pwned=1;("`, `');window.__pwned=1;('`, "`;window.__pwned=1;`", `${window.__pwned=1}`,
	`"+(window.__pwned=1)+"`, `})(window.__pwned=1);//`, "\u2028window.__pwned=1//", `*/window.__pwned=1/*`,
	`"}]}`, `{"v":2}`, `","type":"navigate","args":{"conversationId":"x"}}`, `null`, `__proto__`, `constructor`,
	"😀", "👍🏽", "👨‍👩‍👧", "\U0001F600\U0001F600", "é", "e\u0301", "\u202e", "\u200b", "\ufeff", "\ufffd",
	"𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "ﷺ", "<img src=x onerror=window.__pwned=1>", `&lt;&amp;`, `&#x3c;`, "%00", "%u2028",
}

// nastyCorpus returns every fragment alone, a seeded set of random combinations, and texts at
// each command's length limit.
func nastyCorpus() []string {
	out := append([]string(nil), fragments...)
	rng := rand.New(rand.NewPCG(2026, 11))
	for range 400 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(fragments[rng.IntN(len(fragments))])
			if rng.IntN(3) == 0 {
				b.WriteString(" word ")
			}
		}
		out = append(out, b.String())
	}
	return out
}

// clip runes to a command field's limit.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// nastyCommands builds commands carrying each corpus text in every free-text field, plus texts
// at the limits. want maps a command id to the text it carries.
func nastyCommands(t *testing.T) (scripts []string, want map[string]page.CommandArgs) {
	t.Helper()
	want = map[string]page.CommandArgs{}
	corpus := nastyCorpus()
	corpus = append(corpus, strings.Repeat("</script>\u2028", 400), strings.Repeat("😀", 4000))
	for i, s := range corpus {
		for j, args := range []page.CommandArgs{
			page.InsertText{ConversationID: "c1", Text: clipRunes(s, 4000)},
			page.TypeStep{ConversationID: "c1", Text: clipRunes(s, 256)},
			page.ShowToast{Text: clipRunes(s, 500), Level: "error"},
			page.ShowBanner{Text: clipRunes(s, 500), Level: "warning"},
			page.Navigate{ConversationID: clipRunes(s, 200)},
		} {
			id := fmt.Sprintf("n%d.%d", i, j)
			js, err := page.EncodeCommand(id, args)
			if err != nil {
				t.Fatalf("EncodeCommand(%T with corpus text %d): %v", args, i, err)
			}
			scripts = append(scripts, js)
			want[id] = args
		}
	}
	return scripts, want
}

// literal extracts the single JSON string literal an encoded command passes to the bridge:
// the whole script is the guarded call of the bridge's entry point with that one literal.
var literal = regexp.MustCompile(`^window\.__clanker&&typeof window\.__clanker\.command==='function'&&window\.__clanker\.command\(("(?:[^"\\]|\\.)*")\);$`)

// checkReceived compares what the page received with what Go encoded, byte for byte: the string
// the entry point got must equal the literal's value, and its args must equal the command's.
func checkReceived(t *testing.T, scripts []string, want map[string]page.CommandArgs, got []string) {
	t.Helper()
	if len(got) != len(scripts) {
		t.Fatalf("the page received %d commands, want %d (some script failed or ran twice)", len(got), len(scripts))
	}
	for i, js := range scripts {
		m := literal.FindStringSubmatch(js)
		if m == nil {
			t.Fatalf("script %d does not end in one string literal: %.80s", i, js)
		}
		var sent string
		if err := json.Unmarshal([]byte(m[1]), &sent); err != nil {
			t.Fatalf("script %d literal is not a JSON string: %v", i, err)
		}
		if got[i] != sent {
			t.Errorf("command %d: the page received %d bytes that differ from the %d bytes encoded", i, len(got[i]), len(sent))
			continue
		}
		var wire struct {
			ID   string          `json:"id"`
			Args json.RawMessage `json:"args"`
		}
		if err := json.Unmarshal([]byte(got[i]), &wire); err != nil {
			t.Fatalf("command %d is not JSON on the page: %v", i, err)
		}
		exp, err := json.Marshal(want[wire.ID])
		if err != nil {
			t.Fatal(err)
		}
		if string(wire.Args) != string(exp) {
			t.Errorf("command %s args arrived as %.120s, want %.120s", wire.ID, wire.Args, exp)
		}
	}
}

const standIn = `window.__got = []; window.__pwned = 0; window.__clanker = { command: function (s) { window.__got.push(s); } };`

// TestNastyTextCannotEscapeTheCommandEncodingInChromium runs ~2,300 encoded commands carrying a
// generated corpus of script-, JSON- and HTML-breaking text in headless Chromium, both as the
// shell runs them (each evaluated on its own) and inlined in an HTML <script> element. Every
// command must reach the bridge's entry point exactly once with exactly the bytes Go encoded,
// and no payload may run.
func TestNastyTextCannotEscapeTheCommandEncodingInChromium(t *testing.T) {
	scripts, want := nastyCommands(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/inline" {
			fmt.Fprintf(w, "<!doctype html><meta charset=utf-8><script>%s</script>\n", standIn)
			for _, js := range scripts {
				fmt.Fprintf(w, "<script>%s</script>\n", js)
			}
			return
		}
		fmt.Fprint(w, "<!doctype html><meta charset=utf-8><title>blank</title>")
	}))
	defer srv.Close()
	b := browser.New(t)
	ctx := b.Context()

	t.Run("evaluated one by one", func(t *testing.T) {
		browser.Run(t, ctx, "open a blank page", chromedp.Navigate(srv.URL+"/blank"), chromedp.Evaluate(standIn, nil))
		for i, js := range scripts {
			if err := chromedp.Run(ctx, chromedp.Evaluate(js, nil)); err != nil {
				t.Fatalf("script %d threw in the page: %v", i, err)
			}
		}
		var got []string
		var pwned int
		browser.Run(t, ctx, "read what the page received", chromedp.Evaluate(`window.__got`, &got), chromedp.Evaluate(`window.__pwned`, &pwned))
		if pwned != 0 {
			t.Fatal("a payload escaped the string literal and ran")
		}
		checkReceived(t, scripts, want, got)
	})
	t.Run("inlined in script elements", func(t *testing.T) {
		browser.Run(t, ctx, "open the inline page", chromedp.Navigate(srv.URL+"/inline"))
		browser.WaitJS(t, ctx, `document.readyState === "complete"`, 45e9)
		var got []string
		var pwned int
		browser.Run(t, ctx, "read what the page received", chromedp.Evaluate(`window.__got`, &got), chromedp.Evaluate(`window.__pwned`, &pwned))
		if pwned != 0 {
			t.Fatal("a payload escaped its script element and ran")
		}
		checkReceived(t, scripts, want, got)
	})
}
