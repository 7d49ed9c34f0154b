//go:build linux

package e2e

import (
	"os"
	"strings"
	"testing"
)

// A rollup as a 6.x kernel writes it (the WebKit web process of a soak run).
const rollupSample = `55e1c4a2b000-7ffd6a3f2000 ---p 00000000 00:00 0                          [rollup]
Rss:              214380 kB
Pss:              121733 kB
Pss_Dirty:         88120 kB
Pss_Anon:          86412 kB
Pss_File:          33017 kB
Pss_Shmem:          2304 kB
Shared_Clean:     118204 kB
Shared_Dirty:       4096 kB
Private_Clean:      5644 kB
Private_Dirty:     86436 kB
Referenced:       210112 kB
Anonymous:         86412 kB
KSM:                   0 kB
LazyFree:              0 kB
AnonHugePages:         0 kB
ShmemPmdMapped:        0 kB
FilePmdMapped:         0 kB
Shared_Hugetlb:        0 kB
Private_Hugetlb:       0 kB
Swap:                  0 kB
SwapPss:               0 kB
Locked:                0 kB
`

func TestParseSmapsRollup(t *testing.T) {
	m, err := parseSmapsRollup([]byte(rollupSample))
	if err != nil {
		t.Fatal(err)
	}
	want := smapsRollup{Rss: 214380, Pss: 121733, PssAnon: 86412, PssFile: 33017, PssShmem: 2304}
	if m != want {
		t.Errorf("parsed %+v, want %+v", m, want)
	}

	// Before Linux 5.0 the rollup had no split of PSS: the parts read 0, the totals are kept.
	var old []string
	for _, l := range strings.Split(rollupSample, "\n") {
		if !strings.HasPrefix(l, "Pss_") {
			old = append(old, l)
		}
	}
	m, err = parseSmapsRollup([]byte(strings.Join(old, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	if want := (smapsRollup{Rss: 214380, Pss: 121733}); m != want {
		t.Errorf("rollup without the split: parsed %+v, want %+v", m, want)
	}

	for name, text := range map[string]string{
		"empty":                 "",
		"cut after the header":  strings.SplitAfter(rollupSample, "\n")[0],
		"no Pss line":           strings.Replace(rollupSample, "Pss:", "Xss:", 1),
		"not a number":          strings.Replace(rollupSample, "121733 kB", "12x733 kB", 1),
		"negative":              strings.Replace(rollupSample, "214380 kB", "-214380 kB", 1),
		"not in kB":             strings.Replace(rollupSample, "121733 kB", "121733 MB", 1),
		"a value without units": strings.Replace(rollupSample, "121733 kB", "121733", 1),
	} {
		if m, err := parseSmapsRollup([]byte(text)); err == nil {
			t.Errorf("%s: parsed %+v, want an error", name, m)
		}
	}
}

// The rollup of a running process parses and agrees with its status file's VmRSS (both read
// the same counters; the process allocates between the two reads only a little).
func TestReadSmapsRollupOfThisProcess(t *testing.T) {
	m, err := readSmapsRollup(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	rss := vmRSSKiB(os.Getpid())
	if m.Pss <= 0 || m.Pss > m.Rss || m.PssAnon+m.PssFile+m.PssShmem > m.Pss+4 {
		t.Errorf("implausible rollup of this process: %+v", m)
	}
	if d := m.Rss - rss; d < -4096 || d > 4096 {
		t.Errorf("rollup RSS %d KiB, status VmRSS %d KiB: more than 4 MiB apart", m.Rss, rss)
	}
	if _, err := readSmapsRollup(-1); err == nil {
		t.Error("the rollup of no process read without an error")
	}
}

func TestResidentRanges(t *testing.T) {
	smaps := `556403a7f000-556403a81000 r--p 00000000 fe:00 247026                     /usr/bin/cat
Size:                  8 kB
Rss:                   8 kB
Pss:                   8 kB
VmFlags: rd mr mw me
7f1c2a000000-7f1c2a200000 rw-p 00000000 00:00 0
Size:               2048 kB
Rss:                   0 kB
Pss:                   0 kB
VmFlags: rd wr mr mw me ac
7f1c2b000000-7f1c2b004000 rw-s 00000000 00:01 1034                       /memfd:wayland-shm (deleted)
Size:                 16 kB
Rss:                  12 kB
VmFlags: rd wr sh mr mw me ms
ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]
Size:                  4 kB
Rss:                   4 kB
`
	got := residentRanges([]byte(smaps))
	want := []addrRange{
		{0x556403a7f000, 0x556403a81000},
		{0x7f1c2b000000, 0x7f1c2b004000},
		{0xffffffffff600000, 0xffffffffff601000},
	}
	if len(got) != len(want) {
		t.Fatalf("resident ranges %x, want %x", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("range %d: %x, want %x", i, got[i], want[i])
		}
	}
	// An Rss line before any mapping line (a cut file) names no range.
	if got := residentRanges([]byte("Rss: 8 kB\n")); len(got) != 0 {
		t.Errorf("an Rss line without its mapping gave %x", got)
	}
}

func TestPagemapFrame(t *testing.T) {
	for _, c := range []struct {
		entry   uint64
		pfn     uint64
		present bool
	}{
		{1<<63 | 0x1a2b3c, 0x1a2b3c, true},
		{1<<63 | 1<<56 | 1<<55 | 0x42, 0x42, true}, // exclusively mapped, soft-dirty: flags above the frame number
		{1 << 63, 0, true},                         // present, frame number hidden from an unprivileged reader
		{0, 0, false},
		{1<<62 | 0x77, 0, false}, // swapped out: bits 0-54 are the swap slot, not a frame
	} {
		pfn, present := pagemapFrame(c.entry)
		if pfn != c.pfn || present != c.present {
			t.Errorf("entry %#x: frame %#x present %v, want %#x %v", c.entry, pfn, present, c.pfn, c.present)
		}
	}
}

// Each frame is divided among every mapping of it, so the shares add up to the frames
// themselves; a frame mapped twice by one process counts twice for it.
func TestOwnShares(t *testing.T) {
	own := ownShares(map[int][]uint64{
		10: {1, 2, 2}, // frame 2 mapped twice here and once by 20: a third of it per mapping
		20: {2, 3},
		30: nil,
	}, 4096)
	if own[10] != 7 || own[20] != 5 || own[30] != 0 { // 4 + 2*4/3 = 6.67; 4/3 + 4 = 5.33
		t.Errorf("shares %v, want 10:7 20:5 30:0", own)
	}
	if own[10]+own[20] != 12 {
		t.Errorf("shares add up to %d KiB for three 4 KiB frames", own[10]+own[20])
	}
}

// On this process alone OwnPSS is its whole resident set, each page once, when the reader
// may see frame numbers; without the privilege it says so instead of reading zeros.
func TestOwnPSSOfThisProcess(t *testing.T) {
	pid := os.Getpid()
	own, ok := OwnPSS([]int{pid})
	if !ok {
		if os.Geteuid() == 0 {
			t.Fatal("OwnPSS reported no privilege to a root reader")
		}
		if own != nil {
			t.Errorf("OwnPSS without the privilege gave figures %v", own)
		}
		return
	}
	m, err := readSmapsRollup(pid)
	if err != nil {
		t.Fatal(err)
	}
	// The two reads are moments apart and the test allocates in between: within 25%.
	if o := own[pid]; o <= 0 || float64(o) < 0.75*float64(m.Pss) || float64(o) > 1.25*float64(m.Rss) {
		t.Errorf("own PSS %d KiB of this process; its PSS %d KiB, RSS %d KiB", own[pid], m.Pss, m.Rss)
	}
}

func TestReadOnlyFileRssKiB(t *testing.T) {
	smaps := `55d0c0a00000-55d0c0a80000 r--p 00000000 08:01 1234 /usr/bin/clanker
Size:                512 kB
Rss:                 300 kB
Pss:                 300 kB
55d0c0a80000-55d0c1a00000 r-xp 00080000 08:01 1234 /usr/bin/clanker
Rss:                4000 kB
55d0c1a00000-55d0c1b00000 rw-p 01000000 08:01 1234 /usr/bin/clanker
Rss:                  64 kB
55d0c2000000-55d0c2100000 rw-p 00000000 00:00 0 [heap]
Rss:                 900 kB
7f0000000000-7f0000100000 r--s 00000000 08:01 99 /usr/share/fonts/a font.ttf
Rss:                  20 kB
7f0000300000-7f0000400000 r--s 00000000 00:05 12 /dev/dri/renderD128
Rss:                  8 kB
7f0000400000-7f0000500000 r--p 00000000 00:01 13 /memfd:wayland-shm (deleted)
Rss:                  16 kB
7f0000700000-7f0000800000 r--p 00000000 00:00 0
Rss:                  32 kB
VmFlags: rd mr mw me
`
	if got := readOnlyFileRssKiB([]byte(smaps)); got != 4320 {
		t.Fatalf("got %d KiB; want 4320 (the binary's two read-only mappings and the font)", got)
	}
}
