package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestVersionFlagPrintsTheStampedVersion(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runMain([]string{"--version"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("exit code = %d, want 0 (stderr: %s)", code, errOut.String())
	}
	if got, want := strings.TrimSpace(out.String()), "clanker "+version; got != want {
		t.Fatalf("output = %q, want %q", got, want)
	}
}

func TestUnknownFlagFailsWithUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runMain([]string{"--bogus"}, strings.NewReader(""), &out, &errOut); code != 2 {
		t.Fatalf("exit code = %d, want 2", code)
	}
	if !strings.Contains(errOut.String(), "usage: clanker") {
		t.Fatalf("stderr does not show usage: %q", errOut.String())
	}
}
