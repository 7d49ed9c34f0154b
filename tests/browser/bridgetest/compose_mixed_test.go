package bridgetest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	protocol "github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/tests/browser"
)

// These tests hold the bridge to issue 27.3: Clanker never leaves its partial text in a box
// the user is typing into. Whatever the user did to the box between Clanker's typing steps
// (typed before, inside or after Clanker's text, replaced or deleted part of it),
// clear_inserted leaves exactly the user's characters, in their order, and no character of
// Clanker's, and says how it did it.

// boxChar is one character of the modelled compose box and who put it there.
type boxChar struct {
	r       rune
	clanker bool
}

// boxModel is what the box should hold: the characters with their owners, the caret
// (selection start and end, in characters) and Clanker's text as typed so far.
type boxModel struct {
	chars      []boxChar
	start, end int
	typed      string
}

func (b *boxModel) text() string {
	var s strings.Builder
	for _, c := range b.chars {
		s.WriteRune(c.r)
	}
	return s.String()
}

// user is the text of the user's characters in order.
func (b *boxModel) user() string {
	var s strings.Builder
	for _, c := range b.chars {
		if !c.clanker {
			s.WriteRune(c.r)
		}
	}
	return s.String()
}

// how is what clear_inserted should say it did.
func (b *boxModel) how() string {
	runs, inRun, n := 0, false, 0
	var mine strings.Builder
	for _, c := range b.chars {
		if c.clanker && !inRun {
			runs++
		}
		inRun = c.clanker
		if c.clanker {
			n++
			mine.WriteRune(c.r)
		}
	}
	switch {
	case n == 0:
		return "nothing"
	case runs == 1 && mine.String() == b.typed:
		return "whole"
	}
	return "by_position"
}

// replace puts the user's text s in place of the selection.
func (b *boxModel) replace(s string) {
	var add []boxChar
	for _, r := range s {
		add = append(add, boxChar{r: r})
	}
	b.chars = append(append(append([]boxChar(nil), b.chars[:b.start]...), add...), b.chars[b.end:]...)
	b.start += len(add)
	b.end = b.start
}

// backspace deletes the selection, or the character before the caret.
func (b *boxModel) backspace() {
	if b.start == b.end && b.start > 0 {
		b.start--
	}
	b.replace("")
}

// step is Clanker's typing step: taken only when the box holds exactly Clanker's text.
func (b *boxModel) step(s string) bool {
	if b.text() != b.typed {
		return false
	}
	b.typed += s
	b.chars = nil
	for _, r := range b.typed {
		b.chars = append(b.chars, boxChar{r: r, clanker: true})
	}
	b.start, b.end = len(b.chars), len(b.chars) // Clanker types at the end
	return true
}

// userAction is one thing the user does to the box: put the caret or selection somewhere
// (by script, as a click would), type (trusted key events), or press Backspace.
type userAction struct {
	caret      bool
	start, end int
	typeText   string
	backspace  int
}

func (a userAction) String() string {
	switch {
	case a.caret:
		return fmt.Sprintf("select[%d,%d]", a.start, a.end)
	case a.typeText != "":
		return fmt.Sprintf("type%q", a.typeText)
	}
	return fmt.Sprintf("backspace×%d", a.backspace)
}

// randomActions draws what the user does between two steps, against the model's box.
func randomActions(rng *rand.Rand, b *boxModel) []userAction {
	var out []userAction
	words := []string{"x", "hi", "no way", "ok ", "🙂", "a"}
	for range 1 + rng.IntN(3) {
		n := len(b.chars)
		s := rng.IntN(n + 1)
		e := s
		if rng.IntN(4) == 0 {
			e = s + rng.IntN(n-s+1)
		}
		out = append(out, userAction{caret: true, start: s, end: e})
		b.start, b.end = s, e
		if rng.IntN(3) == 0 {
			k := 1 + rng.IntN(3)
			out = append(out, userAction{backspace: k})
			for range k {
				b.backspace()
			}
		} else {
			w := words[rng.IntN(len(words))]
			out = append(out, userAction{typeText: w})
			b.replace(w)
		}
	}
	return out
}

// selectJS selects characters [start, end) of the box (code points, as the model counts).
const selectJS = `(function(start, end){
  var b = document.querySelector('[data-e2e-message-input-box]');
  b.focus();
  var units = function(s, n){ var u = 0; var cps = Array.from(s); for (var i = 0; i < n && i < cps.length; i++) u += cps[i].length; return u; };
  if (b.value !== undefined) { var v = b.value; b.setSelectionRange(units(v, start), units(v, end)); return 1; }
  var text = b.textContent, s = units(text, start), e = units(text, end);
  var w = document.createTreeWalker(b, NodeFilter.SHOW_TEXT), pos = 0, sn = null, so = 0, en = null, eo = 0;
  for (var n = w.nextNode(); n; n = w.nextNode()) {
    var len = n.data.length;
    if (!sn && s <= pos + len) { sn = n; so = s - pos; }
    if (sn && e <= pos + len) { en = n; eo = e - pos; break; }
    pos += len;
  }
  var r = document.createRange();
  if (sn && en) { r.setStart(sn, so); r.setEnd(en, eo); } else { r.selectNodeContents(b); r.collapse(false); }
  var sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(r);
  return 1;
})`

