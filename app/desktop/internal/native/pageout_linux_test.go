//go:build linux && !android

package native

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestReadOnlyFileMappingsKeepsOnlyCodeAndDataReadFromFiles(t *testing.T) {
	maps := `55d0c0a00000-55d0c0a80000 r--p 00000000 08:01 1234 /usr/bin/clanker
55d0c0a80000-55d0c1a00000 r-xp 00080000 08:01 1234 /usr/bin/clanker
55d0c1a00000-55d0c1b00000 rw-p 01000000 08:01 1234 /usr/bin/clanker
55d0c2000000-55d0c2100000 rw-p 00000000 00:00 0 [heap]
7f0000000000-7f0000100000 r--s 00000000 08:01 99 /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
7f0000100000-7f0000200000 ---p 00000000 08:01 77 /usr/lib/x86_64-linux-gnu/libfoo.so
7f0000200000-7f0000300000 r-xp 00000000 08:01 77 /usr/lib/x86_64-linux-gnu/libfoo.so
7f0000300000-7f0000400000 r--s 00000000 00:05 12 /dev/dri/renderD128
7f0000400000-7f0000500000 r--p 00000000 00:01 13 /memfd:wayland-shm (deleted)
7f0000500000-7f0000600000 r--p 00000000 08:01 55 /tmp/old library.so (deleted)
7f0000600000-7f0000700000 r--p 00000000 08:01 56 /opt/My Apps/lib with spaces.so
7f0000700000-7f0000800000 r--p 00000000 00:00 0
7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0 [vdso]
ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]
`
	got, err := readOnlyFileMappings(strings.NewReader(maps))
	if err != nil {
		t.Fatal(err)
	}
	want := []fileMapping{
		{0x55d0c0a00000, 0x55d0c0a80000, "/usr/bin/clanker"},
		{0x55d0c0a80000, 0x55d0c1a00000, "/usr/bin/clanker"},
		{0x7f0000000000, 0x7f0000100000, "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"},
		{0x7f0000200000, 0x7f0000300000, "/usr/lib/x86_64-linux-gnu/libfoo.so"},
		{0x7f0000600000, 0x7f0000700000, "/opt/My Apps/lib with spaces.so"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d mappings %+v; want %d: %+v", len(got), got, len(want), want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("mapping %d: %+v; want %+v", i, got[i], want[i])
		}
	}
	if _, err := readOnlyFileMappings(strings.NewReader("zz-10 r--p 0 08:01 5 /lib/x.so\n")); err == nil {
		t.Error("a malformed range was accepted")
	}
}

// residentReadOnlyKiB sums the resident pages (Rss) of this process's mappings of its own
// binary that it cannot write through.
func residentReadOnlyKiB(t *testing.T, exe string) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	total, in := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			in = len(fields) >= 6 && fields[5] == exe && fields[1][1] != 'w'
			continue
		}
		if in && len(fields) == 3 && fields[0] == "Rss:" {
			kb, _ := strconv.Atoi(fields[1])
			total += kb
		}
	}
	return total
}

func TestPageOutFileMappingsHandsBackCodeThatRanOnce(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The test binary was just linked: its pages are dirty in the page cache until written
	// back, and the kernel reclaims only clean ones.
	syscall.Sync()
	before := residentReadOnlyKiB(t, exe)
	if before < 1024 {
		t.Fatalf("only %d KiB of this binary's code and read-only data are resident; the test needs more to mean anything", before)
	}
	n, err := PageOutFileMappings()
	if err != nil {
		t.Fatal(err)
	}
	after := residentReadOnlyKiB(t, exe)
	t.Logf("%d mappings advised; this binary's resident read-only pages: %d KiB -> %d KiB", n, before, after)
	if n == 0 {
		t.Fatal("no mapping was advised")
	}
	// What this test runs between the call and the reading (and the runtime's own threads)
	// is read back at once, a few hundred KiB at most; the rest must be gone.
	if after > before/2 {
		t.Fatalf("resident read-only pages of the test binary went from %d to %d KiB; want at least half handed back", before, after)
	}
}
