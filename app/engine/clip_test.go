package engine

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClipKeepsShortTextAndMarksACutWithinTheLimit(t *testing.T) {
	cases := []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 5, "hello"},
		{"hello!", 5, "hell…"},
		{"", 3, ""},
		{"héllo wörld", 6, "héllo…"},
		{"😀😀😀", 2, "😀…"},
		{"abc", 1, "…"},
		{"abc", 0, ""},
		{"ab\xffc", 3, "abc"},
		{"ab\xffcd", 3, "ab…"},
	}
	for _, c := range cases {
		got := Clip(c.in, c.n)
		if got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
		if !utf8.ValidString(got) || (c.n > 0 && utf8.RuneCountInString(got) > c.n) {
			t.Errorf("Clip(%q, %d) = %q: want valid UTF-8 of at most %d runes", c.in, c.n, got, c.n)
		}
	}
}

func BenchmarkClipOfAHugeText(b *testing.B) {
	huge := strings.Repeat("é", 1<<20)
	for b.Loop() {
		if got := Clip(huge, 300); utf8.RuneCountInString(got) != 300 {
			b.Fatalf("clipped to %d runes", utf8.RuneCountInString(got))
		}
	}
}