const readBoxJS = `(function(){var b=document.querySelector('[data-e2e-message-input-box]'); return b.value !== undefined ? b.value : b.innerText.replace(/\u00a0/g,' ').replace(/\n$/,'');})()`

func (h *host) do1(t *testing.T, a userAction) {
	t.Helper()
	switch {
	case a.caret:
		eval(t, h.ctx, fmt.Sprintf("%s(%d, %d)", selectJS, a.start, a.end), nil)
	case a.typeText != "":
		browser.Run(t, h.ctx, "user types "+a.typeText, chromedp.KeyEvent(a.typeText))
	default:
		for range a.backspace {
			browser.Run(t, h.ctx, "user presses Backspace", chromedp.KeyEvent(kb.Backspace))
		}
	}
}

func TestClearInsertedLeavesExactlyTheUsersCharactersWhateverTheyTypedBetweenSteps(t *testing.T) {
	steps := []string{"[clanker] ", "s", "u", "re", ", ", "see ", "you"}
	for _, variant := range []struct{ name, query string }{{"textarea", ""}, {"contenteditable", "?ce=1"}} {
		t.Run(variant.name, func(t *testing.T) {
			h, _ := openFixture(t, "/web/conversations/CONV_A"+variant.query, atDocumentStart)
			h.waitConversation(0, "CONV_A")
			read := func() string {
				var s string
				eval(t, h.ctx, readBoxJS, &s)
				return s
			}
			empty := func() {
				eval(t, h.ctx, `(function(){var b=document.querySelector('[data-e2e-message-input-box]'); if (b.value !== undefined) b.value=''; else b.textContent=''; return 1;})()`, nil)
			}
			seen := map[string]bool{}
			for seed := range 14 {
				rng := rand.New(rand.NewPCG(uint64(seed), 27))
				var b boxModel
				var log []string
				empty()
				if r := h.do(protocol.ClearInserted{}); !r.OK {
					t.Fatalf("seed %d: clearing the last run's record: %+v", seed, r)
				}
				// The user acts after step `after` (and, on some seeds, once more later).
				after := seed % len(steps)
				again := -1
				if seed%3 == 0 {
					again = (after + 2) % len(steps)
				}
				for i, s := range steps {
					want := b.step(s)
					r := h.do(protocol.TypeStep{ConversationID: "CONV_A", Text: s})
					if r.OK != want {
						t.Fatalf("seed %d (%s): step %q ok=%v (%s), model says %v", seed, strings.Join(log, " "), s, r.OK, r.Code, want)
					}
					log = append(log, fmt.Sprintf("step%q", s))
					if i == after || i == again {
						for _, a := range randomActions(rng, &b) {
							h.do1(t, a)
							log = append(log, a.String())
						}
						if got := read(); got != b.text() {
							t.Fatalf("seed %d (%s): the box holds %q, the model %q", seed, strings.Join(log, " "), got, b.text())
						}
						// Now and then the user undoes their typing: the box holds Clanker's
						// text again and typing goes on.
						if seed%4 == 1 && i == after {
							empty()
							eval(t, h.ctx, selectJS+"(0, 0)", nil)
							for _, r := range b.typed {
								browser.Run(t, h.ctx, "user retypes", chromedp.KeyEvent(string(r)))
							}
							b.chars = nil
							for _, r := range b.typed {
								b.chars = append(b.chars, boxChar{r: r})
							}
							b.start, b.end = len(b.chars), len(b.chars)
							log = append(log, "retyped Clanker's text")
						}
					}
				}
				wantHow := b.how()
				r := h.do(protocol.ClearInserted{Text: b.typed})
				var data struct {
					Removed int    `json:"removed"`
					How     string `json:"how"`
				}
				_ = json.Unmarshal(r.Data, &data)
				got := read()
				if !r.OK || got != b.user() {
					t.Fatalf("seed %d (%s): clear_inserted = %+v and the box holds %q; want ok and exactly the user's %q", seed, strings.Join(log, " "), r, got, b.user())
				}
				if data.How != wantHow {
					t.Errorf("seed %d (%s): clear_inserted said how=%q, want %q", seed, strings.Join(log, " "), data.How, wantHow)
				}
				seen[data.How] = true
				// The caret stayed with the user's characters: their next key lands there.
				at := 0
				for i := 0; i < b.start && i < len(b.chars); i++ {
					if !b.chars[i].clanker {
						at++
					}
				}
				u := []rune(b.user())
				next := string(u[:at]) + "Z" + string(u[at:])
				browser.Run(t, h.ctx, "user types on", chromedp.KeyEvent("Z"))
				if got := read(); got != next {
					t.Errorf("seed %d (%s): the user's next key made %q, want %q", seed, strings.Join(log, " "), got, next)
				}
			}
			for _, how := range []string{"whole", "by_position"} {
				if !seen[how] {
					t.Errorf("no seed exercised how=%s (seen %v): widen the seeds", how, seen)
				}
			}
		})
	}
}

