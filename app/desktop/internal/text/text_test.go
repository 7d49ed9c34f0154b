package text

import "testing"

func TestClipCutsAtARuneBoundaryAndMarksTheCut(t *testing.T) {
	cases := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"too long here", 5, "too …"},
		{"héllo wörld", 4, "hél…"},
		{"bad\xffbyte", 20, "badbyte"},
	}
	for _, c := range cases {
		if got := Clip(c.in, c.n); got != c.want {
			t.Errorf("Clip(%q, %d) = %q; want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestOneLineJoinsLinesAndCollapsesSpaces(t *testing.T) {
	if got := OneLine("  Alice\n\tand\r\n  Bob  "); got != "Alice and Bob" {
		t.Fatalf("OneLine = %q; want %q", got, "Alice and Bob")
	}
}
