package text

import "testing"

func TestOneLineJoinsLinesAndCollapsesSpaces(t *testing.T) {
	if got := OneLine("  Alice\n\tand\r\n  Bob  "); got != "Alice and Bob" {
		t.Fatalf("OneLine = %q; want %q", got, "Alice and Bob")
	}
}