// Where Clanker's characters cannot be taken out by position, the box is set to the user's
// characters alone (how=restored): without a record of the box (the page was loaded again,
// or the box is a new element after a switch) Clanker's named text is found in it, in one
// piece or with the user's characters typed in between; and a page that refuses the
// deletions gets the user's characters put back. Named text without Clanker's mark is never
// looked for anywhere but the start of the box.
func TestClearInsertedRestoresTheUsersCharactersWhenPositionsCannotBeUsed(t *testing.T) {
	for _, variant := range []struct{ name, query string }{{"textarea", ""}, {"contenteditable", "?ce=1"}} {
		t.Run(variant.name, func(t *testing.T) {
			h, _ := openFixture(t, "/web/conversations/CONV_A"+variant.query, atDocumentStart)
			h.waitConversation(0, "CONV_A")
			read := func() string {
				var s string
				eval(t, h.ctx, readBoxJS, &s)
				return s
			}
			const named = "[clanker] sure, sev"
			cases := []struct{ box, want, how string }{
				{"[clanker] sure, hi sev", "hi ", "restored"},
				{"oh [clanker] sure, sev", "oh ", "whole"},
				{"[clan no ker] sure, sev!", " no !", "restored"},
			}
			for _, c := range cases {
				browser.Run(t, h.ctx, "the restored draft", chromedp.Click(`[data-e2e-message-input-box]`, chromedp.ByQuery),
					chromedp.KeyEvent("a", chromedp.KeyModifiers(input.ModifierCtrl)), chromedp.KeyEvent(kb.Backspace),
					chromedp.SendKeys(`[data-e2e-message-input-box]`, c.box, chromedp.ByQuery))
				if got := read(); got != c.box {
					t.Fatalf("box holds %q before the test, want %q", got, c.box)
				}
				r := h.do(protocol.ClearInserted{Text: named})
				var data struct {
					How string `json:"how"`
				}
				_ = json.Unmarshal(r.Data, &data)
				if got := read(); !r.OK || got != c.want || data.How != c.how {
					t.Errorf("clear_inserted of %q in %q = %+v, box %q; want the box %q and how=%s", named, c.box, r, got, c.want, c.how)
				}
			}
			// With a record, but a page whose editing refuses deletions made by script (here
			// it wraps execCommand): the box is set to the user's characters instead.
			browser.Run(t, h.ctx, "empty the box", chromedp.KeyEvent("a", chromedp.KeyModifiers(input.ModifierCtrl)), chromedp.KeyEvent(kb.Backspace))
			for _, s := range []string{"[clanker] ", "sure"} {
				h.mustOK(protocol.TypeStep{ConversationID: "CONV_A", Text: s})
			}
			eval(t, h.ctx, selectJS+"(9, 9)", nil)
			browser.Run(t, h.ctx, "the user types into Clanker's text", chromedp.KeyEvent(" ok,"))
			eval(t, h.ctx, `(function(){ var orig = document.execCommand.bind(document);
				document.execCommand = function(c, u, v){ return c === 'delete' ? false : orig(c, u, v); }; return 1; })()`, nil)
			r := h.do(protocol.ClearInserted{})
			var data struct {
				How string `json:"how"`
			}
			_ = json.Unmarshal(r.Data, &data)
			if got := read(); !r.OK || got != " ok," || data.How != "restored" {
				t.Errorf("clear_inserted on a page that refuses deletions = %+v, box %q; want the box %q and how=restored", r, got, " ok,")
			}
			m := h.mark()
			eval(t, h.ctx, `location.reload(), 1`, nil)
			h.waitConversation(m, "CONV_A")
			browser.Run(t, h.ctx, "a draft of the user's own", chromedp.Click(`[data-e2e-message-input-box]`, chromedp.ByQuery), chromedp.KeyEvent("a", chromedp.KeyModifiers(input.ModifierCtrl)), chromedp.KeyEvent(kb.Backspace),
				chromedp.SendKeys(`[data-e2e-message-input-box]`, "well sure, seven", chromedp.ByQuery))
			if r := h.do(protocol.ClearInserted{Text: "sure, sev"}); r.OK || r.Code != "not_found" || read() != "well sure, seven" {
				t.Errorf("clear_inserted of unmarked text inside the user's draft = %+v, box %q; want not_found and the draft untouched", r, read())
			}
		})
	}
}
