package inject

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// cssRules maps each selector of a stylesheet part to its declarations (property to
// value), later declarations winning.
type cssRules map[string]map[string]string

var (
	cssComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	cssHex     = regexp.MustCompile(`#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b`)
)

// parseRules reads plain rules (no nested blocks) from css.
func parseRules(css string) cssRules {
	out := cssRules{}
	for _, rule := range strings.Split(css, "}") {
		sel, body, ok := strings.Cut(rule, "{")
		if !ok {
			continue
		}
		for _, s := range strings.Split(sel, ",") {
			s = strings.Join(strings.Fields(s), " ")
			if out[s] == nil {
				out[s] = map[string]string{}
			}
			for _, decl := range strings.Split(body, ";") {
				if k, v, ok := strings.Cut(decl, ":"); ok {
					out[s][strings.TrimSpace(k)] = strings.TrimSpace(v)
				}
			}
		}
	}
	return out
}

// uiSchemes splits ui.css into its light rules (outside any block) and the rules of its
// prefers-color-scheme: dark block.
func uiSchemes(t *testing.T) (light, dark cssRules) {
	t.Helper()
	b, err := os.ReadFile("src/ui.css")
	if err != nil {
		t.Fatal(err)
	}
	css := cssComment.ReplaceAllString(string(b), "")
	const media = "@media (prefers-color-scheme: dark) {"
	i := strings.Index(css, media)
	if i < 0 {
		t.Fatal("ui.css has no @media (prefers-color-scheme: dark) block")
	}
	// The block ends at the first "}" that closes no rule: two in a row.
	rest := css[i+len(media):]
	end := regexp.MustCompile(`}\s*}`).FindStringIndex(rest)
	if end == nil {
		t.Fatal("the dark block of ui.css is not closed")
	}
	return parseRules(css[:i] + rest[end[1]:]), parseRules(rest[:end[0]+1])
}

// colourOf is the first hex colour of property prop for the first selector in sels that
// sets it, looking at the scheme's own rules before the light ones it builds on.
func colourOf(t *testing.T, prop string, sels []string, layers ...cssRules) string {
	t.Helper()
	for _, l := range layers {
		for _, s := range sels {
			if v, ok := l[s][prop]; ok {
				if c := cssHex.FindString(v); c != "" {
					return c
				}
			}
		}
	}
	t.Fatalf("no %s colour for %v in ui.css", prop, sels)
	return ""
}

func luminance(t *testing.T, hex string) float64 {
	t.Helper()
	h := hex[1:]
	if len(h) == 3 {
		h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
	}
	var lin [3]float64
	for i := range lin {
		n, err := strconv.ParseUint(h[2*i:2*i+2], 16, 8)
		if err != nil {
			t.Fatalf("colour %s: %v", hex, err)
		}
		c := float64(n) / 255
		if c <= 0.04045 {
			lin[i] = c / 12.92
		} else {
			lin[i] = math.Pow((c+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*lin[0] + 0.7152*lin[1] + 0.0722*lin[2]
}

// contrast is WCAG 2's contrast ratio of two colours.
func contrast(t *testing.T, a, b string) float64 {
	la, lb := luminance(t, a), luminance(t, b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// TestUIColoursAreReadableInBothSchemes checks every text of the bridge's UI against the
// background it sits on, in the light rules and in the dark block that overrides them:
// WCAG AA's 4.5:1 for text; greyed-out items, whose text WCAG exempts, keep at least the
// 2.5:1 of the light menu's grey (#9aa0a6 on white). It also checks that the dark block changes each part, so a rule
// forgotten there shows up as a light part on a dark desktop.
func TestUIColoursAreReadableInBothSchemes(t *testing.T) {
	light, dark := uiSchemes(t)
	type pair struct {
		name   string
		fg, bg []string // selectors, most specific first
		min    float64
	}
	pairs := []pair{
		{"warning banner", []string{".banner"}, []string{".banner"}, 4.5},
		{"error banner", []string{".banner.error", ".banner"}, []string{".banner.error"}, 4.5},
		{"info banner", []string{".banner.info", ".banner"}, []string{".banner.info"}, 4.5},
		{"toast", []string{".toast"}, []string{".toast"}, 4.5},
		{"error toast", []string{".toast.error", ".toast"}, []string{".toast.error"}, 4.5},
		{"success toast", []string{".toast.success", ".toast"}, []string{".toast.success"}, 4.5},
		{"overlay card", []string{".overlay-card"}, []string{".overlay-card"}, 4.5},
		{"overlay Cancel", []string{".overlay-card button"}, []string{".overlay-card button"}, 4.5},
		{"pill", []string{".pill"}, []string{".pill"}, 4.5},
		{"Active pill", []string{".pill.active"}, []string{".pill.active"}, 4.5},
		{"Available pill", []string{".pill.available"}, []string{".pill.available"}, 4.5},
		{"menu item", []string{".menu"}, []string{".menu"}, 4.5},
		{"hovered menu item", []string{".menu"}, []string{".menu button:hover"}, 4.5},
		{"locked reason", []string{".menu .reason"}, []string{".menu"}, 4.5},
		{"greyed-out menu item", []string{`.menu button[aria-disabled="true"]`}, []string{".menu"}, 2.5},
		{"hint", []string{".hint"}, []string{".hint"}, 4.5},
		{"hint's Got it", []string{".hint button"}, []string{".hint button"}, 4.5},
	}
	for _, p := range pairs {
		lf, lb := colourOf(t, "color", p.fg, light), colourOf(t, "background", p.bg, light)
		df, db := colourOf(t, "color", p.fg, dark, light), colourOf(t, "background", p.bg, dark, light)
		if c := contrast(t, lf, lb); c < p.min {
			t.Errorf("light %s: %s on %s has contrast %.2f, want at least %.1f", p.name, lf, lb, c, p.min)
		}
		if c := contrast(t, df, db); c < p.min {
			t.Errorf("dark %s: %s on %s has contrast %.2f, want at least %.1f", p.name, df, db, c, p.min)
		}
		if db == lb {
			t.Errorf("dark %s keeps the light background %s", p.name, lb)
		}
		if luminance(t, db) > luminance(t, lb) && luminance(t, df) > luminance(t, lf) {
			t.Errorf("dark %s (%s on %s) is lighter all over than the light one (%s on %s)", p.name, df, db, lf, lb)
		}
	}
}
