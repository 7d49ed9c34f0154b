package run

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/clanker-desktop/clanker/tests/testkit"
)

// The log rotates by size: the current file never passes the limit, the older ones move
// down the numbered names, and only the kept number of them remain.
func TestLogFileRotatesAndKeepsABoundedHistory(t *testing.T) {
	dir := t.TempDir()
	r, err := OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	r.max = 100
	line := bytes.Repeat([]byte("x"), 39)
	line = append(line, '\n') // 40 bytes: two lines fit, the third rotates
	for i := 0; i < 20; i++ {
		if _, err := r.Write(fmt.Appendf(nil, "%02d%s", i, line[2:])); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	cur, err := os.ReadFile(LogPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(cur) > 100 || !bytes.HasPrefix(cur, []byte("18")) {
		t.Fatalf("current log holds %d bytes starting %q; want at most 100, starting with line 18", len(cur), cur[:2])
	}
	one, _ := os.ReadFile(LogPath(dir) + ".1")
	if !bytes.HasPrefix(one, []byte("16")) {
		t.Fatalf("clanker.log.1 starts %q, want the lines before the current ones (16)", one)
	}
	files, _ := filepath.Glob(LogPath(dir) + "*")
	if len(files) != 1+logKeep {
		t.Fatalf("log files %v; want the current one and %d old ones", files, logKeep)
	}
	// It may name the user's conversations. Last: under Wine this skips.
	testkit.CheckPrivateFile(t, LogPath(dir))
}
