//go:build linux && !android

package native

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// madvPageout is MADV_PAGEOUT (Linux 5.4): reclaim the given pages now, as memory pressure
// would. Clean file pages are simply dropped; the next touch reads them back.
const madvPageout = 21

// fileMapping is one mapping of a file, as /proc/<pid>/maps lists it.
type fileMapping struct {
	start, end uintptr
	path       string
}

// readOnlyFileMappings lists the mappings of maps (the text of /proc/<pid>/maps) that map a
// file the process cannot write through: its code and read-only data, and those of every
// library, font and locale file it mapped. Writable mappings (their pages may be dirty, and
// paging those out would write to swap), mappings without access, anonymous memory and
// special files (devices, memfd, shared memory, deleted files) are left out.
func readOnlyFileMappings(maps io.Reader) ([]fileMapping, error) {
	var out []fileMapping
	sc := bufio.NewScanner(maps)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		// start-end perms offset dev inode path
		f := strings.Fields(sc.Text())
		if len(f) < 6 {
			continue
		}
		perms, inode := f[1], f[4]
		path := strings.Join(f[5:], " ")
		if len(perms) < 4 || perms[1] == 'w' || (perms[0] != 'r' && perms[2] != 'x') || inode == "0" {
			continue
		}
		if !strings.HasPrefix(path, "/") || strings.HasPrefix(path, "/dev/") || strings.HasPrefix(path, "/memfd:") ||
			strings.HasSuffix(path, " (deleted)") {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			return nil, fmt.Errorf("maps: bad range %q", f[0])
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err := errors.Join(err1, err2); err != nil || end <= start {
			return nil, fmt.Errorf("maps: bad range %q", f[0])
		}
		out = append(out, fileMapping{start: uintptr(start), end: uintptr(end), path: path})
	}
	return out, sc.Err()
}

// PageOutFileMappings asks the kernel to reclaim now the resident pages of this process's
// read-only file mappings (readOnlyFileMappings): code that ran once at start-up, data read
// once. Pages other processes also map stay where they are (the kernel skips shared pages),
// and pages still dirty in the page cache (a binary just written) cannot go until they are
// written back. It reports how many mappings it advised, and an error when none could be
// (a kernel older than 5.4 has no MADV_PAGEOUT).
func PageOutFileMappings() (int, error) {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return 0, err
	}
	maps, err := readOnlyFileMappings(bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	n := 0
	var first error
	for _, m := range maps {
		_, _, e := syscall.Syscall(syscall.SYS_MADVISE, m.start, m.end-m.start, madvPageout)
		if e != 0 {
			// A mapping unmapped since the read, or a locked one: skip it.
			if first == nil {
				first = fmt.Errorf("madvise(MADV_PAGEOUT) on %s: %w", m.path, e)
			}
			continue
		}
		n++
	}
	if n == 0 && first != nil {
		return 0, first
	}
	return n, nil
}
