//go:build linux

package e2e

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// What a process's memory is, read from /proc: the memory benchmarks' figures.

// smapsRollup is the part of /proc/PID/smaps_rollup the benchmarks read, in KiB.
type smapsRollup struct {
	Rss, Pss, PssAnon, PssFile, PssShmem int64
}

// readSmapsRollup reads a process's /proc/PID/smaps_rollup.
func readSmapsRollup(pid int) (smapsRollup, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "smaps_rollup"))
	if err != nil {
		return smapsRollup{}, err
	}
	return parseSmapsRollup(b)
}

// parseSmapsRollup reads the sums of smaps_rollup: a header line naming the address range
// the rollup covers, then "Name:  value kB" lines. A kernel older than 5.0 has no
// Pss_Anon/Pss_File/Pss_Shmem lines (they read 0 then); a text without Rss and Pss lines
// (not a rollup, or cut short) and a value that is not a number are errors.
func parseSmapsRollup(b []byte) (smapsRollup, error) {
	var m smapsRollup
	fields := map[string]*int64{"Rss:": &m.Rss, "Pss:": &m.Pss, "Pss_Anon:": &m.PssAnon, "Pss_File:": &m.PssFile, "Pss_Shmem:": &m.PssShmem}
	seen := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		dst, ok := fields[f[0]]
		if !ok {
			continue
		}
		if len(f) != 3 || f[2] != "kB" {
			return smapsRollup{}, fmt.Errorf("smaps_rollup: %q: want a value in kB", line)
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || n < 0 {
			return smapsRollup{}, fmt.Errorf("smaps_rollup: %q: not a size", line)
		}
		*dst = n
		seen[f[0]] = true
	}
	if !seen["Rss:"] || !seen["Pss:"] {
		return smapsRollup{}, errors.New("smaps_rollup: no Rss and Pss lines")
	}
	return m, nil
}

// OwnPSS is what the processes' PSS would be if nothing outside them mapped the same pages:
// each resident page's size divided by how many times the given processes map it, summed
// per process (KiB). PSS itself divides by every mapper on the machine, so a library page
// another program also maps (a second WebKit app, another test's processes) counts half;
// on a shared machine PSS therefore reads lower than on a quiet one for the same memory,
// and moves with whatever else runs. OwnPSS does not: it is the figure of a machine where
// only these processes run (slightly above a quiet machine's PSS, where the X server and
// the session bus still share a few libraries). It reads /proc/PID/pagemap, whose page
// frame numbers only a privileged reader (CAP_SYS_ADMIN) sees; ok is false otherwise.
func OwnPSS(pids []int) (own map[int]int64, ok bool) {
	frames := map[int][]uint64{}
	for _, pid := range pids {
		pfns, privileged := residentFrames(pid)
		if !privileged {
			return nil, false
		}
		frames[pid] = pfns
	}
	return ownShares(frames, os.Getpagesize()), true
}

// ownShares divides each page frame among the processes that map it, as often as they map
// it, and sums each process's shares in KiB (rounded).
func ownShares(frames map[int][]uint64, pageSize int) map[int]int64 {
	count := map[uint64]int32{}
	for _, pfns := range frames {
		for _, f := range pfns {
			count[f]++
		}
	}
	own := map[int]int64{}
	pageKiB := float64(pageSize) / 1024
	for pid, pfns := range frames {
		var kib float64
		for _, f := range pfns {
			kib += pageKiB / float64(count[f])
		}
		own[pid] = int64(kib + 0.5)
	}
	return own
}

// residentFrames lists the page frame numbers of every resident page pid maps, once per
// mapping (reading only the mappings /proc/PID/smaps shows with resident pages). privileged
// is false when the kernel hid the frame numbers (an unprivileged reader sees zeros); a
// process that ends while it reads gives what was read so far.
func residentFrames(pid int) (pfns []uint64, privileged bool) {
	smaps, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "smaps"))
	if err != nil {
		return nil, true
	}
	pm, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "pagemap"))
	if err != nil {
		return nil, true
	}
	defer pm.Close()
	page := uint64(os.Getpagesize())
	buf := make([]byte, 8*4096)
	for _, r := range residentRanges(smaps) {
		for addr := r.start; addr < r.end; {
			n := min((r.end-addr)/page, uint64(len(buf)/8))
			got, err := pm.ReadAt(buf[:n*8], int64(addr/page*8))
			for i := 0; i+8 <= got; i += 8 {
				pfn, present := pagemapFrame(binary.LittleEndian.Uint64(buf[i:]))
				if !present {
					continue
				}
				if pfn == 0 {
					return nil, false
				}
				pfns = append(pfns, pfn)
			}
			if err != nil {
				break
			}
			addr += n * page
		}
	}
	return pfns, true
}

// addrRange is a mapping's addresses, end exclusive.
type addrRange struct{ start, end uint64 }

// residentRanges lists the mappings of a /proc/PID/smaps text that have resident pages
// (an Rss line above 0). A mapping starts with a line "start-end perms offset dev inode
// [path]" (hex addresses); its "Name: value kB" lines follow.
func residentRanges(smaps []byte) []addrRange {
	var out []addrRange
	var cur addrRange
	valid := false
	for _, line := range strings.Split(string(smaps), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if lo, hi, isRange := strings.Cut(f[0], "-"); isRange && !strings.HasSuffix(f[0], ":") {
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			cur, valid = addrRange{a, b}, err1 == nil && err2 == nil && a < b
			continue
		}
		if f[0] == "Rss:" && valid && len(f) >= 2 && f[1] != "0" {
			out = append(out, cur)
			valid = false // one Rss line per mapping
		}
	}
	return out
}

// pagemapFrame decodes one 64-bit /proc/PID/pagemap entry: bit 63 says the page is
// present in memory, bits 0-54 are then its page frame number (zero to a reader without
// CAP_SYS_ADMIN). A swapped-out page (bit 62) is not present.
func pagemapFrame(e uint64) (pfn uint64, present bool) {
	if e>>63 == 0 {
		return 0, false
	}
	return e & (1<<55 - 1), true
}

// residentReadOnlyFileMiB is how much of process pid's read-only file mappings (code and
// read-only data of its binary, libraries, fonts; not devices or memfd) is resident, in
// MiB: what a deep idle release asks the kernel to reclaim.
func residentReadOnlyFileMiB(t testing.TB, pid int) float64 {
	t.Helper()
	smaps, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "smaps"))
	if err != nil {
		t.Fatalf("read the smaps of %d: %v", pid, err)
	}
	return float64(readOnlyFileRssKiB(smaps)) / 1024
}

// readOnlyFileRssKiB sums the Rss lines of a /proc/PID/smaps text's mappings of a file
// (a path under /, not /dev/ or /memfd:) that cannot be written through.
func readOnlyFileRssKiB(smaps []byte) int64 {
	var total int64
	in := false
	for _, line := range strings.Split(string(smaps), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if _, _, isRange := strings.Cut(f[0], "-"); isRange && !strings.HasSuffix(f[0], ":") && len(f) >= 5 {
			path := ""
			if len(f) >= 6 {
				path = strings.Join(f[5:], " ")
			}
			in = len(f[1]) == 4 && f[1][1] != 'w' && strings.HasPrefix(path, "/") &&
				!strings.HasPrefix(path, "/dev/") && !strings.HasPrefix(path, "/memfd:")
			continue
		}
		if in && f[0] == "Rss:" && len(f) >= 2 {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			total += kb
			in = false
		}
	}
	return total
}
