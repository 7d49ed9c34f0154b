package testkit

import "testing"

// CheckPrivateFile fails t unless the file at path is private to the user who owns it,
// in the way each system promises that: on Unix the mode is 0600; on Windows the file's
// access list lets in nobody but its owner, SYSTEM and the Administrators, which is what
// every file in the user's profile folder (where Clanker keeps its data) gets. Under
// Wine, which cannot show that, it skips t with the reason; call it last in a test.
func CheckPrivateFile(t testing.TB, path string) {
	t.Helper()
	if reason := privateFileUnknowable(); reason != "" {
		t.Skip(reason)
	}
	if err := checkPrivate(path); err != nil {
		t.Errorf("%s is not private to its owner: %v", path, err)
	}
}
